"""The 1.4.0 loop hooks and the request pipeline (agent-loop.md 2.1, 3, 4.2)."""

from __future__ import annotations

from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool, request_texts, result_text

from pi_harness.agent import (
    AgentContext,
    FinishTurnContext,
    PreparedRequest,
    PrepareNextTurnContext,
    PrepareRequestContext,
)
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.providers.faux import FauxProvider, faux_response, faux_text, faux_tool_call


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


def user(text: str) -> Any:
    return {"role": "user", "content": text, "timestamp": 0}


async def test_prepare_request_runs_before_every_request_and_can_replace_the_context(faux: FauxProvider) -> None:
    calls: list[tuple[int, list[str]]] = []

    def prepare(request: PrepareRequestContext, signal: AbortSignal) -> Any:
        calls.append((request.turn, [m["role"] for m in request.context.messages]))
        if request.turn == 1:
            projected = [user("projected history"), *request.context.messages]
            return AgentContext("projected prompt", projected, request.context.tools)
        return None

    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("done"))
    agent = make_agent(faux, [make_tool("noop")], system_prompt="original", prepare_request=prepare)
    await agent.prompt("task")

    assert calls == [(1, ["user"]), (2, ["user", "user", "assistant", "toolResult"])]
    # the replacement holds for this and every later request
    assert request_texts(faux, 0) == ["user:projected history", "user:task"]
    assert request_texts(faux, 1) == ["user:projected history", "user:task", "assistant", "toolResult:c1"]
    assert faux.requests[1].context["systemPrompt"] == "projected prompt"
    # agent.state.messages only grows through message_end: the projection is not stored
    assert [m["role"] for m in agent.state.messages] == ["user", "assistant", "toolResult", "assistant"]


async def test_prepare_request_can_route_model_and_level_for_one_request(faux: FauxProvider) -> None:
    other = FauxProvider([faux_text("from the routed model")], reasoning=True)
    try:
        faux.push(faux_text("unused"))

        async def route(request: PrepareRequestContext, signal: AbortSignal) -> PreparedRequest:
            return PreparedRequest(model=other.model, thinking_level="low")

        agent = make_agent(faux, prepare_request=route)
        rec = Recorder(agent)
        await agent.prompt("hi")
        assert len(other.requests) == 1 and not faux.requests
        assert other.requests[0].options.reasoning == "low"  # type: ignore[union-attr]
        final = rec.of("message_end")[-1]["message"]
        assert final["model"] == other.model["id"] and final["thinkingLevel"] == "low"
    finally:
        other.close()


async def test_finish_turn_end_stops_despite_tool_calls(faux: FauxProvider) -> None:
    seen: list[FinishTurnContext] = []

    async def finish(turn: FinishTurnContext, signal: AbortSignal) -> Any:
        seen.append(turn)
        return {"action": "end"}

    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("never"))
    agent = make_agent(faux, [make_tool("noop")], finish_turn=finish)
    agent.steer("queued steering")
    agent.follow_up("queued follow-up")
    rec = Recorder(agent)
    await agent.prompt("go")

    assert len(faux.requests) == 1
    assert rec.trace()[-4:] == ["message_start:c1", "message_end:c1", "turn_end", "agent_end"]
    assert seen[0].turn == 1 and [r["toolCallId"] for r in seen[0].tool_results] == ["c1"]
    assert seen[0].assistant_message["stopReason"] == "toolUse"
    # the steering from poll A was delivered; nothing is polled after "end"
    assert request_texts(faux, 0) == ["user:go", "user:queued steering"]
    assert agent.has_queued_messages()


async def test_finish_turn_continue_sends_exactly_one_more_request(faux: FauxProvider) -> None:
    decisions = iter([{"action": "continue"}, None])

    def finish(turn: FinishTurnContext, signal: AbortSignal) -> Any:
        return next(decisions)

    faux.push(faux_text("part one"), faux_text("part two"))
    agent = make_agent(faux, finish_turn=finish)
    rec = Recorder(agent)
    await agent.prompt("write")

    assert len(faux.requests) == 2
    assert request_texts(faux, 1) == ["user:write", "assistant"]  # no new input
    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]


async def test_finish_turn_decision_is_ignored_for_error_responses(faux: FauxProvider) -> None:
    seen: list[str] = []

    def finish(turn: FinishTurnContext, signal: AbortSignal) -> Any:
        seen.append(turn.assistant_message["stopReason"])
        return {"action": "continue"}

    from pi_harness.ai.providers.faux import faux_error

    faux.push(faux_error("boom"), faux_text("unused"))
    agent = make_agent(faux, finish_turn=finish)
    await agent.prompt("go")
    assert seen == ["error"] and len(faux.requests) == 1


