"""permission-gate, protected-paths, confirm-destructive and timed-confirm, driven by a runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _examples_support import ExampleHost, UIClient, bound_runner, load_example, sdk_session

from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


def bash(command: str) -> dict[str, Any]:
    return {"toolName": "bash", "toolCallId": "c1", "input": {"command": command}}


# -- permission-gate ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["rm -rf build", "RM -R x", "rm --recursive dir", "sudo apt-get install x", "chmod -R 777 .", "chown a:b f 777"],
)
def test_permission_gate_patterns_match_dangerous_commands(command: str) -> None:
    assert load_example("permission_gate").is_dangerous(command)


@pytest.mark.parametrize("command", ["ls -la", "rm file.txt", "chmod 644 a", "echo sudoku", "git status"])
def test_permission_gate_patterns_leave_ordinary_commands_alone(command: str) -> None:
    assert not load_example("permission_gate").is_dangerous(command)


async def test_permission_gate_without_ui_blocks(tmp_path: Path) -> None:
    runner, _ = await bound_runner("permission_gate", ExampleHost(tmp_path))
    assert await runner.emit_tool_call(bash("ls")) is None
    assert await runner.emit_tool_call(bash("sudo rm -rf /")) == {
        "block": True,
        "reason": "Dangerous command blocked (no UI for confirmation)",
    }
    assert await runner.emit_tool_call({"toolName": "read", "toolCallId": "c2", "input": {"path": "rm -rf"}}) is None


async def test_permission_gate_asks_and_follows_the_answer(tmp_path: Path) -> None:
    client = UIClient({"value": "Yes"}, {"value": "No"}, {"cancelled": True})
    runner, _ = await bound_runner("permission_gate", ExampleHost(tmp_path), client=client)

    assert await runner.emit_tool_call(bash("rm -rf build")) is None
    assert await runner.emit_tool_call(bash("rm -rf build")) == {"block": True, "reason": "Blocked by user"}
    assert await runner.emit_tool_call(bash("rm -rf build")) == {"block": True, "reason": "Blocked by user"}
    first = client.dialogs[0]
    assert first["method"] == "select"
    assert first["title"] == "⚠️ Dangerous command:\n\n  rm -rf build\n\nAllow?"
    assert first["options"] == ["Yes", "No"]


# -- protected-paths ---------------------------------------------------------------------------


async def test_protected_paths_block_and_notify(tmp_path: Path) -> None:
    client = UIClient()
    runner, _ = await bound_runner("protected_paths", ExampleHost(tmp_path), client=client)

    for tool, path in [("write", ".env"), ("edit", "config/.env.local"), ("write", "repo/.git/config")]:
        verdict = await runner.emit_tool_call({"toolName": tool, "toolCallId": "c", "input": {"path": path}})
        assert verdict == {"block": True, "reason": f'Path "{path}" is protected'}
    verdict = await runner.emit_tool_call(
        {"toolName": "write", "toolCallId": "c", "input": {"path": "node_modules/x/index.js", "content": ""}}
    )
    assert verdict is not None and verdict["block"]
    assert await runner.emit_tool_call({"toolName": "write", "toolCallId": "c", "input": {"path": "src/a.py"}}) is None
    assert await runner.emit_tool_call({"toolName": "read", "toolCallId": "c", "input": {"path": ".env"}}) is None
    assert client.notifications[0] == ("Blocked write to protected path: .env", "warning")
    assert len(client.notifications) == 4


async def test_protected_paths_block_without_ui_too(tmp_path: Path) -> None:
    runner, _ = await bound_runner("protected_paths", ExampleHost(tmp_path))
    verdict = await runner.emit_tool_call({"toolName": "edit", "toolCallId": "c", "input": {"path": ".env"}})
    assert verdict == {"block": True, "reason": 'Path ".env" is protected'}


# -- confirm-destructive -----------------------------------------------------------------------


async def test_confirm_destructive_new_session(tmp_path: Path) -> None:
    client = UIClient({"confirmed": False}, {"confirmed": True})
    runner, _ = await bound_runner("confirm_destructive", ExampleHost(tmp_path), client=client)

    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) == {"cancel": True}
    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) is None
    assert client.dialogs[0]["title"] == "Clear session?"
    assert client.dialogs[0]["message"] == "This will delete all messages in the current session."
    assert client.notifications == [("Clear cancelled", "info")]


async def test_confirm_destructive_resume_asks_only_with_user_messages(tmp_path: Path) -> None:
    client = UIClient({"confirmed": False})
    host = ExampleHost(tmp_path)
    runner, _ = await bound_runner("confirm_destructive", host, client=client)
    switch = {"reason": "resume", "targetSessionFile": "/x.jsonl"}

    assert await runner.emit_session_before("session_before_switch", switch) is None
    assert client.dialogs == []
    host.session_manager.append_message({"role": "user", "content": "hello", "timestamp": 1})
    assert await runner.emit_session_before("session_before_switch", switch) == {"cancel": True}
    assert client.dialogs[0]["title"] == "Switch session?"
    assert client.dialogs[0]["message"] == "You have messages in the current session. Switch anyway?"


async def test_confirm_destructive_fork(tmp_path: Path) -> None:
    client = UIClient({"value": "No, stay in current session"}, {"value": "Yes, create fork"})
    runner, _ = await bound_runner("confirm_destructive", ExampleHost(tmp_path), client=client)

    assert await runner.emit_session_before("session_before_fork", {"entryId": "abcdef123456"}) == {"cancel": True}
    assert await runner.emit_session_before("session_before_fork", {"entryId": "abcdef123456"}) is None
    assert client.dialogs[0]["title"] == "Fork from entry abcdef12?"
    assert client.dialogs[0]["options"] == ["Yes, create fork", "No, stay in current session"]


async def test_confirm_destructive_without_ui_allows_everything(tmp_path: Path) -> None:
    host = ExampleHost(tmp_path)
    host.session_manager.append_message({"role": "user", "content": "hello", "timestamp": 1})
    runner, _ = await bound_runner("confirm_destructive", host)
    assert await runner.emit_session_before("session_before_switch", {"reason": "new"}) is None
    assert await runner.emit_session_before("session_before_switch", {"reason": "resume"}) is None
    assert await runner.emit_session_before("session_before_fork", {"entryId": "x"}) is None


# -- timed-confirm -----------------------------------------------------------------------------


async def timed_runner(tmp_path: Path, client: UIClient | None) -> ExtensionRunner:
    runner, errors = await bound_runner("timed_confirm", ExampleHost(tmp_path), client=client)
    assert errors == []
    return runner


async def test_timed_confirm_times_out_to_the_default(tmp_path: Path) -> None:
    client = UIClient(None)  # the user never answers
    runner = await timed_runner(tmp_path, client)
    assert await runner.run_command("timed", "0.05")
    dialog = client.dialogs[0]
    assert dialog["method"] == "confirm" and dialog["title"] == "Timed Confirmation" and dialog["timeout"] == 50
    assert client.notifications == [("Cancelled or timed out", "info")]


async def test_timed_select_answer_and_timeout(tmp_path: Path) -> None:
    client = UIClient({"value": "Option B"}, None)
    runner = await timed_runner(tmp_path, client)
    await runner.run_command("timed-select", "5")
    await runner.run_command("timed-select", "0.05")
    assert client.dialogs[0]["options"] == ["Option A", "Option B", "Option C"]
    assert client.dialogs[0]["timeout"] == 5000
    assert client.notifications == [("Selected: Option B", "info"), ("Selection cancelled or timed out", "info")]


async def test_timed_signal_tells_timeout_from_cancel(tmp_path: Path) -> None:
    client = UIClient(None, {"cancelled": True}, {"confirmed": True})
    runner = await timed_runner(tmp_path, client)
    await runner.run_command("timed-signal", "0.05")
    await runner.run_command("timed-signal", "5")
    await runner.run_command("timed-signal", "5")
    assert "timeout" not in client.dialogs[0]  # dismissed through the signal, not the UI's timer
    assert client.notifications == [
        ("Dialog timed out", "warning"),
        ("Cancelled by user", "info"),
        ("Confirmed by user!", "info"),
    ]


async def test_timed_commands_do_nothing_without_ui(tmp_path: Path) -> None:
    runner = await timed_runner(tmp_path, None)
    for name in ("timed", "timed-select", "timed-signal"):
        assert await runner.run_command(name, "")


def test_parse_seconds() -> None:
    module = load_example("timed_confirm")
    assert module.parse_seconds("2.5", 5.0) == 2.5
    assert module.parse_seconds("", 5.0) == 5.0
    assert module.parse_seconds("-1", 5.0) == 5.0
    assert module.parse_seconds("soon", 10.0) == 10.0


# -- through a real session runtime --------------------------------------------------------------


async def test_confirm_destructive_in_a_real_runtime(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.push(ScriptedResponse(steps=[TextStep("Hi.")]))
        client = UIClient({"confirmed": False}, {"confirmed": True})
        result = await sdk_session(server, tmp_path, "confirm_destructive", client=client)
        first = result.session
        await first.prompt("hello")

        assert await result.runtime.new_session() == {"cancelled": True}
        assert result.runtime.session is first and len(first.get_messages()) > 1
        assert await result.runtime.new_session() == {"cancelled": False}
        assert result.runtime.session is not first
        assert [m["role"] for m in result.runtime.session.get_messages()] == []
        assert client.notifications == [("Clear cancelled", "info")]
        await result.runtime.shutdown()
