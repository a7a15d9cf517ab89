"""Canonical event orders and ``runId``."""

from __future__ import annotations

import time
from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool, request_texts, result_text

from pi_harness.ai.providers.faux import FauxProvider, faux_response, faux_text, faux_thinking_block, faux_tool_call


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


async def test_plain_answer_event_order(faux: FauxProvider) -> None:
    faux.push(faux_text("Hello there, this answer spans several chunks."))
    agent = make_agent(faux, system_prompt="Be brief.")
    rec = Recorder(agent)

    await agent.prompt("hi")

    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    updates = rec.of("message_update")
    assert len(updates) >= 3
    assert {u["assistantMessageEvent"]["type"] for u in updates} >= {"text_start", "text_delta", "text_end"}
    assert all(u["message"]["stopReason"] == "pending" for u in updates)
    # message_start carries a pending copy; message_end the final message, stamped with the level
    start = rec.of("message_start")[1]["message"]
    end = rec.of("message_end")[1]["message"]
    assert start["stopReason"] == "pending" and start is not end
    assert end["stopReason"] == "stop"
    assert end["thinkingLevel"] == "off"
    assert result_text(end) == "Hello there, this answer spans several chunks."
    turn_end = rec.of("turn_end")[0]
    assert turn_end["message"] is end and turn_end["toolResults"] == []
    agent_end = rec.of("agent_end")[0]
    assert [m["role"] for m in agent_end["messages"]] == ["user", "assistant"]
    assert "budgetExceeded" not in agent_end
    # state: messages appended at message_end; idle again
    assert agent.state.messages == agent_end["messages"]
    assert not agent.state.is_streaming and agent.state.stream_message is None
    assert agent.state.error is None
    # the request carried the system prompt and only the user message
    assert faux.requests[0].context["systemPrompt"] == "Be brief."
    assert request_texts(faux, 0) == ["user:hi"]


async def test_thinking_level_is_sent_and_stamped(faux: FauxProvider) -> None:
    faux.push(faux_response(faux_thinking_block("pondering"), "answer"))
    agent = make_agent(faux, thinking_level="high")
    rec = Recorder(agent)
    await agent.prompt("think")
    assert faux.requests[0].options.reasoning == "high"  # type: ignore[union-attr]
    final = rec.of("message_end")[-1]["message"]
    assert final["thinkingLevel"] == "high"
    assert [b["type"] for b in final["content"]] == ["thinking", "text"]


async def test_thinking_off_sends_no_reasoning(faux: FauxProvider) -> None:
    faux.push(faux_text("ok"))
    agent = make_agent(faux)
    await agent.prompt("x")
    assert faux.requests[0].options.reasoning is None  # type: ignore[union-attr]


async def test_one_tool_turn_then_answer(faux: FauxProvider) -> None:
    faux.push(faux_response("Let me look.", faux_tool_call("read", {}, "c1")), faux_text("Done."))
    agent = make_agent(faux, [make_tool("read", reply="file body")])
    rec = Recorder(agent)

    await agent.prompt("read it")

    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "tool_execution_start:c1",
        "tool_execution_end:c1",
        "message_start:c1",
        "message_end:c1",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    first_end = rec.of("message_end")[1]["message"]
    assert first_end["stopReason"] == "toolUse"
    start = rec.of("tool_execution_start")[0]
    assert start["toolName"] == "read" and start["args"] == {}
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is False and isinstance(end["durationMs"], int) and end["durationMs"] >= 0
    assert result_text(end["result"]) == "file body"
    result_message = rec.of("message_end")[2]["message"]
    assert set(result_message) == {
        "role",
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "durationMs",
        "timestamp",
    }
    assert list(result_message) == [
        "role",
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "durationMs",
        "timestamp",
    ]
    assert result_message["toolName"] == "read" and result_message["isError"] is False
    assert rec.of("turn_end")[0]["toolResults"] == [result_message]
    # the second request answers the call with its result
    assert request_texts(faux, 1) == ["user:read it", "assistant", "toolResult:c1"]
    assert [m["role"] for m in rec.of("agent_end")[0]["messages"]] == ["user", "assistant", "toolResult", "assistant"]


