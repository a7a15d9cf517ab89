"""Abort (agent-loop.md 6.7, 7) and the length-stop guard (6.6)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool, request_texts, result_text, text_result

from pi_harness.agent import AgentToolResult, BeforeToolCallContext
from pi_harness.ai.abort import AbortError, AbortSignal
from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_response, faux_text, faux_tool_call

LENGTH_TEXT = 'Tool call "{}" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.'


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


async def test_abort_while_streaming_ends_the_run_without_running_tools(faux: FauxProvider) -> None:
    executed: list[str] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(call_id)
        return text_result("ran")

    faux.push(
        faux_response("I will run it now.", faux_tool_call("t", {"a": 1}, "c1"), "and more text after", delay=0.002)
    )
    agent = make_agent(faux, [make_tool("t", execute)])
    rec = Recorder(agent)

    def abort_after_tool_call(event: Any) -> None:
        if event["type"] == "message_update" and event["assistantMessageEvent"]["type"] == "toolcall_end":
            agent.abort()

    agent.subscribe(abort_after_tool_call)
    await agent.prompt("go")

    assert executed == []
    assert rec.trace()[-4:] == ["message_start:assistant", "message_end:assistant", "turn_end", "agent_end"]
    final = rec.of("message_end")[-1]["message"]
    assert final["stopReason"] == "aborted"
    assert final["errorMessage"] == "Request was aborted"
    assert [b["type"] for b in final["content"]][:2] == ["text", "toolCall"]  # partial content kept
    assert rec.of("turn_end")[0]["toolResults"] == []
    assert not rec.of("tool_execution_start")
    assert agent.state.messages[-1] is final
    assert agent.state.error == "Request was aborted"
    assert len(faux.requests) == 1


async def test_abort_during_a_tool_reaches_the_tool_and_ends_the_run(faux: FauxProvider) -> None:
    observed: list[bool] = []

    async def waits_for_abort(call_id: str, params: Any, signal: AbortSignal | None, on_update: Any) -> AgentToolResult:
        assert signal is not None
        await signal.wait()
        observed.append(signal.aborted)
        raise AbortError()

    faux.push(faux_response(faux_tool_call("long", {}, "c1")), faux_text("never streamed"))
    agent = make_agent(faux, [make_tool("long", waits_for_abort)])
    rec = Recorder(agent)
    agent.subscribe(
        lambda e: (
            asyncio.get_running_loop().call_later(0.01, agent.abort) if e["type"] == "tool_execution_start" else None
        )
    )

    await agent.prompt("go")

    assert observed == [True]
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True and result_text(end["result"]) == "Operation aborted"
    # the loop asks once more with the aborted signal, which ends the run at once
    assert rec.trace()[-8:] == [
        "message_start:c1",
        "message_end:c1",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert rec.of("message_end")[-1]["message"]["stopReason"] == "aborted"
    assert not agent.state.is_streaming


async def test_abort_during_prepare_gives_prepared_calls_operation_aborted(faux: FauxProvider) -> None:
    executed: list[str] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(call_id)
        return text_result("ran")

    async def gate(ctx: BeforeToolCallContext, signal: AbortSignal | None) -> Any:
        if ctx.tool_call["id"] == "c2":
            agent.abort()  # e.g. the user pressed Escape in a confirmation dialog
        return None

    faux.push(faux_response(*(faux_tool_call("t", {}, f"c{i}") for i in (1, 2, 3))))
    agent = make_agent(faux, [make_tool("t", execute)], before_tool_call=gate)
    rec = Recorder(agent)

    await agent.prompt("go")

    assert executed == []
    trace = rec.trace()
    assert trace[trace.index("tool_execution_start:c1") : trace.index("turn_end")] == [
        "tool_execution_start:c1",
        "tool_execution_start:c2",
        "tool_execution_end:c1",
        "tool_execution_end:c2",
        "message_start:c1",
        "message_end:c1",
        "message_start:c2",
        "message_end:c2",
    ]
    assert all(result_text(e["result"]) == "Operation aborted" and e["isError"] for e in rec.of("tool_execution_end"))
    assert not any(e.get("toolCallId") == "c3" for e in rec.events)  # type: ignore[union-attr]
    assert rec.of("message_end")[-1]["message"]["stopReason"] == "aborted"


async def test_abort_in_a_sequential_batch_stops_between_tools(faux: FauxProvider) -> None:
    executed: list[str] = []

    async def aborting(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(call_id)
        agent.abort()
        return text_result("finished my step")

    faux.push(faux_response(faux_tool_call("step", {}, "c1"), faux_tool_call("step", {}, "c2")))
    agent = make_agent(faux, [make_tool("step", aborting, execution_mode="sequential")])
    rec = Recorder(agent)

    await agent.prompt("go")

    assert executed == ["c1"]
    assert [e["toolCallId"] for e in rec.of("tool_execution_start")] == ["c1"]
    results = rec.of("turn_end")[0]["toolResults"]
    assert [(r["toolCallId"], result_text(r)) for r in results] == [("c1", "finished my step")]
    assert rec.trace()[-2:] == ["turn_end", "agent_end"]


async def test_length_stop_guard_runs_no_tool(faux: FauxProvider) -> None:
    hooks: list[str] = []
    executed: list[str] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(call_id)
        return text_result("ran")

    async def gate(ctx: Any, signal: Any) -> None:
        hooks.append("before")

    truncated = FauxResponse(
        content=[faux_tool_call("write", {"path": "a"}, "c1"), faux_tool_call("write", {"path": "b"}, "c2")],
        stop_reason="length",
    )
    faux.push(truncated, faux_text("re-issuing"))
    agent = make_agent(faux, [make_tool("write", execute)], before_tool_call=gate)
    rec = Recorder(agent)

    await agent.prompt("write two files")

    assert executed == [] and hooks == []
    assert rec.of("message_end")[1]["message"]["stopReason"] == "length"
    trace = rec.trace()
    assert trace[trace.index("tool_execution_start:c1") : trace.index("turn_end")] == [
        "tool_execution_start:c1",
        "tool_execution_end:c1",
        "message_start:c1",
        "message_end:c1",
        "tool_execution_start:c2",
        "tool_execution_end:c2",
        "message_start:c2",
        "message_end:c2",
    ]
    for event in rec.of("tool_execution_end"):
        assert event["isError"] is True
        assert result_text(event["result"]) == LENGTH_TEXT.format("write")
    results = rec.of("turn_end")[0]["toolResults"]
    assert [r["isError"] for r in results] == [True, True]
    assert result_text(results[0]).startswith(LENGTH_TEXT.format("write"))
    # the run proceeds like any tool turn: the model gets to re-issue the calls
    assert request_texts(faux, 1) == ["user:write two files", "assistant", "toolResult:c1", "toolResult:c2"]
    assert rec.trace()[-1] == "agent_end"


async def test_error_response_ends_the_run_without_running_tools(faux: FauxProvider) -> None:
    executed: list[str] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(call_id)
        return text_result("ran")

    failing = FauxResponse(content=[faux_tool_call("t", {}, "c1")], error="529 overloaded")
    faux.push(failing)
    agent = make_agent(faux, [make_tool("t", execute)])
    agent.follow_up("queued follow-up")
    rec = Recorder(agent)

    await agent.prompt("go")

    assert executed == []
    assert rec.trace()[-4:] == ["message_start:assistant", "message_end:assistant", "turn_end", "agent_end"]
    final = rec.of("message_end")[-1]["message"]
    assert final["stopReason"] == "error" and final["errorMessage"] == "529 overloaded"
    assert agent.state.error == "529 overloaded"
    # no follow-up poll after an error: the message stays queued
    assert agent.has_queued_messages() and len(faux.requests) == 1


async def test_cancelling_the_prompt_cancels_tools_and_fires_the_signal(faux: FauxProvider) -> None:
    cancelled: list[bool] = []
    signals: list[AbortSignal] = []
    started = asyncio.Event()

    async def waits(call_id: str, params: Any, signal: AbortSignal | None, on_update: Any) -> AgentToolResult:
        assert signal is not None
        signals.append(signal)
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return text_result("unreachable")

    faux.push(faux_response(faux_tool_call("long", {}, "c1")))
    agent = make_agent(faux, [make_tool("long", waits)])
    run = asyncio.create_task(agent.prompt("go"))
    await started.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert cancelled == [True]
    assert signals[0].aborted  # anything else listening to the run's signal stops too
    assert not agent.is_running and not agent.state.is_streaming and agent.state.pending_tool_calls == set()
    await agent.wait_for_idle()


async def test_length_stop_results_carry_no_duration(faux: FauxProvider) -> None:
    faux.push(
        FauxResponse(content=[faux_tool_call("write", {"path": "a"}, "c1")], stop_reason="length"), faux_text("ok")
    )
    agent = make_agent(faux, [make_tool("write")])
    rec = Recorder(agent)
    await agent.prompt("write")
    end = rec.of("tool_execution_end")[0]
    assert "durationMs" not in end
    assert result_text(end["result"]).endswith("Re-issue the tool call with complete arguments.")
    assert "durationMs" not in rec.of("turn_end")[0]["toolResults"][0]
