"""``pi auth login|logout`` and a signed-in credential used by ``pi -p``, end to end: the installed
command against the fake authorization server and the fake LLM server, over real HTTP. The test
plays the browser."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from urllib.parse import parse_qs, urlsplit

import httpx2
from _pi_env import PiEnv, pi_executable

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep
from pi_harness.testing.fake_oauth import FakeOAuthServer


def _start_login(pi_env: PiEnv, provider: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [pi_executable(), "auth", "login", provider],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=pi_env.cwd,
        env=pi_env.env | env,
    )


def _run(pi_env: PiEnv, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [pi_executable(), *args],
        input="",
        capture_output=True,
        text=True,
        cwd=pi_env.cwd,
        env=pi_env.env | (env or {}),
        timeout=60,
        check=False,
    )


def _read_until_url(process: subprocess.Popen[str], prefix: str) -> str:
    assert process.stderr is not None
    seen: list[str] = []
    for line in process.stderr:
        seen.append(line)
        if line.startswith(prefix):
            return line.strip()
    raise AssertionError(f"no URL starting with {prefix} in: {''.join(seen)}")


def _auth_json(pi_env: PiEnv) -> dict[str, dict[str, object]]:
    path = pi_env.agent_dir / "auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data: dict[str, dict[str, object]] = json.loads(path.read_text())
    return data


def test_openrouter_login_through_the_loopback_callback(pi_env: PiEnv) -> None:
    with FakeOAuthServer() as server:
        process = _start_login(pi_env, "openrouter", server.env("openrouter"))
        url = _read_until_url(process, f"{server.url}/auth?")
        # The browser: the fake provider redirects it to pi's loopback callback.
        page = httpx2.get(url, follow_redirects=True, timeout=30)
        out, err = process.communicate(timeout=60)
        key = server.keys[0]
    assert page.status_code == 200 and "Signed in" in page.text
    assert process.returncode == 0, err
    assert out.startswith("Signed in to openrouter")
    assert _auth_json(pi_env)["openrouter"] == {"type": "oauth", "refresh": "", "access": key, "expires": 2**53 - 1}


def test_openrouter_login_with_a_pasted_redirect_url(pi_env: PiEnv) -> None:
    with FakeOAuthServer() as server:
        process = _start_login(pi_env, "openrouter", server.env("openrouter"))
        url = _read_until_url(process, f"{server.url}/auth?")
        # A browser on another machine ends on the redirect URL; the user pastes it.
        location = httpx2.get(url, timeout=30).headers["location"]
        assert parse_qs(urlsplit(location).query)["code"]
        _out, err = process.communicate(location + "\n", timeout=60)
        key = server.keys[0]
    assert process.returncode == 0, err
    assert _auth_json(pi_env)["openrouter"]["access"] == key


def test_device_login_then_logout(pi_env: PiEnv) -> None:
    with FakeOAuthServer(device_states=["approve"]) as server:
        result = _run(pi_env, "auth", "login", "acme", env=server.env("acme"))
        access = server.access_tokens[0]
        device_page = f"{server.url}/device"
    assert result.returncode == 0, result.stderr
    assert "WDJB-MJHT" in result.stderr and device_page in result.stderr
    stored = _auth_json(pi_env)["acme"]
    assert stored["type"] == "oauth" and stored["access"] == access and stored["refresh"]
    logout = _run(pi_env, "auth", "logout", "acme")
    assert logout.returncode == 0
    assert "acme" not in _auth_json(pi_env)
    again = _run(pi_env, "auth", "logout", "acme")
    assert again.returncode == 1 and "No stored credentials for acme" in again.stderr


def test_refused_subscription_sign_ins(pi_env: PiEnv) -> None:
    for provider in ("anthropic", "openai-codex", "github-copilot"):
        result = _run(pi_env, "auth", "login", provider)
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{provider}: ")
        assert "does not authorize other applications" in lines[0]
    assert not (pi_env.agent_dir / "auth.json").exists()


def _acme_provider(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "acme": {
                        "baseUrl": pi_env.server.base_url("openai-completions"),
                        "api": "openai-completions",
                        "models": [{"id": "acme-model", "contextWindow": 128000, "maxTokens": 4096}],
                    }
                }
            }
        )
    )
    settings = pi_env.agent_dir / "settings.json"
    settings.write_text(json.dumps({"defaultProvider": "acme", "defaultModel": "acme-model"}))


def test_print_mode_refreshes_and_sends_the_signed_in_token(pi_env: PiEnv) -> None:
    _acme_provider(pi_env)
    with FakeOAuthServer() as server:
        auth = {"acme": {"type": "oauth", "refresh": server.issue_refresh_token(), "access": "expired", "expires": 1}}
        (pi_env.agent_dir / "auth.json").write_text(json.dumps(auth))
        os.chmod(pi_env.agent_dir / "auth.json", 0o600)
        pi_env.server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
        first = _run(pi_env, "-p", "hi", env=server.env("acme"))
        second = _run(pi_env, "-p", "again", env=server.env("acme"))
        assert server.refresh_count == 1
        token = server.access_tokens[0]
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert [r.headers.get("authorization") for r in pi_env.server.requests] == [f"Bearer {token}"] * 2
    assert _auth_json(pi_env)["acme"]["access"] == token


def test_print_mode_reports_a_failed_refresh(pi_env: PiEnv) -> None:
    _acme_provider(pi_env)
    expired = {"type": "oauth", "refresh": "revoked", "access": "expired", "expires": 1}
    (pi_env.agent_dir / "auth.json").write_text(json.dumps({"acme": expired}))
    with FakeOAuthServer() as server:
        result = _run(pi_env, "-p", "hi", env=server.env("acme"))
        refreshes = [r for r in server.requests if r.params.get("grant_type") == "refresh_token"]
    assert result.returncode == 1
    assert 'Authentication failed for "acme"' in result.stderr and "/login acme" in result.stderr
    assert len(refreshes) == 1 and pi_env.server.requests == []
    assert json.loads((pi_env.agent_dir / "auth.json").read_text())["acme"] == expired