async def test_run_id_on_every_event_and_fresh_per_run(faux: FauxProvider) -> None:
    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("one"), faux_text("two"))
    agent = make_agent(faux, [make_tool("noop")])
    rec = Recorder(agent)
    seen_during_run: list[str | None] = []
    agent.subscribe(lambda e: seen_during_run.append(agent.run_id))

    await agent.prompt("first")
    first_count = len(rec.events)
    await agent.prompt("second")

    first_ids = {e["runId"] for e in rec.events[:first_count]}
    second_ids = {e["runId"] for e in rec.events[first_count:]}
    assert all("runId" in e for e in rec.events)
    assert len(first_ids) == 1 and len(second_ids) == 1
    assert first_ids != second_ids
    assert rec.events[0]["type"] == "agent_start" and rec.events[first_count]["type"] == "agent_start"
    assert seen_during_run[0] == next(iter(first_ids))
    assert agent.run_id is None


async def test_prompt_accepts_images_and_message_lists(faux: FauxProvider) -> None:
    faux.push(faux_text("a"), faux_text("b"))
    agent = make_agent(faux)
    image = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    await agent.prompt("look", [image])  # type: ignore[list-item]
    assert faux.requests[0].context["messages"][0]["content"] == [{"type": "text", "text": "look"}, image]

    batch = [
        {"role": "user", "content": "one", "timestamp": 1},
        {"role": "user", "content": "two", "timestamp": 2},
    ]
    rec = Recorder(agent)
    await agent.prompt(batch)  # type: ignore[arg-type]
    assert rec.trace()[:6] == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:user",
        "message_end:user",
    ]
    assert request_texts(faux, 1)[-2:] == ["user:one", "user:two"]


async def test_a_response_failing_before_its_start_opens_with_its_final_state() -> None:
    """No ``start`` event (the request failed at once): ``message_start`` carries the final
    message, with its stop reason, error text and duration, like ``message_end``."""
    from pi_harness.agent import Agent, AgentOptions
    from pi_harness.ai import create_assistant_message_event_stream
    from pi_harness.ai.providers.faux import FauxProvider
    from pi_harness.ai.types import new_assistant_message

    faux = FauxProvider()

    def failing(model: Any, context: Any, options: Any) -> Any:
        stream = create_assistant_message_event_stream()
        message = new_assistant_message(model, int(time.time() * 1000))
        message["stopReason"] = "error"
        message["errorMessage"] = "500: boom"
        stream.push({"type": "error", "reason": "error", "error": message})
        return stream

    agent = Agent(AgentOptions(initial_state={"model": faux.model}, stream_fn=failing))
    rec = Recorder(agent)
    await agent.prompt("hi")
    started = rec.of("message_start")[-1]["message"]
    ended = rec.of("message_end")[-1]["message"]
    assert started["stopReason"] == "error" and started["errorMessage"] == "500: boom"
    assert started["durationMs"] == ended["durationMs"]
    faux.close()


async def test_message_start_shows_the_message_as_opened_even_when_the_stream_is_ahead(faux: FauxProvider) -> None:
    """A fast server's whole answer may be in the shared partial before the loop reads ``start``;
    ``message_start`` still carries the message as the provider opened it (Pi's shape)."""
    from pi_harness.ai.stream import create_assistant_message_event_stream
    from pi_harness.ai.types import new_assistant_message

    def stream_fn(model: Any, context: Any, options: Any) -> Any:
        stream = create_assistant_message_event_stream()
        partial = new_assistant_message(model, 1_000)
        stream.push({"type": "start", "partial": partial})
        # Everything below happens before the consumer takes the first event.
        partial["responseId"] = "resp-1"
        partial["usage"] = {**partial["usage"], "input": 10, "output": 5, "totalTokens": 15}
        partial["content"].append({"type": "text", "text": "done"})
        stream.push({"type": "text_start", "contentIndex": 0, "partial": partial})
        final = {**partial, "content": list(partial["content"]), "stopReason": "stop"}
        stream.push({"type": "done", "reason": "stop", "message": final})
        stream.end(final)
        return stream

    agent = make_agent(faux, stream_fn=stream_fn)
    rec = Recorder(agent)
    await agent.prompt("hi")
    start = rec.of("message_start")[1]["message"]
    assert start == {
        "role": "assistant",
        "content": [],
        "api": faux.model["api"],
        "provider": faux.model["provider"],
        "model": faux.model["id"],
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
        "stopReason": "pending",
        "timestamp": 1_000,
    }  # fmt: skip
    assert list(start) == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]
    end = rec.of("message_end")[1]["message"]
    assert end["responseId"] == "resp-1" and end["usage"]["input"] == 10