async def test_prepare_next_turn_injects_messages_before_steering(faux: FauxProvider) -> None:
    turns: list[int] = []

    async def next_turn(ctx: PrepareNextTurnContext, signal: AbortSignal) -> Any:
        turns.append(ctx.turn)
        agent.steer("steer polled at C")
        return [user("injected note")]

    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("done"))
    agent = make_agent(faux, [make_tool("noop")], prepare_next_turn=next_turn)
    rec = Recorder(agent)
    await agent.prompt("go")

    assert turns[0] == 2
    # poll B after turn 1 was empty, so poll C picks up the steering queued by the hook
    assert request_texts(faux, 1)[-2:] == ["user:injected note", "user:steer polled at C"]
    trace = rec.trace()
    second_turn = trace.index("turn_start", 2)
    assert trace[second_turn + 1 : second_turn + 5] == [
        "message_start:user",
        "message_end:user",
        "message_start:user",
        "message_end:user",
    ]


async def test_declare_tool_changes_message_precedes_the_prompt(faux: FauxProvider) -> None:
    declared: list[list[str]] = []

    def declare(context: AgentContext, signal: AbortSignal) -> Any:
        declared.append([tool.name for tool in context.tools])
        return [
            {
                "role": "system",
                "content": "",
                "toolsAdded": [tool.to_tool() for tool in context.tools],
                "timestamp": 0,
            }
        ]

    faux.push(faux_text("ok"))
    agent = make_agent(faux, [make_tool("read"), make_tool("bash")], declare_tool_changes=declare)
    rec = Recorder(agent)
    await agent.prompt("hi")

    assert declared == [["read", "bash"]]
    assert rec.trace()[:6] == [
        "agent_start",
        "turn_start",
        "message_start:system",
        "message_end:system",
        "message_start:user",
        "message_end:user",
    ]
    assert [m["role"] for m in agent.state.messages] == ["system", "user", "assistant"]
    # the default convert_to_llm keeps only the LLM roles
    assert request_texts(faux, 0) == ["user:hi"]
    assert [t["name"] for t in faux.requests[0].context["tools"]] == ["read", "bash"]


async def test_transform_context_and_convert_to_llm(faux: FauxProvider) -> None:
    def transform(messages: list[Any], signal: AbortSignal) -> list[Any]:
        return [*messages, user("ephemeral reminder")]

    async def convert(messages: list[Any]) -> list[Any]:
        out = []
        for m in messages:
            if m["role"] == "custom":
                out.append(user(f"[{m['customType']}] {m['content']}"))
            elif m["role"] in ("user", "assistant", "toolResult"):
                out.append(m)
        return out

    faux.push(faux_text("ok"))
    custom = {"role": "custom", "customType": "note", "content": "remember", "display": True, "timestamp": 0}
    agent = make_agent(faux, messages=[custom], transform_context=transform, convert_to_llm=convert)
    await agent.prompt("hi")
    assert request_texts(faux, 0) == ["user:[note] remember", "user:hi", "user:ephemeral reminder"]
    assert [m["role"] for m in agent.state.messages] == ["custom", "user", "assistant"]  # nothing stored


async def test_request_options_are_passed_through(faux: FauxProvider) -> None:
    asked: list[str] = []
    responses: list[int] = []

    def get_key(provider: str) -> str:
        asked.append(provider)
        return "" if len(asked) == 1 else "fresh-token"

    async def on_payload(payload: dict[str, Any], model: Any) -> None:
        return None

    def on_response(status: int, headers: Any) -> None:
        responses.append(status)

    faux.push(faux_text("one"), faux_text("two"))
    template = SimpleStreamOptions(temperature=0.2, max_tokens=77, headers={"x-test": "1"})
    agent = make_agent(
        faux,
        get_api_key=get_key,
        api_key="fallback-key",
        session_id="sess-1",
        transport="websocket",
        thinking_budgets={"low": 1000},
        max_retry_delay_ms=5000,
        on_payload=on_payload,
        on_response=on_response,
        stream_options=template,
        thinking_level="low",
    )
    await agent.prompt("a")
    agent.session_id = "sess-2"
    agent.set_transport("auto")
    await agent.prompt("b")

    first, second = (r.options for r in faux.requests)
    assert isinstance(first, SimpleStreamOptions) and isinstance(second, SimpleStreamOptions)
    assert asked == [faux.model["provider"]] * 2
    assert first.api_key == "fallback-key" and second.api_key == "fresh-token"
    assert first.session_id == "sess-1" and second.session_id == "sess-2"
    assert first.transport == "websocket" and second.transport == "auto"
    assert first.thinking_budgets == {"low": 1000} and first.reasoning == "low"
    assert first.max_retry_delay_ms == 5000
    assert first.on_payload is on_payload and first.on_response is on_response
    assert first.temperature == 0.2 and first.max_tokens == 77 and first.headers == {"x-test": "1"}
    assert first.signal is not None and first.signal is not second.signal
    assert template.api_key is None  # the template itself is not modified
    assert result_text(agent.state.messages[-1]) == "two"
