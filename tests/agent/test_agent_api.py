"""The ``Agent`` methods, their error texts (agent-loop.md 2.3) and the functional loop API."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool, request_texts

from pi_harness.agent import (
    Agent,
    AgentContext,
    AgentError,
    AgentEvent,
    AgentLoopError,
    AgentOptions,
    LoopConfig,
    MessageQueue,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_harness.ai.abort import AbortController
from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_response, faux_text, faux_tool_call


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


def user(text: str) -> Any:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}


async def test_error_texts_while_a_run_is_active(faux: FauxProvider) -> None:
    faux.push(faux_text("slow answer", delay=0.02))
    agent = make_agent(faux)
    run = asyncio.create_task(agent.prompt("first"))
    await asyncio.sleep(0)
    assert agent.is_running and agent.state.is_streaming

    with pytest.raises(AgentError) as prompt_error:
        await agent.prompt("second")
    assert str(prompt_error.value) == (
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
    )
    with pytest.raises(AgentError) as continue_error:
        await agent.continue_()
    assert str(continue_error.value) == "Agent is already processing. Wait for completion before continuing."
    with pytest.raises(AgentError):
        agent.reset()

    await agent.wait_for_idle()
    assert run.done() and not agent.is_running
    await agent.wait_for_idle()  # idle: returns at once
    await run
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant"]


async def test_error_texts_without_model_or_messages(faux: FauxProvider) -> None:
    agent = Agent()
    with pytest.raises(AgentError, match=r"^No model configured$"):
        await agent.prompt("hi")
    with pytest.raises(AgentError, match=r"^No messages to continue from$"):
        await agent.continue_()

    agent = make_agent(faux, messages=[user("q"), {"role": "assistant", "content": [], "stopReason": "stop"}])
    with pytest.raises(AgentError) as error:
        await agent.continue_()
    assert str(error.value) == "Cannot continue from message role: assistant"


async def test_loop_level_guards() -> None:
    config = LoopConfig(model=FauxProvider().model)

    async def emit(event: AgentEvent) -> None:
        raise AssertionError("nothing may be emitted")

    with pytest.raises(AgentLoopError) as empty:
        await run_agent_loop_continue(AgentContext("", [], []), config, emit)
    assert str(empty.value) == "Cannot continue: no messages in context"
    assistant_tail = AgentContext("", [user("q"), {"role": "assistant", "content": []}], [])  # type: ignore[list-item]
    with pytest.raises(AgentLoopError) as tail:
        await run_agent_loop_continue(assistant_tail, config, emit)
    assert str(tail.value) == "Cannot continue from message role: assistant"


async def test_continue_from_a_user_tail_sends_no_new_input(faux: FauxProvider) -> None:
    faux.push(faux_text("answer"))
    agent = make_agent(faux, messages=[user("pending question")])
    rec = Recorder(agent)
    await agent.continue_()
    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert request_texts(faux, 0) == ["user:pending question"]


async def test_continue_from_an_assistant_tail_uses_queued_steering_first(faux: FauxProvider) -> None:
    faux.push(faux_text("first"), faux_text("after s1"), faux_text("after s2"), faux_text("after f1"))
    agent = make_agent(faux)
    await agent.prompt("hello")
    agent.steer("s1")
    agent.steer("s2")
    agent.follow_up("f1")

    await agent.continue_()

    # s1 starts the run; the run-start poll is skipped, so s2 arrives after the first turn
    assert request_texts(faux, 1)[-2:] == ["assistant", "user:s1"]
    assert request_texts(faux, 2)[-2:] == ["assistant", "user:s2"]
    assert request_texts(faux, 3)[-2:] == ["assistant", "user:f1"]
    assert len(faux.requests) == 4
    assert agent.state.messages[-1]["stopReason"] == "stop"  # type: ignore[typeddict-item]


async def test_continue_from_an_assistant_tail_uses_a_follow_up(faux: FauxProvider) -> None:
    faux.push(faux_text("first"), faux_text("second"))
    agent = make_agent(faux)
    await agent.prompt("hello")
    agent.follow_up("one more thing")
    rec = Recorder(agent)
    await agent.continue_()
    assert rec.trace()[:4] == ["agent_start", "turn_start", "message_start:user", "message_end:user"]
    assert request_texts(faux, 1) == ["user:hello", "assistant", "user:one more thing"]


async def test_reset_and_setters(faux: FauxProvider) -> None:
    faux.push(faux_text("a"), faux_text("b"))
    agent = make_agent(faux)
    await agent.prompt("one")
    agent.steer("queued")
    agent.reset()
    assert agent.state.messages == [] and not agent.has_queued_messages() and agent.state.error is None

    other = FauxProvider([faux_text("from other")], reasoning=True)
    try:
        agent.set_model(other.model)
        agent.set_system_prompt("new prompt")
        agent.set_thinking_level("medium")
        agent.set_tools([make_tool("late_tool")])
        agent.replace_messages([user("replaced history")])
        agent.append_message(user("appended"))
        await agent.prompt("two")
        request = other.requests[0]
        assert request.context["systemPrompt"] == "new prompt"
        assert [t["name"] for t in request.context["tools"]] == ["late_tool"]
        assert request_texts(other, 0) == ["user:replaced history", "user:appended", "user:two"]
        assert request.options.reasoning == "medium"  # type: ignore[union-attr]
    finally:
        other.close()


async def test_hook_setters_take_effect(faux: FauxProvider) -> None:
    calls: list[str] = []
    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("ok"))
    agent = make_agent(faux, [make_tool("noop")])

    async def before(ctx: Any, signal: Any) -> None:
        calls.append("before")

    async def after(ctx: Any, signal: Any) -> None:
        calls.append("after")

    agent.set_before_tool_call(before)
    agent.set_after_tool_call(after)
    agent.set_prepare_request(lambda ctx, signal: calls.append("prepare_request"))
    agent.set_finish_turn(lambda ctx, signal: calls.append("finish_turn"))
    agent.set_prepare_next_turn(lambda ctx, signal: calls.append("prepare_next_turn"))
    agent.set_declare_tool_changes(lambda ctx, signal: calls.append("declare"))
    agent.set_transform_context(lambda messages, signal: messages)
    agent.set_steering_mode("all")
    await agent.prompt("go")
    assert calls == [
        "declare",
        "prepare_request",
        "before",
        "after",
        "finish_turn",
        "prepare_next_turn",
        "prepare_request",
        "finish_turn",
    ]
    assert agent.options.steering_mode == "all"


async def test_abort_when_idle_is_harmless(faux: FauxProvider) -> None:
    faux.push(faux_text("fine"))
    agent = make_agent(faux)
    agent.abort()
    await agent.prompt("go")
    assert agent.state.messages[-1]["stopReason"] == "stop"  # type: ignore[typeddict-item]


async def test_functional_loop_api(faux: FauxProvider) -> None:
    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("done"))
    events: list[AgentEvent] = []

    async def emit(event: AgentEvent) -> None:
        events.append(event)

    steering = MessageQueue()
    steering.push(user("steer"))
    context = AgentContext("sys", [], [make_tool("noop")])
    config = LoopConfig(model=faux.model, options=AgentOptions(), steering=steering)
    new = await run_agent_loop([user("go")], context, config, emit, AbortController().signal, run_id="run-1")

    assert [m["role"] for m in new] == ["user", "user", "assistant", "toolResult", "assistant"]
    assert context.messages == new
    assert {e["runId"] for e in events} == {"run-1"}
    assert events[-1] == {"type": "agent_end", "messages": new, "runId": "run-1"}


async def test_stream_message_is_visible_while_streaming(faux: FauxProvider) -> None:
    seen: list[Any] = []
    faux.push(FauxResponse(content=[{"type": "text", "text": "x" * 40}], chunk_size=8))
    agent = make_agent(faux)
    agent.subscribe(lambda e: seen.append(agent.state.stream_message) if e["type"] == "message_update" else None)
    await agent.prompt("go")
    assert seen and all(m is not None and m["role"] == "assistant" for m in seen)
    assert agent.state.stream_message is None
