"""MCP OAuth end to end: a protected streamable-HTTP server and its authorization server on loopback
(``pi_harness.testing.fake_mcp_auth``), the browser played by following the authorization URL.

401 -> protected-resource metadata -> authorization-server metadata -> dynamic registration ->
authorization page (PKCE S256, checked by the fake) -> loopback callback -> token -> tool call; the
refresh after a rejected or an expired token; cancellation; and ``pi mcp login|logout|list``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_harness.extensions_builtin.mcp import McpOptions, create_mcp_extension
from pi_harness.extensions_builtin.mcp.auth_store import store_keys
from pi_harness.extensions_builtin.mcp.cli import mcp_list_async
from pi_harness.extensions_builtin.mcp.login import mcp_login, mcp_login_async, mcp_logout
from pi_harness.testing.fake_mcp_auth import FakeMcpAuthServer

FAST = McpOptions(retry_delays_s=(0.01, 0.01))


@pytest.fixture
def protected() -> Iterator[FakeMcpAuthServer]:
    with FakeMcpAuthServer() as server:
        yield server


def configure(agent_dir: Path, server: FakeMcpAuthServer, **extra: Any) -> None:
    entry = {"url": server.url, "exposure": "direct", **extra}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"prot": entry}}))


def stored(agent_dir: Path, server: FakeMcpAuthServer) -> dict[str, Any]:
    states = json.loads((agent_dir / "mcp-auth.json").read_text())
    key, _legacy = store_keys("prot", server.url)
    return dict(states[key])


def login(agent_dir: Path, cwd: Path, open_url: Any, *args: str) -> Any:
    return mcp_login(
        ["prot", *args],
        cwd=cwd,
        agent_directory=agent_dir,
        project_trusted=False,
        open_url=open_url,
        retry_delays_s=(0.01, 0.01),
    )


async def login_async(agent_dir: Path, cwd: Path, open_url: Any) -> int:
    done = await mcp_login_async(
        ["prot"],
        cwd=cwd,
        agent_directory=agent_dir,
        project_trusted=False,
        open_url=open_url,
        retry_delays_s=(0.01, 0.01),
    )
    return done.code


async def session_call(harness: Any, cwd: Path) -> tuple[Any, dict[str, Any]]:
    h = await harness(create_mcp_extension(FAST), cwd)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    result = await h.call("mcp__prot__whoami", {})
    return h, result


def test_sign_in_discovers_registers_and_stores_tokens_where_pi_does(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(agent_dir, protected)
    outcome = login(agent_dir, tmp_path, protected.visit)
    assert (outcome.code, outcome.out, outcome.err) == (0, ['Signed in to MCP server "prot" (1 tools).'], [])
    printed = capsys.readouterr().out
    assert printed.startswith('Sign in to MCP server "prot" in your browser:\nhttp://127.0.0.1:')
    assert "code_challenge_method=S256" in printed
    order = [r for r in protected.requests if r.split(" ")[1] != "/mcp"]
    assert order[:2] == ["GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server"]
    assert order[-3:] == ["POST /register", "GET /authorize", "POST /token"]
    assert order.count("POST /register") == 1  # the first, browserless connection does not register
    (registration,) = protected.registrations
    assert registration["client_name"] == "pi"
    assert registration["redirect_uris"][0].startswith("http://127.0.0.1:")
    assert registration["redirect_uris"][0].endswith("/callback")
    state = stored(agent_dir, protected)
    assert state["clientInformation"]["client_id"] == "client-1"
    assert state["tokens"]["access_token"].startswith("at-")
    assert state["tokens"]["refresh_token"].startswith("rt-")
    assert isinstance(state["tokensExpireAt"], int)
    assert oct((agent_dir / "mcp-auth.json").stat().st_mode & 0o777) == "0o600"
    again = login(agent_dir, tmp_path, protected.visit)
    assert again.out == ['Already signed in to MCP server "prot" (1 tools).']


async def test_a_session_uses_the_stored_sign_in(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any
) -> None:
    configure(agent_dir, protected)
    assert await login_async(agent_dir, tmp_path, protected.visit) == 0
    h, result = await session_call(harness, tmp_path)
    assert result["content"] == [{"type": "text", "text": "signed in as client-1"}]
    await h.shutdown()


async def test_a_rejected_token_is_refreshed_once(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any
) -> None:
    configure(agent_dir, protected)
    assert await login_async(agent_dir, tmp_path, protected.visit) == 0
    before = stored(agent_dir, protected)["tokens"]
    protected.revoke_access_tokens()
    h, result = await session_call(harness, tmp_path)
    assert result["content"] == [{"type": "text", "text": "signed in as client-1"}]
    refreshes = [g for g in protected.grants if g.get("grant_type") == "refresh_token"]
    assert [g["refresh_token"] for g in refreshes] == [before["refresh_token"]]
    after = stored(agent_dir, protected)["tokens"]
    assert after["access_token"] != before["access_token"]
    assert protected.requests.count("GET /authorize") == 1  # no new browser step
    await h.shutdown()


async def test_an_expired_token_is_refreshed_before_it_is_sent(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any
) -> None:
    configure(agent_dir, protected)
    assert await login_async(agent_dir, tmp_path, protected.visit) == 0
    path = agent_dir / "mcp-auth.json"
    states = json.loads(path.read_text())
    key, _legacy = store_keys("prot", protected.url)
    states[key]["tokensExpireAt"] = 1000  # long ago
    path.write_text(json.dumps(states))
    seen = len(protected.requests)
    h, result = await session_call(harness, tmp_path)
    assert result["content"] == [{"type": "text", "text": "signed in as client-1"}]
    # The refresh goes out first, to the token endpoint the stored discovery names.
    assert protected.requests[seen] == "POST /token"
    assert protected.grants[-1]["grant_type"] == "refresh_token"
    await h.shutdown()


async def test_without_sign_in_the_server_needs_sign_in_and_list_says_how(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any
) -> None:
    configure(agent_dir, protected)
    h = await harness(create_mcp_extension(FAST), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    assert "mcp__prot__whoami" not in h.tools()
    await h.shutdown()
    text, code = await mcp_list_async(tmp_path, McpOptions(agent_dir=agent_dir, retry_delays_s=(0.01, 0.01)))
    assert code == 1
    assert text.splitlines()[:3] == [
        "prot: needs sign-in (direct, global)",
        f"  {protected.url}",
        "  sign in with: pi mcp login prot",
    ]
    assert "POST /register" not in protected.requests
    assert not (agent_dir / "mcp-auth.json").exists() or "tokens" not in (agent_dir / "mcp-auth.json").read_text()


def test_configured_scope_and_client_name_are_sent(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(agent_dir, protected, oauth={"scope": "extra", "clientName": "Claude Code"})
    assert login(agent_dir, tmp_path, protected.visit).code == 0
    assert protected.registrations[0]["client_name"] == "Claude Code"
    assert "scope=extra+tools" in capsys.readouterr().out


async def test_a_client_registered_in_advance_is_used_on_its_fixed_port(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any
) -> None:
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    protected.register_client("my-client", f"http://127.0.0.1:{port}/callback")
    configure(agent_dir, protected, oauth={"clientId": "my-client", "callbackPort": port})
    assert await login_async(agent_dir, tmp_path, protected.visit) == 0
    assert protected.registrations == []
    assert "clientInformation" not in stored(agent_dir, protected)  # a configured client is not stored
    h, result = await session_call(harness, tmp_path)
    assert result["content"] == [{"type": "text", "text": "signed in as my-client"}]
    await h.shutdown()


def test_auth_server_metadata_url_replaces_a_wrong_advertised_server(tmp_path: Path, agent_dir: Path) -> None:
    with FakeMcpAuthServer(advertised_authorization_server="http://127.0.0.1:9/wrong") as server:
        configure(agent_dir, server, oauth={"authServerMetadataUrl": f"{server.base_url}/custom-metadata"})
        outcome = login(agent_dir, tmp_path, server.visit, "--timeout", "30")
        assert (outcome.code, outcome.out) == (0, ['Signed in to MCP server "prot" (1 tools).'])
        assert "GET /custom-metadata" in server.requests
        assert not any("oauth-authorization-server" in line for line in server.requests)  # no discovery
        assert stored(agent_dir, server)["discovery"]["authorizationServerMetadata"]["issuer"].endswith("/custom")


async def test_a_sign_in_from_the_shell_reaches_the_running_session_on_its_next_turn(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any
) -> None:
    configure(agent_dir, protected)
    h = await harness(create_mcp_extension(FAST), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    assert "mcp__prot__whoami" not in h.tools()
    assert await login_async(agent_dir, tmp_path, protected.visit) == 0  # as `pi mcp login prot` would
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    result = await h.call("mcp__prot__whoami", {})
    assert result["content"] == [{"type": "text", "text": "signed in as client-1"}]
    await h.shutdown()


def test_cimd_without_support_fails_as_in_pi(tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer) -> None:
    configure(agent_dir, protected, oauth={"clientRegistration": "cimd"})
    outcome = login(agent_dir, tmp_path, protected.visit)
    assert outcome.code == 1
    assert outcome.err[0].startswith('Sign-in to MCP server "prot" failed: The authorization server does not')
    assert protected.registrations == []


def test_a_denied_sign_in_fails_clearly_and_stores_no_tokens(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer
) -> None:
    configure(agent_dir, protected)
    protected.deny = True
    outcome = login(agent_dir, tmp_path, protected.visit)
    assert (outcome.code, outcome.err) == (1, ['Sign-in to MCP server "prot" failed: The user denied access'])
    assert "tokens" not in stored(agent_dir, protected)


def test_an_unfinished_sign_in_stops_at_the_timeout(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer
) -> None:
    configure(agent_dir, protected)
    outcome = login(agent_dir, tmp_path, lambda _url: None, "--timeout", "1")
    assert (outcome.code, outcome.err) == (
        1,
        ['Sign-in to MCP server "prot" was cancelled or not completed within 1 seconds.'],
    )


def test_logout_and_the_errors_of_login(tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer) -> None:
    configure(agent_dir, protected)
    assert login(agent_dir, tmp_path, protected.visit).code == 0

    def logout(*args: str) -> tuple[int, list[str], list[str]]:
        done = mcp_logout(list(args), cwd=tmp_path, agent_directory=agent_dir, project_trusted=False)
        return done.code, done.out, done.err

    assert logout("prot") == (0, ['Signed out of MCP server "prot".'], [])
    assert logout("prot") == (0, ['No stored credentials for MCP server "prot".'], [])
    assert logout("nope") == (1, [], ['No MCP server named "nope". Configured: prot.'])
    assert logout() == (1, [], ['Usage: pi mcp logout <server>\nUse "pi mcp --help" for usage.'])
    (agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"prot": {"url": protected.url, "headers": {"Authorization": "Bearer x"}}}})
    )
    assert logout("prot") == (
        1,
        [],
        ['MCP server "prot" does not use OAuth. Only HTTP servers without an Authorization header do.'],
    )
    bad = login(agent_dir, tmp_path, protected.visit, "--timeout", "0")
    assert bad.err == ["--timeout must be a positive number of seconds."]


def test_pi_mcp_login_follows_the_browser_command(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer
) -> None:
    """The installed ``pi``: the browser is the ``$BROWSER`` command, here a script that visits the URL."""
    configure(agent_dir, protected)
    browser = tmp_path / "browser.py"
    browser.write_text(
        "import sys\nfrom pi_harness.testing.fake_mcp_auth import FakeMcpAuthServer\nFakeMcpAuthServer.visit(sys.argv[1])\n"
    )
    env = {
        **os.environ,
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "DISPLAY": ":0",
        "BROWSER": f"{sys.executable} {browser} %s",
    }
    executable = Path(sys.executable).with_name("pi")
    done = subprocess.run(
        [str(executable), "mcp", "login", "prot", "--timeout", "60"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == 'Signed in to MCP server "prot" (1 tools).'
    done = subprocess.run(
        [str(executable), "mcp", "logout", "prot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, 'Signed out of MCP server "prot".\n')


async def test_session_mcp_login_logout_and_exposure(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer, harness: Any, recording_ui: Any
) -> None:
    """``/mcp`` in a session: the startup report, sign-in (then the session's connection uses it),
    the plain status, sign-out, and a saved exposure change."""
    configure(agent_dir, protected)
    options = McpOptions(retry_delays_s=(0.01, 0.01), open_url=protected.visit)
    h = await harness(create_mcp_extension(options), tmp_path, ui=recording_ui)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    await h.runner.run_command("mcp", "")
    assert recording_ui.notifications[-1] == ("info", "prot: needs sign-in, run /mcp login prot (direct)")
    await h.runner.run_command("mcp", "login prot")
    shown = [text for _kind, text in recording_ui.notifications if text.startswith('Sign in to MCP server "prot"')]
    assert len(shown) == 1 and "/authorize?" in shown[0]
    assert recording_ui.notifications[-1] == ("info", 'Signed in to MCP server "prot" (1 tools).')
    result = await h.call("mcp__prot__whoami", {})
    assert result["content"] == [{"type": "text", "text": "signed in as client-1"}]

    await h.runner.run_command("mcp", "exposure prot deferred")
    saved = json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["prot"]
    assert saved["exposure"] == "deferred"
    assert recording_ui.notifications[-1][0] == "info"

    await h.runner.run_command("mcp", "logout prot")
    assert recording_ui.notifications[-1] == ("info", 'Signed out of MCP server "prot".')
    assert "tokens" not in (agent_dir / "mcp-auth.json").read_text()
    await h.runner.run_command("mcp", "")
    assert recording_ui.notifications[-1] == ("info", "prot: needs sign-in, run /mcp login prot (deferred)")
    await h.shutdown()


async def test_a_pasted_redirect_url_finishes_the_sign_in(
    tmp_path: Path, agent_dir: Path, protected: FakeMcpAuthServer
) -> None:
    """The browser cannot reach the callback (SSH): the user pastes the URL it was redirected to."""
    import asyncio

    from pi_harness.extensions_builtin.mcp.config import load_mcp_config
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection
    from pi_harness.extensions_builtin.mcp.log import McpLog
    from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings
    from pi_harness.extensions_builtin.mcp.signin import SignInCancelled, SignInFailed, sign_in

    configure(agent_dir, protected)
    server = load_mcp_config(agent_dir, tmp_path, project_trusted=False).servers["prot"]
    settings = ConnectionSettings(auth_dir=agent_dir)
    shown: list[str] = []

    def connect(browser: Any) -> ServerConnection:
        return ServerConnection(
            server, cwd=str(tmp_path), log=McpLog(agent_dir / "mcp.log"), settings=settings, browser=browser
        )

    async def paste(answer: Any) -> Any:
        async def typed() -> str | None:
            while not shown:
                await asyncio.sleep(0.01)
            return answer(shown[-1])

        return typed

    async def attempt(answer: Any) -> Any:
        return await sign_in(server, agent_dir, connect, shown.append, 30, paste=await paste(answer))

    with pytest.raises(SignInCancelled):
        await attempt(lambda _url: "")
    with pytest.raises(SignInFailed, match="does not match this sign-in's redirect URI"):
        await attempt(lambda _url: "http://127.0.0.1:1/elsewhere?code=x&state=y")
    with pytest.raises(SignInFailed, match="belongs to a different sign-in"):
        await attempt(lambda url: protected.authorize(url).replace("state=", "state=x"))
    connection = await attempt(protected.authorize)
    assert connection.status == "connected"
    await connection.close()
    assert stored(agent_dir, protected)["tokens"]["access_token"].startswith("at-")


def test_the_credential_file_takes_pis_lock_and_keeps_other_entries(tmp_path: Path) -> None:
    """Pi's proper-lockfile lock is the directory ``mcp-auth.json.lock``: while it exists we wait."""
    import threading
    import time

    from pi_harness.extensions_builtin.mcp.auth_store import McpAuthFile

    file = McpAuthFile(tmp_path)
    (tmp_path / "mcp-auth.json").write_text(json.dumps({"mcp__other|https://x.test/": {"serverUrl": "https://x.test"}}))
    lock = tmp_path / "mcp-auth.json.lock"
    lock.mkdir()
    released: list[bool] = []

    def release() -> None:
        time.sleep(0.2)
        released.append(True)
        lock.rmdir()

    threading.Thread(target=release).start()
    file.merge("my-server", "HTTPS://Example.test", {"tokens": {"access_token": "a"}})
    assert released == [True]  # the write waited for the other program's lock
    assert not lock.exists()
    states = json.loads((tmp_path / "mcp-auth.json").read_text())
    assert set(states) == {"mcp__other|https://x.test/", "mcp__my_server|https://example.test/"}
    assert file.tokens("my-server", "https://example.test/") == {"access_token": "a"}
    # An older Pi keyed by the URL alone: the first server to read it takes it over.
    (tmp_path / "mcp-auth.json").write_text(json.dumps({"https://legacy.test/mcp": {"tokens": {"access_token": "b"}}}))
    assert file.load("legacy", "https://legacy.test/mcp") == {"tokens": {"access_token": "b"}}
    assert list(json.loads((tmp_path / "mcp-auth.json").read_text())) == ["mcp__legacy|https://legacy.test/mcp"]
