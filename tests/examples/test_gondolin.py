"""gondolin: the tools and ``!commands`` routed into the guest, with a stand-in container runtime
(``docker`` on PATH) that runs each ``exec`` on this machine with /workspace mapped to the mount."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _examples_support import UIClient, load_example, sdk_session, tool_results

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

STAND_IN = r"""
import json, os, subprocess, sys
state, log = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
with open(log, "a") as handle:
    handle.write(json.dumps(args) + "\n")
if args[0] == "run":
    mount = args[args.index("-v") + 1].split(":")[0]
    json.dump({"host": mount}, open(state, "w"))
    print("c0ffee1234567890")
    sys.exit(0)
if args[0] == "rm":
    sys.exit(0)
host = json.load(open(state))["host"]
rest, env, cwd = args[1:], dict(os.environ), "/workspace"
while rest[0].startswith("-"):
    flag = rest.pop(0)
    if flag == "-w":
        cwd = rest.pop(0)
    elif flag == "-e":
        name, _, value = rest.pop(0).partition("=")
        env[name] = value
rest.pop(0)  # the container id
mapped = [arg.replace("/workspace", host) for arg in rest]
sys.exit(subprocess.run(mapped, cwd=cwd.replace("/workspace", host), env=env).returncode)
"""


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def runtime_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "stand_in.py").write_text(STAND_IN)
    log = tmp_path / "runtime.log"
    script = bin_dir / "docker"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {tmp_path / "stand_in.py"} {tmp_path / "state"} {log} "$@"\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PI_GONDOLIN_RUNTIME", "docker")
    return log


def runtime_calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_gondolin_routes_the_tools_into_the_guest(
    server: FakeLLMServer, tmp_path: Path, runtime_log: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.txt").write_text("version one\n")
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("read", {"path": "app.txt"}, id="c1"),
                ToolCallStep("write", {"path": "/workspace/out/new.txt", "content": "from the guest\n"}, id="c2"),
            ]
        ),
        ScriptedResponse(
            steps=[ToolCallStep("edit", {"path": "app.txt", "edits": [{"oldText": "one", "newText": "two"}]}, id="c3")]
        ),
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": 'echo "$PI_SESSION_ID" | wc -c; ls'}, id="c4")]),
        ScriptedResponse(steps=[ToolCallStep("grep", {"pattern": "two", "path": "/workspace"}, id="c5")]),
        ScriptedResponse(steps=[TextStep("Done.")]),
    )
    client = UIClient()
    result = await sdk_session(server, project, "gondolin", client=client)
    assert client.status("gondolin") == "Gondolin: c0ffee12 (/workspace)"

    await result.session.prompt("work in the guest")

    results = tool_results(result.session)
    assert results[0] == ("read", False, "version one\n")
    assert (project / "out" / "new.txt").read_text() == "from the guest\n"
    assert (project / "app.txt").read_text() == "version two\n"
    assert results[3][:2] == ("bash", False) and "app.txt\nout\n" in results[3][2]
    assert results[4][:2] == ("grep", False) and "app.txt:1: version two" in results[4][2]
    prompt = server.requests[0].json["messages"][0]["content"]
    assert f"Current working directory: /workspace (an isolated guest machine; the host directory {project}" in prompt
    execs = [call for call in runtime_calls(runtime_log) if call[0] == "exec"]
    assert execs and all("c0ffee1234567890" in call for call in execs)
    bash_call = next(call for call in execs if "-lc" in call)
    assert not any(arg.startswith("HOME=") for arg in bash_call)  # the host environment stays out

    outcome = await result.session.run_bash("cat app.txt")
    assert outcome["output"] == "version two\n"
    await result.session.prompt("/gondolin")
    assert client.notifications[-1][0].startswith("Guest: c0ffee1234567890 (docker)\nHost workspace: ")

    await result.runtime.shutdown()
    assert runtime_calls(runtime_log)[-1] == ["rm", "-f", "c0ffee1234567890"]
    assert client.status("gondolin") is None


def test_gondolin_path_mapping() -> None:
    operations = load_example("gondolin").operations
    assert operations.to_guest("/home/a/p", "/home/a/p/src/x.py") == "/workspace/src/x.py"
    assert operations.to_guest("/home/a/p", "src/x.py") == "/workspace/src/x.py"
    assert operations.to_guest("/home/a/p", "/etc/hosts") == "/etc/hosts"
    assert operations.to_host("/home/a/p", "/workspace/src") == "/home/a/p/src"
    assert operations.to_host("/home/a/p", "/etc") is None


async def test_gondolin_without_a_runtime_keeps_the_tools_on_the_host(
    server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_GONDOLIN_RUNTIME", "no-such-runtime")
    (tmp_path / "a.txt").write_text("host\n")
    server.push(
        ScriptedResponse(steps=[ToolCallStep("read", {"path": "a.txt"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("ok")]),
    )
    client = UIClient()
    result = await sdk_session(server, tmp_path, "gondolin", client=client)
    await result.session.prompt("read")
    assert tool_results(result.session) == [("read", False, "host\n")]
    assert client.notifications == [("gondolin: no podman or docker found; the tools run on the host", "warning")]
    await result.runtime.shutdown()
