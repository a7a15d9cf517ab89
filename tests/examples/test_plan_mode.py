"""plan-mode: step extraction, the read-only allowlist, the extension's state machine and a real
session through the SDK."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import ExampleHost, UIClient, bound_runner, load_example, sdk_session, tool_results

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

plan_mode = load_example("plan_mode")
steps = plan_mode.steps
readonly = plan_mode.readonly

BLOCKED = "Plan mode: command blocked (not allowlisted). Use /plan to disable plan mode first.\nCommand: "
PLAN_ANSWER = """I looked at the code.

**Plan:**
1. Add a `--verbose` flag to the **CLI parser**
2) Print timings when the flag is set
   - detail that is not a step
3. Ok
4. Write tests for both paths

Risks:
1. This is not a step
"""


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


# -- steps ---------------------------------------------------------------------------------------


def test_extract_steps_reads_the_numbered_list_under_the_plan_header() -> None:
    todos = steps.extract_steps(PLAN_ANSWER)
    assert [(t.step, t.text, t.completed) for t in todos] == [
        (1, "Add a --verbose flag to the CLI parser", False),
        (2, "Print timings when the flag is set", False),
        (3, "Write tests for both paths", False),
    ]
    assert steps.extract_steps("1. no header here\n2. nothing") == []
    assert [t.text for t in steps.extract_steps("## Plan\n1. first step here\n# Next\n2. not this")] == [
        "First step here"
    ]
    long = steps.extract_steps("Plan:\n1. " + "word " * 30)[0].text
    assert len(long) == 60 and long.endswith("...")


def test_done_markers_complete_steps_once() -> None:
    todos = steps.extract_steps(PLAN_ANSWER)
    assert steps.mark_done("Finished [DONE:1] and [done:3], [DONE:9] is unknown", todos) == 2
    assert [t.completed for t in todos] == [True, False, True]
    assert steps.mark_done("[DONE:1] again", todos) == 0


# -- read-only allowlist -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "cat README.md | head -20",
        "grep -rn TODO src 2>/dev/null",
        "git status && git log --oneline -5",
        "git diff HEAD~1 -- src/",
        "find . -name '*.py' -type f",
        "rg pattern src | wc -l",
        "sed -n '1,20p' file.txt",
        "LC_ALL=C sort names.txt | uniq",
        "python --version",
        "cd src; ls",
        "ls 2>&1 | tail",
    ],
)
def test_read_only_commands_are_allowed(command: str) -> None:
    assert readonly.is_read_only_command(command)


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "echo data > file.txt",
        "cat a >> b",
        "git commit -am wip",
        "git push",
        "git branch -D old",
        "find . -name '*.tmp' -delete",
        "find . -exec rm {} +",
        "sed -i 's/a/b/' f",
        "sort -o out.txt in.txt",
        "cat $(ls)",
        "ls `pwd`",
        "cat x | sh",
        "npm install left-pad",
        "python script.py",
        "curl -o page.html http://example.com",
        "env rm -rf x",
        "xargs rm < list",
        "echo 'unbalanced",
        "",
    ],
)
def test_other_commands_are_refused(command: str) -> None:
    assert not readonly.is_read_only_command(command)


# -- the extension driven by a runner ------------------------------------------------------------


async def test_toggle_switches_tools_status_and_persists(tmp_path: Path) -> None:
    client = UIClient()
    host = ExampleHost(tmp_path)
    host.active_tools = ["read", "bash", "edit", "write", "grep"]
    runner, errors = await bound_runner("plan_mode", host, client=client)
    await runner.emit("session_start", {"reason": "startup"})
    assert host.active_tools == ["read", "bash", "edit", "write", "grep"]

    await runner.run_command("plan", "")
    assert host.active_tools == ["read", "bash", "grep", "find", "ls"]  # "questionnaire" is not registered
    assert client.status("plan-mode") == "⏸ plan"
    assert client.notifications[-1] == ("Plan mode enabled. Tools: read, bash, grep, find, ls, questionnaire", "info")

    verdict = await runner.emit_tool_call({"toolName": "bash", "toolCallId": "c", "input": {"command": "rm -rf x"}})
    assert verdict == {"block": True, "reason": BLOCKED + "rm -rf x"}
    assert await runner.emit_tool_call({"toolName": "bash", "toolCallId": "c", "input": {"command": "ls"}}) is None

    (shortcut, _path), *_ = runner.shortcuts()
    assert shortcut.key == "ctrl+alt+p"
    await shortcut.handler(runner.create_context())  # the shortcut toggles too
    assert host.active_tools == ["read", "bash", "edit", "write", "grep"]  # what it was before
    assert client.status("plan-mode") is None
    assert await runner.emit_tool_call({"toolName": "bash", "toolCallId": "c", "input": {"command": "rm x"}}) is None
    saved = [e["data"]["enabled"] for e in host.session_manager.get_entries() if e.get("customType") == "plan-mode"]
    assert saved == [True, False]
    assert errors == []


async def test_hidden_context_message_and_context_filter(tmp_path: Path) -> None:
    runner, _ = await bound_runner("plan_mode", ExampleHost(tmp_path), flags={"plan": True})
    await runner.emit("session_start", {"reason": "startup"})

    started = await runner.emit_before_agent_start({"prompt": "look around", "systemPrompt": "base"})
    message = started["messages"][0]
    assert message["customType"] == "plan-mode-context" and message["display"] is False
    assert message["content"].startswith("[PLAN MODE ACTIVE]\n")

    stale = {"role": "custom", "customType": "plan-mode-context", "content": "[PLAN MODE ACTIVE] ...", "display": False}
    history: list[dict[str, Any]] = [{"role": "user", "content": "hi"}, stale]
    kept = await runner.emit_transform("context", {"messages": history}, ("messages",))
    assert kept["messages"] == history  # still planning: keep the instructions

    await runner.run_command("plan", "")  # off
    kept = await runner.emit_transform("context", {"messages": history}, ("messages",))
    assert kept["messages"] == [{"role": "user", "content": "hi"}]
    assert (await runner.emit_before_agent_start({"prompt": "go", "systemPrompt": "base"}))["messages"] == []


async def test_end_of_plan_run_extracts_steps_and_executes_with_tracking(tmp_path: Path) -> None:
    client = UIClient({"value": "Execute the plan (track progress)"})
    host = ExampleHost(tmp_path)
    runner, errors = await bound_runner("plan_mode", host, client=client, flags={"plan": True})
    await runner.emit("session_start", {"reason": "startup"})

    answer = {"role": "assistant", "content": [{"type": "text", "text": PLAN_ANSWER}]}
    await runner.emit("agent_end", {"messages": [{"role": "user", "content": "plan it"}, answer]})

    dialog = client.dialogs[0]
    assert dialog["title"] == "Plan mode - what next?"
    assert dialog["options"] == ["Execute the plan (track progress)", "Stay in plan mode", "Refine the plan"]
    listing, rules, execute = host.sent_messages
    assert rules[0]["customType"] == "plan-execution-context" and rules[0]["display"] is False
    assert "[DONE:<step number>]" in rules[0]["content"]
    assert listing[0]["customType"] == "plan-todo-list" and listing[1] is False
    assert "1. ☐ Add a --verbose flag to the CLI parser" in listing[0]["content"]
    assert execute == (
        {
            "customType": "plan-mode-execute",
            "content": "Execute the plan. Start with: Add a --verbose flag to the CLI parser",
            "display": True,
        },
        True,
        None,
    )
    assert host.active_tools == ["read", "bash", "edit", "write"]
    assert client.status("plan-mode") == "📋 0/3"

    started = await runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    progress = started["messages"][0]
    assert progress["customType"] == "plan-execution-context"
    assert "1. Add a --verbose flag to the CLI parser" in progress["content"] and "[DONE:" in progress["content"]

    await runner.emit_actionable("turn_end", {"message": {"role": "assistant", "content": "Done [DONE:1]"}})
    assert client.widget("plan-todos") == [
        "☑ Add a --verbose flag to the CLI parser",
        "☐ Print timings when the flag is set",
        "☐ Write tests for both paths",
    ]
    await runner.run_command("todos", "")
    assert client.notifications[-1][0] == (
        "Plan Progress:\n1. ✓ Add a --verbose flag to the CLI parser\n"
        "2. ○ Print timings when the flag is set\n3. ○ Write tests for both paths"
    )

    await runner.emit_actionable("turn_end", {"message": {"role": "assistant", "content": "[DONE:2] [DONE:3]"}})
    await runner.emit("agent_end", {"messages": []})
    assert host.sent_messages[-1][0]["customType"] == "plan-complete"
    assert host.sent_messages[-1][0]["content"].startswith("**Plan Complete!** ✓")
    assert client.status("plan-mode") is None and client.widget("plan-todos") is None
    last = [e for e in host.session_manager.get_entries() if e.get("customType") == "plan-mode"][-1]
    assert last["data"] == {"enabled": False, "todos": [], "executing": False}
    assert errors == []


async def test_refine_sends_the_edited_text_and_stay_keeps_plan_mode(tmp_path: Path) -> None:
    client = UIClient({"value": "Refine the plan"}, {"value": "Also cover Windows"}, {"value": "Stay in plan mode"})
    host = ExampleHost(tmp_path)
    runner, _ = await bound_runner("plan_mode", host, client=client, flags={"plan": True})
    await runner.emit("session_start", {"reason": "startup"})
    answer = {"role": "assistant", "content": [{"type": "text", "text": PLAN_ANSWER}]}

    await runner.emit("agent_end", {"messages": [answer]})
    assert client.dialogs[1]["method"] == "editor" and client.dialogs[1]["title"] == "Refine the plan:"
    assert host.user_messages == ["Also cover Windows"]

    await runner.emit("agent_end", {"messages": [answer]})
    assert host.active_tools == ["read", "bash", "grep", "find", "ls"]


async def test_no_ui_means_no_dialog_but_still_read_only(tmp_path: Path) -> None:
    host = ExampleHost(tmp_path)
    runner, _ = await bound_runner("plan_mode", host, flags={"plan": True})
    await runner.emit("session_start", {"reason": "startup"})
    await runner.emit("agent_end", {"messages": [{"role": "assistant", "content": PLAN_ANSWER}]})
    assert host.sent_messages == []
    assert host.active_tools == ["read", "bash", "grep", "find", "ls"]


async def test_session_start_restores_saved_progress_from_the_branch(tmp_path: Path) -> None:
    host = ExampleHost(tmp_path)
    manager = host.session_manager
    todos = [{"step": 1, "text": "First", "completed": False}, {"step": 2, "text": "Second", "completed": False}]
    manager.append_custom("plan-mode", {"enabled": False, "todos": todos, "executing": True})
    manager.append_custom_message("plan-mode-execute", "Execute the plan. Start with: First", True)
    manager.append_message(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "[DONE:1]"}],
            "api": "x",
            "provider": "x",
            "model": "x",
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0},
            "stopReason": "stop",
            "timestamp": 1,
        }
    )
    client = UIClient()
    runner, errors = await bound_runner("plan_mode", host, client=client)
    await runner.emit("session_start", {"reason": "resume"})
    assert errors == []
    assert client.status("plan-mode") == "📋 1/2"
    assert client.widget("plan-todos") == ["☑ First", "☐ Second"]


# -- a real session ----------------------------------------------------------------------------


async def test_plan_then_execute_in_a_real_session(server: FakeLLMServer, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "touch marker"}, id="c1")]),
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "ls"}, id="c2")]),
        ScriptedResponse(steps=[TextStep("Plan:\n1. Create the notes file\n2. Report back to the user\n")]),
        ScriptedResponse(steps=[ToolCallStep("write", {"path": "notes.txt", "content": "hello\n"}, id="c3")]),
        ScriptedResponse(steps=[TextStep("Wrote it. [DONE:1] [DONE:2]")]),
    )
    client = UIClient({"value": "Execute the plan (track progress)"})
    result = await sdk_session(server, project, "plan_mode", client=client, flags={"plan": True})
    session = result.session

    await session.prompt("add a notes file")

    assert not (project / "marker").exists()
    assert (project / "notes.txt").read_text() == "hello\n"
    results = tool_results(session)
    assert results[0] == ("bash", True, BLOCKED + "touch marker")
    assert results[1][:2] == ("bash", False)
    assert results[2][:2] == ("write", False)

    planning, executing = server.requests[0].json, server.requests[3].json
    assert [t["function"]["name"] for t in planning["tools"]] == ["read", "bash", "grep", "find", "ls"]
    assert any("[PLAN MODE ACTIVE]" in str(m.get("content")) for m in planning["messages"])
    assert {t["function"]["name"] for t in executing["tools"]} >= {"read", "bash", "edit", "write"}
    assert not any("[PLAN MODE ACTIVE]" in str(m.get("content")) for m in executing["messages"])
    assert "Execute the plan. Start with: Create the notes file" in str(executing["messages"])
    assert "[EXECUTING PLAN" in str(executing["messages"]) and "2. Report back to the user" in str(executing)

    custom_types = [e.get("customType") for e in session.session_manager.get_entries() if "customType" in e]
    assert "plan-todo-list" in custom_types and "plan-mode-execute" in custom_types
    assert custom_types[-1] in ("plan-complete", "plan-mode")
    assert client.status("plan-mode") is None
    assert session.get_active_tool_names() == ["read", "bash", "edit", "write"]
    await result.runtime.shutdown()
