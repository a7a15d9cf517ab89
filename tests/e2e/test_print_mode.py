from __future__ import annotations

import json

from _pi_env import PiEnv

from pi_harness.testing.fake_llm import HTTPErrorSpec, ScriptedResponse, TextStep, ToolCallStep


def test_print_mode_prints_the_final_answer(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("Hello from the fake model.")]))
    result = pi_env.run("-p", "Say hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the fake model.\n"
    body = pi_env.server.requests[0].json
    assert body["messages"][-1]["content"] in ("Say hello", [{"type": "text", "text": "Say hello"}])
    assert "pi-harness" in json.dumps(body["messages"][0])  # the system prompt went out
    sessions = pi_env.sessions()
    assert len(sessions) == 1
    lines = [json.loads(line) for line in sessions[0].read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    roles = [line["message"]["role"] for line in lines if line["type"] == "message"]
    assert roles[-2:] == ["user", "assistant"]


def test_print_mode_runs_tools(pi_env: PiEnv) -> None:
    (pi_env.cwd / "notes.txt").write_text("alpha\nbeta\n")
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("read", {"path": "notes.txt"})]),
        ScriptedResponse(steps=[TextStep("The file has two lines.")]),
    )
    result = pi_env.run("-p", "What is in notes.txt?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The file has two lines.\n"
    second = pi_env.server.requests[1].json["messages"]
    tool_messages = [m for m in second if m["role"] == "tool"]
    assert "alpha" in json.dumps(tool_messages)


def test_print_mode_error_exit_code(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(401, "Incorrect API key provided", type="invalid_api_key"))
    )
    result = pi_env.run("-p", "hi")
    assert result.returncode == 1
    assert "401" in result.stderr and "Incorrect API key" in result.stderr
    assert result.stdout == ""
