"""Custom tools: hello, todo, bash-spawn-hook and ssh, in real sessions against the fake server
(ssh with a stand-in ``ssh`` program that runs the remote command locally)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import UIClient, load_example, sdk_session, tool_results

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def calls(server: FakeLLMServer, *steps: tuple[str, dict[str, Any]], answer: str = "done") -> None:
    responses = [ScriptedResponse(steps=[ToolCallStep(name, args, id=f"c{i}")]) for i, (name, args) in enumerate(steps)]
    server.push(*responses, ScriptedResponse(steps=[TextStep(answer)]))


# -- hello -------------------------------------------------------------------------------------


async def test_hello_greets(server: FakeLLMServer, tmp_path: Path) -> None:
    calls(server, ("hello", {"name": "Ada"}))
    result = await sdk_session(server, tmp_path, "hello")
    await result.session.prompt("greet Ada")
    assert "hello" in [t["function"]["name"] for t in server.requests[0].json["tools"]]
    assert tool_results(result.session) == [("hello", False, "Hello, Ada!")]
    message = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    assert message["details"] == {"greeted": "Ada"}
    await result.runtime.shutdown()


# -- todo --------------------------------------------------------------------------------------


async def test_todo_tool_keeps_the_list_in_the_results(server: FakeLLMServer, tmp_path: Path) -> None:
    calls(
        server,
        ("todo", {"action": "add", "text": "write tests"}),
        ("todo", {"action": "add", "text": "fix bug"}),
        ("todo", {"action": "toggle", "id": 1}),
        ("todo", {"action": "toggle", "id": 9}),
        ("todo", {"action": "add"}),
        ("todo", {"action": "list"}),
    )
    client = UIClient()
    result = await sdk_session(server, tmp_path, "todo", client=client)
    await result.session.prompt("plan the work")

    assert tool_results(result.session) == [
        ("todo", False, "Added #1: write tests"),
        ("todo", False, "Added #2: fix bug"),
        ("todo", False, "#1 is done"),
        ("todo", True, "toggle: #9 does not exist"),
        ("todo", True, "add needs a text"),
        ("todo", False, "[x] #1: write tests\n[ ] #2: fix bug"),
    ]
    await result.session.prompt("/todos")
    assert client.notifications[-1] == ("Todos\n1/2 done\n✓ #1 write tests\n○ #2 fix bug", "info")
    await result.runtime.shutdown()


async def test_todo_list_is_rebuilt_from_the_branch(server: FakeLLMServer, tmp_path: Path) -> None:
    calls(server, ("todo", {"action": "add", "text": "first"}), ("todo", {"action": "add", "text": "second"}))
    first = await sdk_session(server, tmp_path, "todo")
    await first.session.prompt("add two")
    manager = first.session.session_manager
    await first.runtime.shutdown()

    # A new session on the same entries (as after /resume): the list comes back from the details.
    calls(server, ("todo", {"action": "list"}))
    second = await sdk_session(server, tmp_path, "todo", session_manager=manager)
    await second.session.prompt("what is left?")
    assert tool_results(second.session)[-1] == ("todo", False, "[ ] #1: first\n[ ] #2: second")
    await second.runtime.shutdown()


def test_todo_renderers_are_compact() -> None:
    todo = load_example("todo")
    assert todo.render_call({"action": "add", "text": "x"}, None) == ['todo add "x"']
    items = [{"id": i, "text": f"t{i}", "done": False} for i in range(1, 8)]
    result = {"content": [{"type": "text", "text": ""}], "details": {"action": "list", "todos": items, "nextId": 8}}
    lines = todo.render_result(result, False, None)
    assert lines[0] == "0/7 done" and lines[-1] == "... 2 more" and len(lines) == 7


# -- bash-spawn-hook ---------------------------------------------------------------------------


async def test_bash_spawn_hook_changes_the_environment_and_sources_the_profile(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    (Path.home() / ".profile").write_text("export FROM_PROFILE=yes\n")
    calls(server, ("bash", {"command": 'echo "$PI_SPAWN_HOOK $FROM_PROFILE"'}))
    result = await sdk_session(server, tmp_path, "bash_spawn_hook")
    await result.session.prompt("check")
    assert tool_results(result.session) == [("bash", False, "1 yes\n")]
    tools = [t["function"]["name"] for t in server.requests[0].json["tools"]]
    assert tools.count("bash") == 1
    await result.runtime.shutdown()


# -- ssh ---------------------------------------------------------------------------------------


@pytest.fixture
def fake_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An ``ssh`` on PATH that logs the host and runs the command here, like a remote login shell."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ssh.log"
    script = bin_dir / "ssh"
    script.write_text(f'#!/bin/sh\necho "$1" >> {log}\nshift\nexec bash -c "$1"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


async def test_ssh_runs_the_tools_on_the_remote_directory(
    server: FakeLLMServer, tmp_path: Path, fake_ssh: Path
) -> None:
    local, remote = tmp_path / "local", tmp_path / "remote"
    local.mkdir()
    remote.mkdir()
    (remote / "app.txt").write_text("remote version\n")
    calls(
        server,
        ("read", {"path": "app.txt"}),
        ("write", {"path": "new/out.txt", "content": "written remotely\n"}),
        ("edit", {"path": "app.txt", "edits": [{"oldText": "remote", "newText": "edited"}]}),
        ("bash", {"command": "pwd; cat app.txt"}),
    )
    client = UIClient()
    result = await sdk_session(server, local, "ssh", client=client, flags={"ssh": f"me@box:{remote}"})
    await result.session.prompt("work remotely")

    results = tool_results(result.session)
    assert results[0] == ("read", False, "remote version\n")
    assert (remote / "new" / "out.txt").read_text() == "written remotely\n"
    assert (remote / "app.txt").read_text() == "edited version\n"
    assert results[3] == ("bash", False, f"{remote}\nedited version\n")
    assert list(local.iterdir()) == []  # nothing happened locally
    assert set(fake_ssh.read_text().split()) == {"me@box"}
    assert client.status("ssh") == f"SSH: me@box:{remote}"
    prompt = server.requests[0].json["messages"][0]["content"]
    assert f"Current working directory: {remote} (on me@box, reached over SSH)" in prompt

    outcome = await result.session.run_bash("pwd")
    assert outcome["output"].strip() == str(remote)
    await result.runtime.shutdown()


async def test_ssh_without_the_flag_works_locally(server: FakeLLMServer, tmp_path: Path, fake_ssh: Path) -> None:
    (tmp_path / "a.txt").write_text("local\n")
    calls(server, ("read", {"path": "a.txt"}))
    result = await sdk_session(server, tmp_path, "ssh")
    await result.session.prompt("read it")
    assert tool_results(result.session) == [("read", False, "local\n")]
    assert not fake_ssh.exists()
    await result.runtime.shutdown()
