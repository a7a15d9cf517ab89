"""The event protocol: the stream, the message builder and the provider task,
driven through the in-process faux provider."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest

from pi_harness.ai import AbortController, complete, create_assistant_message_event_stream, stream
from pi_harness.ai.events import AssistantMessageEvent
from pi_harness.ai.message_builder import ABORTED_MESSAGE, UNKNOWN_ERROR, MessageBuilder
from pi_harness.ai.options import StreamOptions
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.providers.faux import (
    FauxProvider,
    FauxResponse,
    faux_error,
    faux_response,
    faux_text,
    faux_thinking_block,
    faux_tool_call,
)
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, Model, new_assistant_message

CONTEXT: Context = {"messages": [{"role": "user", "content": "hello there", "timestamp": 1}]}


async def collect(s: AssistantMessageEventStream) -> list[AssistantMessageEvent]:
    return [event async for event in s]


def types(events: list[AssistantMessageEvent]) -> list[str]:
    return [e["type"] for e in events]


def compact(events: list[AssistantMessageEvent]) -> list[str]:
    """Event types with runs of deltas collapsed, to compare orders."""
    out: list[str] = []
    for t in types(events):
        if t.endswith("_delta") and out and out[-1] == t + "*":
            continue
        out.append(t + "*" if t.endswith("_delta") else t)
    return out


def assert_protocol(events: list[AssistantMessageEvent]) -> None:
    """The ordering rules every stream must follow."""
    assert events, "no events"
    terminal = [i for i, e in enumerate(events) if e["type"] in ("done", "error")]
    assert terminal == [len(events) - 1], "exactly one terminal event, and it is the last"
    if events[0]["type"] == "start":
        assert types(events).count("start") == 1
    else:
        assert len(events) == 1, "content events need a start event first"
    open_blocks: set[int] = set()
    for e in events[1:-1]:
        kind, _, phase = e["type"].partition("_")
        index = e["contentIndex"]  # type: ignore[typeddict-item]
        if phase == "start":
            assert index not in open_blocks
            open_blocks.add(index)
        elif phase == "delta":
            assert index in open_blocks
        elif phase == "end":
            assert index in open_blocks
            open_blocks.remove(index)
        assert kind in ("text", "thinking", "toolcall")


@pytest.fixture
def faux() -> Any:
    provider = FauxProvider(reasoning=True)
    yield provider
    provider.close()


# --- happy paths ------------------------------------------------------------------------------


async def test_text_response_event_order_and_result(faux: FauxProvider) -> None:
    faux.push(faux_text("Hello, world! This is a longer answer.", chunk_size=8))
    s = stream(faux.model, CONTEXT)
    events = await collect(s)
    assert_protocol(events)
    assert compact(events) == ["start", "text_start", "text_delta*", "text_end", "done"]
    deltas = [e["delta"] for e in events if e["type"] == "text_delta"]
    assert len(deltas) > 1
    assert "".join(deltas) == "Hello, world! This is a longer answer."
    text_end = next(e for e in events if e["type"] == "text_end")
    assert text_end["content"] == "Hello, world! This is a longer answer."
    done = events[-1]
    assert done["reason"] == "stop"  # type: ignore[typeddict-item]
    message = await s.result()
    assert message is done["message"]  # type: ignore[typeddict-item]
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hello, world! This is a longer answer."}]
    assert message["api"] == "faux"
    assert message["model"] == faux.model["id"]
    assert "errorMessage" not in message


async def test_pending_stop_reason_while_streaming(faux: FauxProvider) -> None:
    # the partial is shared and mutated in place: a small delay lets the consumer look at it
    # between events
    faux.push(faux_text("abcdef", chunk_size=2, delay=0.001))
    seen: list[str] = []
    async for event in stream(faux.model, CONTEXT):
        if event["type"] in ("start", "text_delta"):
            seen.append(event["partial"]["stopReason"])
    assert set(seen) == {"pending"}


async def test_thinking_text_and_tool_calls(faux: FauxProvider) -> None:
    call = faux_tool_call("read", {"path": "src/main.py", "limit": 20}, "call_1")
    faux.push(faux_response(faux_thinking_block("Let me look.", "sig"), "Reading the file.", call, chunk_size=5))
    s = stream(faux.model, CONTEXT)
    events = await collect(s)
    assert_protocol(events)
    assert compact(events) == [
        "start",
        "thinking_start",
        "thinking_delta*",
        "thinking_end",
        "text_start",
        "text_delta*",
        "text_end",
        "toolcall_start",
        "toolcall_delta*",
        "toolcall_end",
        "done",
    ]
    indices = {e["type"]: e["contentIndex"] for e in events if "contentIndex" in e}  # type: ignore[typeddict-item]
    assert indices["thinking_start"] == 0 and indices["text_start"] == 1 and indices["toolcall_start"] == 2
    end = next(e for e in events if e["type"] == "toolcall_end")
    # complete, and free of streaming scratch fields
    assert end["toolCall"] == {
        "type": "toolCall",
        "id": "call_1",
        "name": "read",
        "arguments": {"path": "src/main.py", "limit": 20},
    }
    thinking_end = next(e for e in events if e["type"] == "thinking_end")
    assert thinking_end["content"] == "Let me look."
    assert events[-1]["reason"] == "toolUse"  # type: ignore[typeddict-item]
    message = await s.result()
    assert message["stopReason"] == "toolUse"
    assert message["content"][0] == {"type": "thinking", "thinking": "Let me look.", "thinkingSignature": "sig"}


async def test_tool_call_arguments_grow_during_deltas(faux: FauxProvider) -> None:
    faux.push(faux_response(faux_tool_call("write", {"path": "a.txt", "content": "x" * 40}), chunk_size=6, delay=0.001))
    snapshots: list[dict[str, Any]] = []
    async for event in stream(faux.model, CONTEXT):
        if event["type"] == "toolcall_delta":
            args = event["partial"]["content"][event["contentIndex"]]["arguments"]  # type: ignore[typeddict-item]
            assert isinstance(args, dict)
            snapshots.append(dict(args))
    assert snapshots[0] == {}
    assert {"path": "a.txt"}.items() <= snapshots[len(snapshots) // 2].items()
    assert snapshots[-1] == {"path": "a.txt", "content": "x" * 40}
    # arguments only ever grow: each content value extends the previous one
    contents = [s.get("content", "") for s in snapshots]
    assert all(b.startswith(a) for a, b in itertools.pairwise(contents))


async def test_explicit_stop_reasons(faux: FauxProvider) -> None:
    faux.push(faux_text("truncated", stop_reason="length"), faux_text("later", stop_reason="deferred"))
    first = await complete(faux.model, CONTEXT)
    assert first["stopReason"] == "length"
    s = stream(faux.model, CONTEXT)
    events = await collect(s)
    assert events[-1] == {"type": "done", "reason": "deferred", "message": await s.result()}


async def test_usage_and_cost_are_filled(faux: FauxProvider) -> None:
    priced = FauxProvider(cost={"input": 2.0, "output": 10.0})
    try:
        priced.push(faux_text("ok", usage={"input": 1000, "output": 500, "cacheRead": 100}))
        message = await complete(priced.model, CONTEXT)
    finally:
        priced.close()
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == (1000, 500, 100, 1600)
    assert usage["cost"]["total"] == pytest.approx(1000 * 2 / 1e6 + 500 * 10 / 1e6)


async def test_requests_are_recorded(faux: FauxProvider) -> None:
    faux.push(faux_text("one"))
    options = StreamOptions(temperature=0.5)
    await complete(faux.model, {**CONTEXT, "systemPrompt": "be brief"}, options)
    assert len(faux.requests) == 1
    assert faux.requests[0].context["systemPrompt"] == "be brief"
    assert faux.requests[0].options is not None
    assert faux.requests[0].options.temperature == 0.5


async def test_response_factory_sees_the_context(faux: FauxProvider) -> None:
    def answer(context: Context, _options: StreamOptions | None) -> FauxResponse:
        return faux_text(f"{len(context['messages'])} messages")

    faux.push(answer)
    message = await complete(faux.model, CONTEXT)
    assert message["content"] == [{"type": "text", "text": "1 messages"}]


# --- consumers --------------------------------------------------------------------------------


async def test_several_consumers_each_see_every_event(faux: FauxProvider) -> None:
    faux.push(faux_text("shared stream of text", chunk_size=3, delay=0.001))
    s = stream(faux.model, CONTEXT)
    first, second = await asyncio.gather(collect(s), collect(s))
    assert first == second
    assert_protocol(first)
    # a consumer arriving after the end still gets the whole history
    assert await collect(s) == first
    assert await s.result() is await s.result()


async def test_result_can_be_awaited_without_iterating(faux: FauxProvider) -> None:
    faux.push(faux_text("direct", delay=0.001))
    s = stream(faux.model, CONTEXT)
    results = await asyncio.gather(s.result(), s.result())
    assert results[0] is results[1]
    assert results[0]["content"][0] == {"type": "text", "text": "direct"}


# --- failures are events --------------------------------------------------------------------


async def test_error_after_partial_content_keeps_the_content(faux: FauxProvider) -> None:
    response = faux_response("partial answer", faux_tool_call("bash", {"command": "ls"}, "c1"))
    response.error = "503 upstream went away"
    faux.push(response)
    s = stream(faux.model, CONTEXT)
    events = await collect(s)
    assert_protocol(events)
    assert events[-1]["type"] == "error"
    assert events[-1]["reason"] == "error"
    message = await s.result()
    assert message is events[-1]["error"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "503 upstream went away"
    assert message["content"][0] == {"type": "text", "text": "partial answer"}
    assert message["content"][1]["arguments"] == {"command": "ls"}  # type: ignore[typeddict-item]
    assert message["usage"]["input"] > 0


async def test_error_without_content(faux: FauxProvider) -> None:
    faux.push(faux_error("401 invalid api key"))
    message = await complete(faux.model, CONTEXT)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "401 invalid api key"
    assert message["content"] == []


async def test_no_scripted_response_is_an_error_event_not_an_exception(faux: FauxProvider) -> None:
    s = stream(faux.model, CONTEXT)
    events = await collect(s)
    assert types(events) == ["error"]
    message = await s.result()
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Faux provider has no scripted response left"


async def test_unknown_faux_model_is_an_error_event(faux: FauxProvider) -> None:
    model: Model = {**faux.model, "id": "nobody-home"}
    message = await complete(model, CONTEXT)
    assert message["stopReason"] == "error"
    assert "nobody-home" in message["errorMessage"]


# --- abort ------------------------------------------------------------------------------------


async def test_abort_mid_stream_keeps_partial_content(faux: FauxProvider) -> None:
    faux.push(faux_text("one two three four five six seven eight nine ten", chunk_size=4, delay=0.01))
    controller = AbortController()
    s = stream(faux.model, CONTEXT, StreamOptions(signal=controller.signal))
    events: list[AssistantMessageEvent] = []
    async for event in s:
        events.append(event)
        if event["type"] == "text_delta" and len(events) >= 4:
            controller.abort()
    assert_protocol(events)
    assert events[-1]["type"] == "error"
    assert events[-1]["reason"] == "aborted"
    message = await s.result()
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == ABORTED_MESSAGE == "Request was aborted"
    text = message["content"][0]["text"]  # type: ignore[typeddict-item]
    assert text
    assert "one two three four five six seven eight nine ten".startswith(text)
    assert text != "one two three four five six seven eight nine ten"


async def test_already_aborted_signal_ends_at_once(faux: FauxProvider) -> None:
    faux.push(faux_text("never sent"))
    controller = AbortController()
    controller.abort()
    s = stream(faux.model, CONTEXT, StreamOptions(signal=controller.signal))
    events = await collect(s)
    assert types(events) == ["error"]
    assert events[0]["reason"] == "aborted"  # type: ignore[typeddict-item]
    assert (await s.result())["stopReason"] == "aborted"


async def test_abort_right_after_the_call_still_ends_the_stream(faux: FauxProvider) -> None:
    # the request task has not run its first step yet when the signal fires
    faux.push(faux_text("hello"))
    controller = AbortController()
    s = stream(faux.model, CONTEXT, StreamOptions(signal=controller.signal))
    controller.abort()
    message = await asyncio.wait_for(s.result(), 5)
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == ABORTED_MESSAGE
    assert_protocol(await collect(s))


async def test_abort_after_completion_changes_nothing(faux: FauxProvider) -> None:
    faux.push(faux_text("done already"))
    controller = AbortController()
    s = stream(faux.model, CONTEXT, StreamOptions(signal=controller.signal))
    message = await s.result()
    controller.abort()
    await asyncio.sleep(0)
    assert message["stopReason"] == "stop"
    assert types(await collect(s))[-1] == "done"


# --- the stream object ------------------------------------------------------------------------


def _message() -> AssistantMessage:
    model: Model = {
        "id": "m",
        "name": "m",
        "api": "x",
        "provider": "p",
        "baseUrl": "",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1,
        "maxTokens": 1,
    }
    return new_assistant_message(model, 0)


async def test_pushes_after_the_terminal_event_are_ignored() -> None:
    s = create_assistant_message_event_stream()
    msg = _message()
    s.push({"type": "start", "partial": msg})
    s.push({"type": "done", "reason": "stop", "message": msg})
    s.push({"type": "text_start", "contentIndex": 0, "partial": msg})
    s.push({"type": "error", "reason": "error", "error": msg})
    s.end()
    assert types(await collect(s)) == ["start", "done"]
    assert s.closed
    assert await s.result() is msg


async def test_end_without_terminal_event_resolves_with_the_given_result() -> None:
    s = AssistantMessageEventStream()
    msg = _message()
    waiter = asyncio.ensure_future(s.result())
    await asyncio.sleep(0)
    s.push({"type": "start", "partial": msg})
    s.end(msg)
    assert await waiter is msg
    assert types(await collect(s)) == ["start"]


async def test_end_without_any_result_fails_loudly_instead_of_hanging() -> None:
    s = AssistantMessageEventStream()
    s.end()
    with pytest.raises(RuntimeError):
        await s.result()


async def test_consumer_waiting_for_events_is_woken_by_pushes() -> None:
    s = AssistantMessageEventStream()
    msg = _message()
    consumer = asyncio.ensure_future(collect(s))
    await asyncio.sleep(0)
    s.push({"type": "start", "partial": msg})
    await asyncio.sleep(0)
    s.push({"type": "done", "reason": "stop", "message": msg})
    assert types(await consumer) == ["start", "done"]


async def test_cancelled_consumer_does_not_disturb_others() -> None:
    s = AssistantMessageEventStream()
    msg = _message()
    doomed = asyncio.ensure_future(collect(s))
    survivor = asyncio.ensure_future(collect(s))
    await asyncio.sleep(0)
    doomed.cancel()
    await asyncio.sleep(0)
    s.push({"type": "start", "partial": msg})
    s.push({"type": "done", "reason": "stop", "message": msg})
    assert types(await survivor) == ["start", "done"]
    assert doomed.cancelled()


# --- the message builder directly -------------------------------------------------------------


def _builder(signal: Any = None, sequential: bool = True) -> MessageBuilder:
    model: Model = {**_message_model(), "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.5, "cacheWrite": 1.5}}
    return MessageBuilder(model, signal=signal, sequential=sequential)


def _message_model() -> Model:
    return {
        "id": "m",
        "name": "m",
        "api": "x",
        "provider": "p",
        "baseUrl": "",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1,
        "maxTokens": 1,
    }


async def test_sequential_builder_closes_the_previous_block() -> None:
    b = _builder()
    b.thinking("hmm")
    b.text("answer")
    b.open_tool_call("t", "id1", "read")
    b.append("t", '{"a":')
    b.append("t", "")
    b.append("t", "1}")
    b.finish()
    events = await collect(b.stream)
    assert_protocol(events)
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert events[9]["delta"] == ""  # type: ignore[typeddict-item]
    assert b.output["content"][2] == {"type": "toolCall", "id": "id1", "name": "read", "arguments": {"a": 1}}
    assert b.output["stopReason"] == "toolUse"


async def test_interleaved_blocks_with_a_non_sequential_builder() -> None:
    b = _builder(sequential=False)
    b.open_thinking(0, signature="s")
    b.open_text(1)
    b.append(0, "think")
    b.append(1, "say")
    b.close(1)
    b.append(0, " more")
    b.close(0)
    b.finish("stop")
    events = await collect(b.stream)
    assert_protocol(events)
    assert [(e["type"], e.get("contentIndex")) for e in events[1:-1]] == [
        ("thinking_start", 0),
        ("text_start", 1),
        ("thinking_delta", 0),
        ("text_delta", 1),
        ("text_end", 1),
        ("thinking_delta", 0),
        ("thinking_end", 0),
    ]
    assert b.output["content"][0] == {"type": "thinking", "thinking": "think more", "thinkingSignature": "s"}


async def test_empty_text_deltas_are_not_emitted() -> None:
    b = _builder()
    b.text("")
    b.text("x")
    b.finish()
    assert types(await collect(b.stream)) == ["start", "text_start", "text_delta", "text_end", "done"]


async def test_tool_call_with_complete_arguments_at_open() -> None:
    b = _builder()
    b.open_tool_call("g", "id", "grep", arguments={"pattern": "x"}, thought_signature="c2ln")
    b.finish()
    end = next(e for e in await collect(b.stream) if e["type"] == "toolcall_end")
    assert end["toolCall"] == {
        "type": "toolCall",
        "id": "id",
        "name": "grep",
        "arguments": {"pattern": "x"},
        "thoughtSignature": "c2ln",
    }


async def test_finish_with_an_error_stop_reason_becomes_an_error_event() -> None:
    b = _builder()
    b.text("some")
    b.finish("error")
    last = (await collect(b.stream))[-1]
    assert last["type"] == "error"
    assert b.output["errorMessage"] == UNKNOWN_ERROR == "An unknown error occurred"
    assert b.output["stopReason"] == "error"


async def test_finish_after_the_signal_fired_is_aborted() -> None:
    controller = AbortController()
    b = _builder(controller.signal)
    b.text("some")
    controller.abort()
    b.finish("stop")
    last = (await collect(b.stream))[-1]
    assert last["type"] == "error"
    assert last["reason"] == "aborted"
    assert b.output["errorMessage"] == ABORTED_MESSAGE


async def test_only_one_terminal_event_whatever_the_producer_does() -> None:
    b = _builder()
    b.text("x")
    b.fail(ValueError("first"))
    b.fail("second")
    b.finish()
    events = await collect(b.stream)
    assert_protocol(events)
    assert b.output["errorMessage"] == "first"


async def test_failure_message_falls_back_to_the_exception_type() -> None:
    b = _builder()
    b.fail(TimeoutError())
    assert b.output["errorMessage"] == "TimeoutError"


async def test_fail_settles_open_tool_arguments_from_the_buffer() -> None:
    b = _builder()
    b.open_tool_call("t", "id", "edit")
    b.append("t", '{"path": "a", "old": "x')
    b.fail("connection lost")
    assert b.output["content"][0]["arguments"] == {"path": "a", "old": "x"}  # type: ignore[typeddict-item]
    assert set(b.output["content"][0]) == {"type", "id", "name", "arguments"}


async def test_set_usage_prices_and_totals() -> None:
    b = _builder()
    b.set_usage(input=1000, output=100)
    b.set_usage(cache_read=10, cache_write=5, reasoning=40)  # None keeps earlier counts
    usage = b.output["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"]) == (1000, 100, 10, 5)
    assert usage["reasoning"] == 40
    assert usage["totalTokens"] == 1115
    assert usage["cost"]["input"] == pytest.approx(1000 / 1e6)
    b.set_usage(total=5000)
    assert usage["totalTokens"] == 5000


# --- run_provider_stream -----------------------------------------------------------------------


async def test_runner_that_returns_without_finishing_is_finished_for_it() -> None:
    async def run(builder: MessageBuilder) -> None:
        builder.text("implicit")

    s = run_provider_stream(_message_model(), None, run)
    events = await collect(s)
    assert types(events) == ["start", "text_start", "text_delta", "text_end", "done"]


async def test_runner_exception_becomes_the_error_event() -> None:
    async def run(builder: MessageBuilder) -> None:
        builder.text("before the crash")
        raise KeyError("boom")

    s = run_provider_stream(_message_model(), None, run)
    events = await collect(s)
    assert_protocol(events)
    message = await s.result()
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "'boom'"
    assert message["content"] == [{"type": "text", "text": "before the crash"}]


async def test_abort_cancels_a_runner_waiting_on_io() -> None:
    controller = AbortController()
    reached = asyncio.Event()

    async def run(builder: MessageBuilder) -> None:
        builder.text("waiting")
        reached.set()
        await asyncio.sleep(60)

    s = run_provider_stream(_message_model(), controller.signal, run)
    await reached.wait()
    controller.abort()
    message = await asyncio.wait_for(s.result(), 5)
    assert message["stopReason"] == "aborted"
    assert message["content"] == [{"type": "text", "text": "waiting"}]


async def test_final_message_is_timed_from_the_stream_start() -> None:
    """``durationMs`` on the final message (done, error or ``end``), monotonic, once."""
    model = _message_model()
    s = AssistantMessageEventStream()
    message = new_assistant_message(model, int(time.time() * 1000))
    await asyncio.sleep(0.05)
    message["stopReason"] = "stop"
    s.push({"type": "done", "reason": "stop", "message": message})
    assert 40 <= message["durationMs"] < 5000
    result = await s.result()
    assert result["durationMs"] == message["durationMs"]

    # A message that started before the stream (forwarded from elsewhere) stays untimed.
    older = new_assistant_message(model, 1)
    forwarded = AssistantMessageEventStream()
    forwarded.end(older)
    assert "durationMs" not in older
