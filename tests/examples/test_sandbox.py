"""sandbox: configuration, the domain filter, real bubblewrap runs and a real session."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import (
    ExampleHost,
    UIClient,
    bound_runner,
    example_path,
    load_example,
    sdk_session,
    tool_results,
)

from pi_harness.coding.tools import ExecTimedOut
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

sandbox = load_example("sandbox")


config_module, proxy_module, bwrap_module = sandbox.config, sandbox.proxy, sandbox.bwrap


def _bwrap_problem() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux, this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (apt-get install bubblewrap)"
    probe = ["bwrap", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    done = subprocess.run([*probe, "true"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"bwrap cannot create namespaces on this machine: {done.stderr.strip()}"
    return None


BWRAP_PROBLEM = _bwrap_problem()
needs_bwrap = pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=BWRAP_PROBLEM or "")


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    return directory


def config(**overrides: Any) -> Any:
    return config_module.merge(config_module.DEFAULT_CONFIG, overrides)


async def run(operations: Any, command: str, cwd: Path, timeout: float | None = 20) -> tuple[int | None, str]:
    output = bytearray()
    result = await operations.exec(
        command, str(cwd), on_data=output.extend, signal=None, timeout=timeout, env=dict(os.environ)
    )
    return result.exit_code, output.decode()


@pytest.fixture
async def filtered_proxy() -> AsyncIterator[Any]:
    proxy = proxy_module.DomainFilterProxy(["127.0.0.1"], [])
    await proxy.start()
    yield proxy
    await proxy.stop()


async def test_the_proxy_socket_fits_under_a_long_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    long_tmp = tmp_path / ("t" * 150)
    long_tmp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(long_tmp))
    proxy = proxy_module.DomainFilterProxy(["127.0.0.1"], [])
    await proxy.start()
    path = proxy.socket_path
    try:
        assert len(os.fsencode(path)) <= 100 and os.path.exists(path)
    finally:
        await proxy.stop()
    assert not os.path.exists(path)


def fetch_script(url: str) -> str:
    """A Python one-liner printing the HTTP status of ``url`` (errors included)."""
    code = (
        "import urllib.request, urllib.error\n"
        "try:\n"
        f"    print('status', urllib.request.urlopen({url!r}, timeout=5).status)\n"
        "except urllib.error.HTTPError as e:\n"
        "    print('status', e.code, e.read().decode())\n"
    )
    return f"{sys.executable} -c {shlex.quote(code)}"


def connect_script(port: int) -> str:
    return f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')\""


# -- configuration ---------------------------------------------------------------------------------


def test_defaults_match_pis_example() -> None:
    defaults = config_module.DEFAULT_CONFIG
    assert defaults["enabled"] is True
    assert {"npmjs.org", "*.npmjs.org", "pypi.org", "github.com", "raw.githubusercontent.com"} <= set(
        defaults["network"]["allowedDomains"]
    )
    assert defaults["filesystem"] == {
        "denyRead": ["~/.ssh", "~/.aws", "~/.gnupg"],
        "allowWrite": [".", "/tmp"],
        "denyWrite": [".env", ".env.*", "*.pem", "*.key"],
    }


def test_config_files_merge_global_then_project(agent_dir: Path, project: Path) -> None:
    (agent_dir / "extensions").mkdir()
    (agent_dir / "extensions" / "sandbox.json").write_text(
        json.dumps({"network": {"allowedDomains": ["example.com"]}, "enableWeakerNestedSandbox": True})
    )
    (project / ".pi").mkdir()
    (project / ".pi" / "sandbox.json").write_text(
        json.dumps({"network": {"deniedDomains": ["evil.example.com"]}, "filesystem": {"allowWrite": ["."]}})
    )
    loaded = config_module.load_config(str(project))
    assert loaded.warnings == []
    merged = loaded.config
    assert merged["network"] == {"allowedDomains": ["example.com"], "deniedDomains": ["evil.example.com"]}
    assert merged["filesystem"]["allowWrite"] == ["."]
    assert merged["filesystem"]["denyRead"] == ["~/.ssh", "~/.aws", "~/.gnupg"]  # untouched keys keep defaults
    assert merged["enableWeakerNestedSandbox"] is True


def test_unreadable_config_is_skipped_with_a_warning(project: Path) -> None:
    (project / ".pi").mkdir()
    (project / ".pi" / "sandbox.json").write_text("{not json")
    loaded = config_module.load_config(str(project))
    assert loaded.config == config_module.DEFAULT_CONFIG
    assert loaded.warnings[0].startswith(f"Ignoring {project / '.pi' / 'sandbox.json'}: ")


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("github.com", True),
        ("API.GitHub.com.", True),
        ("raw.githubusercontent.com", True),
        ("evil.com", False),
        ("github.com.evil.com", False),
        ("npmjs.org", True),
        ("sub.registry.npmjs.org", True),
        ("blocked.github.com", False),
    ],
)
def test_domain_rules(host: str, allowed: bool) -> None:
    rules = ["github.com", "*.github.com", "raw.githubusercontent.com", "npmjs.org", "*.npmjs.org"]
    assert proxy_module.host_allowed(host, rules, ["blocked.github.com"]) is allowed
    assert proxy_module.host_allowed(host, ["*"], []) is True
    assert proxy_module.host_allowed(host, [], []) is False


def test_mount_plan(tmp_path: Path, project: Path, isolated_home: Path) -> None:
    (isolated_home / ".ssh").mkdir()
    (project / ".env").write_text("SECRET=1\n")
    (project / "sub").mkdir()
    (project / "sub" / "server.pem").write_text("key\n")
    (project / "node_modules").mkdir()
    (project / "node_modules" / "x.key").write_text("ignored\n")
    argv = bwrap_module.SandboxPolicy(config(), bwrap="bwrap").argv(str(project))
    assert argv[:2] == ["bwrap", "--die-with-parent"] and "--unshare-net" in argv and "--unshare-pid" in argv
    text = " ".join(argv)
    assert "--ro-bind / /" in text
    assert f"--bind {project} {project}" in text and "--bind /tmp /tmp" in text
    assert f"--ro-bind {project / '.env'} {project / '.env'}" in text
    assert f"--ro-bind {project / 'sub' / 'server.pem'} {project / 'sub' / 'server.pem'}" in text
    assert "x.key" not in text  # dependency folders are not scanned
    assert f"--tmpfs {isolated_home / '.ssh'}" in text
    assert ".aws" not in text  # missing paths need no mount
    assert argv[-3:] == ["--chdir", str(project), "--"]
    assert text.index("--bind /tmp") < text.index("--ro-bind " + str(project / ".env")) < text.index("--tmpfs")


# -- real bubblewrap ---------------------------------------------------------------------------------


@needs_bwrap
async def test_writes_inside_the_working_directory_only(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    operations = bwrap_module.SandboxedBashOperations(
        bwrap_module.SandboxPolicy(config(filesystem={"allowWrite": ["."]}))
    )

    assert await run(operations, "echo inside > made.txt && cat made.txt", project) == (0, "inside\n")
    code, output = await run(operations, f"echo no > {outside / 'f.txt'}", project)
    assert code != 0 and "Read-only file system" in output
    code, output = await run(operations, "touch /etc/pi-sandbox-test", project)
    assert code != 0 and "Read-only file system" in output
    assert (project / "made.txt").read_text() == "inside\n"
    assert not (outside / "f.txt").exists() and not Path("/etc/pi-sandbox-test").exists()


@needs_bwrap
async def test_secrets_are_hidden_and_protected(project: Path, isolated_home: Path) -> None:
    (isolated_home / ".ssh").mkdir()
    (isolated_home / ".ssh" / "id_ed25519").write_text("PRIVATE\n")
    (project / ".env").write_text("TOKEN=1\n")
    operations = bwrap_module.SandboxedBashOperations(bwrap_module.SandboxPolicy(config()))

    code, output = await run(operations, "cat ~/.ssh/id_ed25519", project)
    assert code != 0 and "PRIVATE" not in output
    code, output = await run(operations, "cat .env; echo changed > .env", project)
    assert code != 0 and "TOKEN=1" in output and "Read-only file system" in output
    assert (project / ".env").read_text() == "TOKEN=1\n"
    assert await run(operations, "echo ok > notes.txt && cat notes.txt", project) == (0, "ok\n")


@needs_bwrap
async def test_network_is_off_inside_and_on_outside(server: FakeLLMServer, project: Path) -> None:
    port = int(server.url.rsplit(":", 1)[1])
    outside = subprocess.run(connect_script(port), shell=True, capture_output=True, text=True, check=False)
    assert outside.stdout.strip() == "connected"

    operations = bwrap_module.SandboxedBashOperations(
        bwrap_module.SandboxPolicy(config(network={"allowedDomains": []}))
    )
    code, output = await run(operations, connect_script(port), project)
    assert code != 0 and "connected" not in output and "Connection refused" in output


@needs_bwrap
async def test_allowed_domains_go_through_the_proxy(server: FakeLLMServer, project: Path, filtered_proxy: Any) -> None:
    policy = bwrap_module.SandboxPolicy(
        config(network={"allowedDomains": ["127.0.0.1"]}), proxy_socket=filtered_proxy.socket_path
    )
    operations = bwrap_module.SandboxedBashOperations(policy)

    code, output = await run(operations, fetch_script(f"{server.url}/missing"), project)
    assert code == 0 and output.startswith("status 404"), output  # the fake server answered through the proxy
    code, output = await run(operations, fetch_script("http://example.com/"), project)
    assert code == 0 and "status 403" in output and "example.com is not an allowed domain" in output
    assert filtered_proxy.blocked == ["example.com"]
    port = int(server.url.rsplit(":", 1)[1])
    code, output = await run(operations, connect_script(port), project)
    assert code != 0  # no direct connections, even to an allowed host


@needs_bwrap
async def test_timeout_kills_the_sandboxed_command(project: Path) -> None:
    operations = bwrap_module.SandboxedBashOperations(bwrap_module.SandboxPolicy(config()))
    with pytest.raises(ExecTimedOut, match=r"^timeout:0\.2$"):
        await run(operations, "sleep 30; echo late > late.txt", project, timeout=0.2)
    await asyncio.sleep(0.05)
    assert not (project / "late.txt").exists()


# -- the extension ---------------------------------------------------------------------------------


async def test_no_sandbox_flag_and_command(project: Path) -> None:
    client = UIClient()
    runner, errors = await bound_runner("sandbox", ExampleHost(project), client=client, flags={"no-sandbox": True})
    await runner.emit("session_start", {"reason": "startup"})
    assert client.notifications == [("Sandbox disabled by --no-sandbox; commands run without a sandbox", "info")]
    assert await runner.emit_user_bash({"command": "ls", "excludeFromContext": False, "cwd": str(project)}) is None
    await runner.run_command("sandbox", "")
    assert client.notifications[-1] == ("Sandbox: inactive (disabled by --no-sandbox)", "info")
    assert errors == []


async def test_missing_bubblewrap_warns_and_runs_unsandboxed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    client = UIClient()
    runner, _ = await bound_runner("sandbox", ExampleHost(project), client=client)
    await runner.emit("session_start", {"reason": "startup"})
    reason = "bubblewrap (bwrap) is not installed" if sys.platform.startswith("linux") else "not supported on"
    message, level = client.notifications[-1]
    assert level == "warning" and message.startswith(f"Sandbox unavailable: {reason}")
    assert message.endswith("; commands run without a sandbox")
    assert client.status("sandbox") is None
    # The overriding bash tool still works, without a sandbox.
    monkeypatch.setenv("PATH", os.defpath)
    bash = next(t for t, _ in runner.tool_definitions() if t.name == "bash")
    assert bash.label == "bash (sandboxed)"
    target = tmp_path / "outside.txt"
    result = await bash.execute("c1", {"command": f"echo free > {target}"}, None, None, runner.create_context())
    assert result["content"] == [{"type": "text", "text": "(no output)"}]
    assert target.read_text() == "free\n"


@needs_bwrap
async def test_status_user_bash_and_shutdown(project: Path) -> None:
    client = UIClient()
    runner, errors = await bound_runner("sandbox", ExampleHost(project), client=client)
    await runner.emit("session_start", {"reason": "startup"})
    assert errors == []
    assert client.status("sandbox") == "🔒 Sandbox: 11 domains, 2 write paths"
    answer = await runner.emit_user_bash({"command": "ls", "excludeFromContext": False, "cwd": str(project)})
    assert answer is not None
    code, output = await run(answer["operations"], "touch /etc/pi-sandbox-test", project)
    assert code != 0 and "Read-only file system" in output
    await runner.run_command("sandbox", "")
    shown = client.notifications[-1][0]
    assert shown.startswith("Sandbox: active\nNetwork allowed: npmjs.org, *.npmjs.org")
    assert "Allow write: ., /tmp" in shown
    await runner.emit("session_shutdown", {})
    await runner.emit("session_shutdown", {})
    assert client.status("sandbox") is None
    assert await runner.emit_user_bash({"command": "ls", "excludeFromContext": False, "cwd": str(project)}) is None


@needs_bwrap
async def test_a_real_session_runs_bash_in_the_sandbox(server: FakeLLMServer, tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".pi").mkdir()
    (project / ".pi" / "sandbox.json").write_text(json.dumps({"filesystem": {"allowWrite": ["."]}}))
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("bash", {"command": "echo fine > inside.txt"}, id="c1"),
                ToolCallStep("bash", {"command": f"echo leak > {outside / 'leak.txt'}"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("One worked, one did not.")]),
    )
    client = UIClient()
    result = await sdk_session(server, project, "sandbox", client=client)
    session = result.session
    assert client.status("sandbox") == "🔒 Sandbox: 11 domains, 1 write paths"

    await session.prompt("write two files")

    first, second = tool_results(session)
    assert first == ("bash", False, "(no output)")
    assert second[1] is True and "Read-only file system" in second[2] and "Command exited with code 1" in second[2]
    assert (project / "inside.txt").read_text() == "fine\n"
    assert not (outside / "leak.txt").exists()
    assert [t["function"]["name"] for t in server.requests[0].json["tools"]].count("bash") == 1

    shell = await session.run_bash(f"touch {outside / 'user.txt'}")  # the user's !command is sandboxed too
    assert shell["exitCode"] != 0 and "Read-only file system" in shell["output"]
    assert not (outside / "user.txt").exists()
    await result.runtime.shutdown()


@needs_bwrap
def test_pi_command_with_the_sandbox(server: FakeLLMServer, tmp_path: Path, project: Path, agent_dir: Path) -> None:
    provider = {
        "baseUrl": server.base_url("openai-completions"),
        "api": "openai-completions",
        "apiKey": "test-key",
        "models": [{"id": "fake-model"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (agent_dir / "extensions").mkdir()
    (agent_dir / "extensions" / "sandbox.json").write_text(json.dumps({"filesystem": {"allowWrite": ["."]}}))
    outside = tmp_path / "outside"
    outside.mkdir()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": f"touch {outside / 'x'} ; touch inside"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    pi = Path(sys.executable).with_name("pi")
    command = [str(pi)] if pi.exists() else [sys.executable, "-m", "pi_harness"]
    done = subprocess.run(
        [*command, "-e", str(example_path("sandbox")), "--model", "fake/fake-model", "-p", "touch two files"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PI_OFFLINE": "1"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (project / "inside").exists() and not (outside / "x").exists()
    tool_text = [m["content"] for m in server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "Read-only file system" in str(tool_text)
