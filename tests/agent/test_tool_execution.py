"""Tool execution: parallel and sequential batches, failures as results, hooks, updates, terminate."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _agent_helpers import NUMBER_SCHEMA, Recorder, make_agent, make_tool, request_texts, result_text, text_result

from pi_harness.agent import (
    AfterToolCallContext,
    AgentToolResult,
    BeforeToolCallContext,
)
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.providers.faux import FauxProvider, faux_response, faux_text, faux_tool_call


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


def tool_turn(*calls: tuple[str, dict[str, Any], str]) -> Any:
    return faux_response(*(faux_tool_call(name, args, call_id) for name, args, call_id in calls))


async def test_parallel_calls_end_in_completion_order_and_results_in_call_order(faux: FauxProvider) -> None:
    log: list[str] = []

    def timed(name: str, delay: float) -> Any:
        async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
            log.append(f"begin {call_id}")
            on_update(text_result(f"{call_id} working"))
            await asyncio.sleep(delay)
            log.append(f"finish {call_id}")
            return text_result(f"{name} done")

        return make_tool(name, execute)

    faux.push(tool_turn(("slow", {}, "c1"), ("fast", {}, "c2")), faux_text("ok"))
    agent = make_agent(faux, [timed("slow", 0.05), timed("fast", 0.005)])
    rec = Recorder(agent)

    await agent.prompt("go")

    trace = rec.trace(updates=True)
    tool_part = trace[trace.index("tool_execution_start:c1") : trace.index("turn_end")]
    assert tool_part == [
        "tool_execution_start:c1",
        "tool_execution_start:c2",
        "tool_execution_update:c1",
        "tool_execution_update:c2",
        "tool_execution_end:c2",
        "tool_execution_end:c1",
        "message_start:c1",
        "message_end:c1",
        "message_start:c2",
        "message_end:c2",
    ]
    # both ran concurrently: the second began before the first finished
    assert log.index("begin c2") < log.index("finish c1")
    assert [r["toolCallId"] for r in rec.of("turn_end")[0]["toolResults"]] == ["c1", "c2"]
    assert request_texts(faux, 1)[-2:] == ["toolResult:c1", "toolResult:c2"]


async def test_sequential_batch_runs_call_by_call(faux: FauxProvider) -> None:
    running: list[str] = []
    overlaps: list[bool] = []

    def tracked(name: str, mode: Any = None) -> Any:
        async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
            overlaps.append(bool(running))
            running.append(call_id)
            await asyncio.sleep(0.01)
            running.remove(call_id)
            return text_result(call_id)

        return make_tool(name, execute, execution_mode=mode)

    faux.push(tool_turn(("a", {}, "c1"), ("b", {}, "c2"), ("a", {}, "c3")), faux_text("ok"))
    agent = make_agent(faux, [tracked("a"), tracked("b", "sequential")])
    rec = Recorder(agent)

    await agent.prompt("go")

    trace = rec.trace()
    tool_part = trace[trace.index("tool_execution_start:c1") : trace.index("turn_end")]
    expected = []
    for call_id in ("c1", "c2", "c3"):
        expected += [
            f"tool_execution_start:{call_id}",
            f"tool_execution_end:{call_id}",
            f"message_start:{call_id}",
            f"message_end:{call_id}",
        ]
    assert tool_part == expected
    assert overlaps == [False, False, False]


async def test_tool_that_raises_becomes_error_result(faux: FauxProvider) -> None:
    async def broken(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        raise RuntimeError("disk on fire")

    faux.push(tool_turn(("broken", {}, "c1")), faux_text("sorry"))
    agent = make_agent(faux, [make_tool("broken", broken)])
    rec = Recorder(agent)

    await agent.prompt("go")

    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True
    assert end["result"] == {"content": [{"type": "text", "text": "disk on fire"}], "details": {}}
    message = rec.of("turn_end")[0]["toolResults"][0]
    assert message["isError"] is True and message["details"] == {} and result_text(message) == "disk on fire"
    assert rec.trace()[-1] == "agent_end" and len(faux.requests) == 2


async def test_returned_is_error_is_a_failure_with_data(faux: FauxProvider) -> None:
    async def failing(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return text_result("exit code 2", isError=True, details={"exitCode": 2})

    faux.push(tool_turn(("bash", {}, "c1")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("bash", failing)])
    rec = Recorder(agent)
    await agent.prompt("go")
    message = rec.of("turn_end")[0]["toolResults"][0]
    assert message["isError"] is True and message["details"] == {"exitCode": 2}


async def test_invalid_arguments_report_the_validation_text(faux: FauxProvider) -> None:
    executed: list[Any] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(params)
        return text_result("ran")

    faux.push(tool_turn(("count", {"n": "many"}, "c1")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("count", execute, parameters=NUMBER_SCHEMA)])
    rec = Recorder(agent)

    await agent.prompt("go")

    assert executed == []
    expected = 'Validation failed for tool "count":\n  - n: must be number\n\nReceived arguments:\n{\n  "n": "many"\n}'
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True and result_text(end["result"]) == expected
    assert result_text(rec.of("turn_end")[0]["toolResults"][0]) == expected


async def test_arguments_are_coerced_for_execute_but_events_carry_raw_args(faux: FauxProvider) -> None:
    received: list[Any] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        received.append(params)
        return text_result("ok")

    faux.push(tool_turn(("count", {"n": "5"}, "c1")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("count", execute, parameters=NUMBER_SCHEMA)])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert received == [{"n": 5}]
    assert rec.of("tool_execution_start")[0]["args"] == {"n": "5"}
    assert rec.of("tool_execution_end")[0]["isError"] is False


async def test_prepare_arguments_runs_before_validation(faux: FauxProvider) -> None:
    received: list[Any] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        received.append(params)
        return text_result("ok")

    def legacy_shape(args: dict[str, Any]) -> dict[str, Any]:
        return {"n": args.pop("count")} if "count" in args else args

    faux.push(tool_turn(("count", {"count": 3}, "c1")), faux_text("ok"))
    tool = make_tool("count", execute, parameters=NUMBER_SCHEMA, prepare_arguments=legacy_shape)
    agent = make_agent(faux, [tool])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert received == [{"n": 3}]
    assert rec.of("tool_execution_start")[0]["args"] == {"count": 3}  # raw arguments untouched


async def test_unknown_tool(faux: FauxProvider) -> None:
    faux.push(tool_turn(("nope", {"x": 1}, "c1"), ("known", {}, "c2")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("known")])
    rec = Recorder(agent)
    await agent.prompt("go")
    trace = rec.trace()
    # the immediate outcome ends before the next call starts
    assert trace.index("tool_execution_end:c1") < trace.index("tool_execution_start:c2")
    end = rec.of("tool_execution_end")[0]
    assert end["toolCallId"] == "c1" and end["isError"] is True
    assert end["result"] == {"content": [{"type": "text", "text": "Tool nope not found"}], "details": {}}
    results = rec.of("turn_end")[0]["toolResults"]
    assert [(r["toolName"], r["isError"]) for r in results] == [("nope", True), ("known", False)]


async def test_before_tool_call_can_block(faux: FauxProvider) -> None:
    executed: list[str] = []
    seen: list[BeforeToolCallContext] = []
    roles_at_call: list[list[str]] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        executed.append(call_id)
        return text_result("ran")

    async def gate(ctx: BeforeToolCallContext, signal: AbortSignal | None) -> Any:
        seen.append(ctx)
        roles_at_call.append([m["role"] for m in ctx.context.messages])
        if ctx.tool_call["id"] == "c1":
            return {"block": True, "reason": "Not in this directory"}
        if ctx.tool_call["id"] == "c2":
            return {"block": True}
        if ctx.tool_call["id"] == "c3":
            raise PermissionError("Extension crashed")
        return None

    faux.push(tool_turn(*((("t", {"n": "1"}, f"c{i}")) for i in range(1, 5))), faux_text("ok"))
    agent = make_agent(faux, [make_tool("t", execute, parameters=NUMBER_SCHEMA)], before_tool_call=gate)
    rec = Recorder(agent)
    await agent.prompt("go")

    assert executed == ["c4"]
    texts = [(r["toolCallId"], r["isError"], result_text(r)) for r in rec.of("turn_end")[0]["toolResults"]]
    assert texts == [
        ("c1", True, "Not in this directory"),
        ("c2", True, "Tool execution was blocked"),
        ("c3", True, "Extension crashed"),
        ("c4", False, "ran"),
    ]
    # the hook sees validated arguments, the raw call and the assistant message
    assert seen[0].args == {"n": 1} and seen[0].tool_call["arguments"] == {"n": "1"}
    assert seen[0].assistant_message["stopReason"] == "toolUse"
    assert roles_at_call[0] == ["user", "assistant"]


async def test_after_tool_call_overrides_field_by_field(faux: FauxProvider) -> None:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return text_result("secret=42", details={"keep": True}, structuredContent={"v": 42})

    async def after(ctx: AfterToolCallContext, signal: AbortSignal | None) -> Any:
        if ctx.tool_call["id"] == "c1":
            return {"content": [{"type": "text", "text": "secret=***"}]}
        if ctx.tool_call["id"] == "c2":
            return {"details": {"replaced": 1}, "isError": True}
        if ctx.tool_call["id"] == "c3":
            raise ValueError("redaction failed")
        assert ctx.is_error is False and result_text(ctx.result) == "secret=42"
        return None

    faux.push(tool_turn(*((("t", {}, f"c{i}")) for i in range(1, 5))), faux_text("ok"))
    agent = make_agent(faux, [make_tool("t", execute)], after_tool_call=after)
    rec = Recorder(agent)
    await agent.prompt("go")

    results = {r["toolCallId"]: r for r in rec.of("turn_end")[0]["toolResults"]}
    assert result_text(results["c1"]) == "secret=***" and results["c1"]["details"] == {"keep": True}
    assert results["c1"]["isError"] is False
    assert result_text(results["c2"]) == "secret=42" and results["c2"]["details"] == {"replaced": 1}
    assert results["c2"]["isError"] is True
    assert result_text(results["c3"]) == "redaction failed" and results["c3"]["isError"] is True
    assert results["c3"]["details"] == {}
    assert result_text(results["c4"]) == "secret=42" and results["c4"]["details"] == {"keep": True}
    ends = {e["toolCallId"]: e for e in rec.of("tool_execution_end")}
    assert ends["c2"]["isError"] is True
    assert ends["c4"]["result"]["structuredContent"] == {"v": 42}  # events only
    assert "structuredContent" not in results["c4"]


async def test_terminate_skips_continuation_only_when_every_result_asks(faux: FauxProvider) -> None:
    async def final(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        return text_result("submitted", terminate=True)

    faux.push(tool_turn(("submit", {}, "c1"), ("submit", {}, "c2")))
    agent = make_agent(faux, [make_tool("submit", final), make_tool("other")])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert len(faux.requests) == 1
    assert rec.trace()[-2:] == ["turn_end", "agent_end"]
    assert rec.of("tool_execution_end")[0]["result"]["terminate"] is True
    assert "terminate" not in rec.of("turn_end")[0]["toolResults"][0]

    # one call without terminate: the loop continues
    faux.push(tool_turn(("submit", {}, "c3"), ("other", {}, "c4")), faux_text("continued"))
    await agent.prompt("again")
    assert len(faux.requests) == 3
    assert result_text(agent.state.messages[-1]) == "continued"


async def test_updates_are_forwarded_and_late_updates_dropped(faux: FauxProvider) -> None:
    keep: dict[str, Any] = {}

    async def streaming(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        keep["on_update"] = on_update
        on_update(text_result("line 1"))
        await asyncio.sleep(0)
        on_update(text_result("line 1\nline 2"))
        return text_result("line 1\nline 2\nline 3")

    faux.push(tool_turn(("tail", {"f": "x"}, "c1")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("tail", streaming)])
    rec = Recorder(agent)
    await agent.prompt("go")
    keep["on_update"](text_result("too late"))
    await asyncio.sleep(0.01)

    updates = rec.of("tool_execution_update")
    assert [result_text(u["partialResult"]) for u in updates] == ["line 1", "line 1\nline 2"]
    assert all(u["toolName"] == "tail" and u["args"] == {"f": "x"} for u in updates)
    trace = rec.trace(updates=True)
    assert trace.index("tool_execution_update:c1") < trace.index("tool_execution_end:c1")
    assert not any(result_text(e.get("partialResult", {"content": []})) == "too late" for e in rec.events)  # type: ignore[arg-type]


async def test_tool_returning_a_non_result_is_an_error(faux: FauxProvider) -> None:
    async def sloppy(call_id: str, params: Any, signal: Any, on_update: Any) -> Any:
        return "just a string"

    faux.push(tool_turn(("sloppy", {}, "c1")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("sloppy", sloppy)])
    rec = Recorder(agent)
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True
    assert result_text(end["result"]) == "Tool sloppy returned str instead of a result"


async def test_pending_tool_calls_tracked_in_state(faux: FauxProvider) -> None:
    seen: list[set[str]] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        await asyncio.sleep(0.01)
        return text_result("ok")

    faux.push(tool_turn(("t", {}, "c1"), ("t", {}, "c2")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("t", execute)])
    agent.subscribe(
        lambda e: seen.append(set(agent.state.pending_tool_calls)) if e["type"] == "tool_execution_end" else None
    )
    await agent.prompt("go")
    assert seen == [{"c2"}, set()] or seen == [{"c1"}, set()]
    assert agent.state.pending_tool_calls == set()


async def test_execute_tool_call_for_nested_calls_stamps_the_parent_id() -> None:
    from pi_harness.agent import AgentContext, AgentEvent, ToolEnvironment, execute_tool_call
    from pi_harness.ai.abort import AbortController

    events: list[AgentEvent] = []
    delivered: list[Any] = []

    async def emit(event: AgentEvent) -> None:
        events.append(event)

    async def deliver(message: Any) -> None:
        delivered.append(message)

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        on_update(text_result("half"))
        return text_result(f"n={params['n']}")

    env = ToolEnvironment(
        context=AgentContext("", [], [make_tool("inner", execute, parameters=NUMBER_SCHEMA)]),
        assistant_message={"role": "assistant", "content": []},  # type: ignore[typeddict-item]
        signal=AbortController().signal,
        run_id="r1",
        emit=emit,
        deliver=deliver,
        parent_tool_call_id="outer-1",
    )
    result, is_error = await execute_tool_call(env, faux_tool_call("inner", {"n": "7"}, "nested-1"))
    assert (result_text(result), is_error) == ("n=7", False)
    assert [e["type"] for e in events] == ["tool_execution_start", "tool_execution_update", "tool_execution_end"]
    assert all(e["parentToolCallId"] == "outer-1" and e["runId"] == "r1" for e in events)  # type: ignore[typeddict-item]
    assert delivered == []  # nested calls are not written to the transcript

    result, is_error = await execute_tool_call(env, faux_tool_call("missing", {}, "nested-2"))
    assert is_error and result_text(result) == "Tool missing not found"


async def test_duration_only_for_calls_that_ran(faux: FauxProvider) -> None:
    """``durationMs`` times ``execute``; a call that never reached it (unknown tool, failed
    validation, blocked) has none, neither on its end event nor on its result message."""

    async def slow(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        await asyncio.sleep(0.05)
        raise RuntimeError("late failure")

    faux.push(tool_turn(("nope", {}, "c1"), ("slow", {}, "c2")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("slow", slow)])
    rec = Recorder(agent)
    await agent.prompt("go")
    ends = {event["toolCallId"]: event for event in rec.of("tool_execution_end")}
    assert "durationMs" not in ends["c1"]
    assert ends["c2"]["isError"] is True and 40 <= ends["c2"]["durationMs"] < 5000
    results = {message["toolCallId"]: message for message in rec.of("turn_end")[0]["toolResults"]}
    assert "durationMs" not in results["c1"]
    assert results["c2"]["durationMs"] == ends["c2"]["durationMs"]
    assert list(results["c2"])[-2:] == ["durationMs", "timestamp"]
