"""``pi --mode json``: the session header, then every event as one JSON line (modes-and-cli.md 7)."""

from __future__ import annotations

import json
from typing import Any

from _pi_env import PiEnv

from pi_harness.testing.fake_llm import HTTPErrorSpec, ScriptedResponse, TextStep, ToolCallStep

# The events; session bookkeeping (``entry_appended``, the system
# message announcing the tools) and streaming details are checked separately.
CANONICAL = {
    "agent_start",
    "turn_start",
    "turn_end",
    "message_start",
    "message_end",
    "tool_execution_start",
    "tool_execution_end",
    "agent_end",
    "agent_settled",
}


def records_of(stdout: str) -> list[dict[str, Any]]:
    assert stdout.endswith("\n")
    return [json.loads(line) for line in stdout.split("\n")[:-1]]


def outline(records: list[dict[str, Any]]) -> list[str]:
    steps = []
    for record in records:
        kind = record["type"]
        if kind not in CANONICAL:
            continue
        if kind in ("message_start", "message_end"):
            role = record["message"]["role"]
            if role == "system":
                continue
            kind = f"{kind}:{role}"
        steps.append(kind)
    return steps


def test_a_tool_using_run(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(
            steps=[
                TextStep("Let me look."),
                ToolCallStep("bash", {"command": "echo one; sleep 0.05; echo two"}, id="call_1"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("Two lines.")]),
    )
    result = pi_env.run("--mode", "json", "Count the lines")
    assert result.returncode == 0, result.stderr
    records = records_of(result.stdout)

    header = records[0]
    assert header["type"] == "session" and header["version"] == 3
    assert header["cwd"] == str(pi_env.cwd) and header["id"]

    assert outline(records) == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "tool_execution_start",
        "tool_execution_end",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    assert records[-1] == {"type": "agent_settled", "aborted": False}

    starts = [r for r in records if r["type"] == "message_start" and r["message"]["role"] == "assistant"]
    for start in starts:
        assert start["message"]["stopReason"] == "pending"
        assert start["message"]["content"] == []

    updates = [r for r in records if r["type"] == "message_update"]
    assert updates
    for update in updates:
        assert "message" not in update
        assert "partial" not in update["assistantMessageEvent"]
        assert set(update["usage"]) >= {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
    deltas = [u["assistantMessageEvent"] for u in updates if u["assistantMessageEvent"]["type"] == "text_delta"]
    assert "".join(d["delta"] for d in deltas) == "Let me look.Two lines."
    [call_start] = [
        u["assistantMessageEvent"] for u in updates if u["assistantMessageEvent"]["type"] == "toolcall_start"
    ]
    assert call_start["id"] == "call_1" and call_start["toolName"] == "bash"

    kinds = [r["type"] for r in records]
    first_update = kinds.index("tool_execution_update")
    assert kinds.index("tool_execution_start") < first_update < kinds.index("tool_execution_end")
    updates = [r["partialResult"]["content"] for r in records if r["type"] == "tool_execution_update"]
    # Like Pi, the first update comes before any output, with no content.
    assert updates[0] == []
    partials = [content[0]["text"] for content in updates[1:]]
    # Updates are accumulated snapshots; how many arrive before the tool returns depends on timing.
    assert partials[0].startswith("one\n")
    assert all("one\ntwo\n".startswith(p) for p in partials)
    end = next(r for r in records if r["type"] == "tool_execution_end")
    assert end["toolCallId"] == "call_1" and end["isError"] is False
    assert end["result"]["content"][0]["text"] == "one\ntwo\n"

    tool_result = next(r for r in records if r["type"] == "message_end" and r["message"]["role"] == "toolResult")
    assert tool_result["message"]["toolCallId"] == "call_1"
    first_turn_end = next(r for r in records if r["type"] == "turn_end")
    assert [m["toolCallId"] for m in first_turn_end["toolResults"]] == ["call_1"]

    agent_end = next(r for r in records if r["type"] == "agent_end")
    assert agent_end["willRetry"] is False
    final = agent_end["messages"][-1]
    assert final["role"] == "assistant" and final["stopReason"] == "stop"
    assert final["content"] == [{"type": "text", "text": "Two lines."}]


def test_an_assistant_failure_still_exits_0(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(http_error=HTTPErrorSpec(401, "Incorrect API key provided", "invalid_api_key")))
    result = pi_env.run("--mode", "json", "hi")
    assert result.returncode == 0, result.stderr
    records = records_of(result.stdout)
    end = next(r for r in records if r["type"] == "message_end" and r["message"]["role"] == "assistant")
    assert end["message"]["stopReason"] == "error"
    assert "Incorrect API key" in end["message"]["errorMessage"]
    assert records[-1] == {"type": "agent_settled", "aborted": False}


def test_every_prompt_settles(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    result = pi_env.run("--mode", "json", "first", "second")
    assert result.returncode == 0, result.stderr
    kinds = [r["type"] for r in records_of(result.stdout)]
    assert kinds.count("agent_start") == 2
    assert kinds.count("agent_settled") == 2
    assert kinds[-1] == "agent_settled"
    assert kinds.index("agent_settled") < kinds.index("agent_start", kinds.index("agent_start") + 1)


def test_stray_stdout_cannot_corrupt_the_stream(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "chatty.py"
    extension.write_text(
        "import os\n"
        "def extension(pi):\n"
        "    async def on_start(event, ctx):\n"
        "        print('stray print from an extension')\n"
        "        os.system('echo stray output of a child process')\n"
        "    pi.on('agent_start', on_start)\n"
    )
    pi_env.server.push(ScriptedResponse(steps=[TextStep("fine")]))
    result = pi_env.run("-e", str(extension), "--mode", "json", "hi")
    assert result.returncode == 0, result.stderr
    records_of(result.stdout)  # every line is JSON
    assert "stray print from an extension" in result.stderr
    assert "stray output of a child process" in result.stderr


def test_a_retried_error_settles_once(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(529, "Overloaded", "overloaded_error")),
        ScriptedResponse(steps=[TextStep("after the retry")]),
    )
    result = pi_env.run("--mode", "json", "hi")
    assert result.returncode == 0, result.stderr
    records = records_of(result.stdout)
    kinds = [r["type"] for r in records]
    ends = [r for r in records if r["type"] == "agent_end"]
    assert [e["willRetry"] for e in ends] == [True, False]
    retry_start = next(r for r in records if r["type"] == "auto_retry_start")
    assert retry_start["attempt"] == 1 and "Overloaded" in retry_start["errorMessage"]
    assert next(r for r in records if r["type"] == "auto_retry_end")["success"] is True
    assert kinds.count("agent_settled") == 1 and kinds[-1] == "agent_settled"
    assert kinds.index("auto_retry_start") > kinds.index("agent_end")


def test_print_mode_prints_the_answer_after_a_retry(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(529, "Overloaded", "overloaded_error")),
        ScriptedResponse(steps=[TextStep("after the retry")]),
    )
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "after the retry\n"


def test_events_of_a_replacement_session_are_streamed(pi_env: PiEnv) -> None:
    extension = pi_env.cwd / "fresh.py"
    extension.write_text(
        "def extension(pi):\n"
        "    @pi.command('fresh')\n"
        "    async def fresh(args, ctx):\n"
        "        await ctx.new_session()\n"
    )
    pi_env.server.push(ScriptedResponse(steps=[TextStep("in the new session")]))
    result = pi_env.run("-e", str(extension), "--mode", "json", "/fresh", "hello")
    assert result.returncode == 0, result.stderr
    records = records_of(result.stdout)
    assert records[-1] == {"type": "agent_settled", "aborted": False}
    ends = [r for r in records if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert ends[-1]["message"]["content"] == [{"type": "text", "text": "in the new session"}]
    assert len(pi_env.sessions()) == 1  # the first session never got a message worth saving
