"""Extension handlers that raise, in every event: each error is reported and the run goes on;
``tool_call`` fails closed. ``BaseException`` is contained the same way (real ``pi -p``)."""

from __future__ import annotations

import subprocess

import pytest
from _faults import check_session, fault_extension, marks, tool_results
from _pi_env import PiEnv

from pi_harness.coding.extensions.events import EVENT_NAMES
from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep


def script_tool_then_text(pi_env: PiEnv, command: str = "echo effect > effect.txt; echo ran") -> None:
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("done")]))


def run_print(pi_env: PiEnv, *args: str) -> subprocess.CompletedProcess[str]:
    return pi_env.run(*args, "-p", "go", timeout=60)


def test_a_handler_raising_in_every_event_is_reported_and_the_run_goes_on(pi_env: PiEnv) -> None:
    extension, mark_file = fault_extension(pi_env.cwd, dict.fromkeys(sorted(EVENT_NAMES), "raise"))
    script_tool_then_text(pi_env)
    result = run_print(pi_env, "-e", str(extension))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    ran = set(marks(mark_file))
    for event in ("session_start", "input", "before_agent_start", "context", "tool_call", "turn_end", "agent_end"):
        assert event in ran, (event, ran)
    for event in ran - {"tool_call"}:  # the gate's error goes into the tool result instead
        assert f"boom in {event}" in result.stderr, event
    # tool_call fails closed: the command never ran, and its call has an error result.
    assert not (pi_env.cwd / "effect.txt").exists()
    results = tool_results(check_session(pi_env.sessions()[0]))
    assert [r["isError"] for r in results] == [True]
    assert "boom in tool_call" in str(results[0]["content"])


@pytest.mark.parametrize("fault", ["cancel", "exit"])
def test_base_exception_in_tool_call_blocks_the_tool(pi_env: PiEnv, fault: str) -> None:
    extension, _marks = fault_extension(pi_env.cwd, {"tool_call": fault})
    script_tool_then_text(pi_env)
    result = run_print(pi_env, "-e", str(extension))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    assert not (pi_env.cwd / "effect.txt").exists()
    results = tool_results(check_session(pi_env.sessions()[0]))
    assert [r["isError"] for r in results] == [True]
    assert ("CancelledError" if fault == "cancel" else "SystemExit(7)") in str(results[0]["content"])


@pytest.mark.parametrize("fault", ["cancel", "exit"])
def test_base_exception_in_tool_result_is_reported_and_the_result_kept(pi_env: PiEnv, fault: str) -> None:
    extension, _marks = fault_extension(pi_env.cwd, {"tool_result": fault})
    script_tool_then_text(pi_env)
    result = run_print(pi_env, "-e", str(extension))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    assert "Extension error" in result.stderr
    assert (pi_env.cwd / "effect.txt").read_text() == "effect\n"
    results = tool_results(check_session(pi_env.sessions()[0]))
    assert [r["isError"] for r in results] == [False]
    assert "ran" in str(results[0]["content"])
