"""Failures outside tools: listeners, hooks and the stream function (agent-loop.md 2.4)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool

from pi_harness.agent import Agent, AgentEvent, AgentOptions
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.models import get_model
from pi_harness.ai.providers.faux import FauxProvider, faux_response, faux_text, faux_tool_call


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


def assert_synthesised_failure(rec: Recorder, agent: Agent, faux: FauxProvider, text: str, reason: str) -> None:
    tail = rec.trace()[-4:]
    assert tail == ["message_start:assistant", "message_end:assistant", "turn_end", "agent_end"]
    message = rec.of("message_end")[-1]["message"]
    assert message["content"] == [{"type": "text", "text": ""}]
    assert message["stopReason"] == reason and message["errorMessage"] == text
    assert (message["api"], message["provider"], message["model"]) == ("faux", "faux", faux.model["id"])
    assert message["usage"]["totalTokens"] == 0 and message["usage"]["cost"]["total"] == 0
    # like Pi, the synthesised message opens with its final stop reason and error
    assert rec.of("message_start")[-1]["message"]["stopReason"] == reason
    assert rec.of("turn_end")[-1]["message"] is message and rec.of("turn_end")[-1]["toolResults"] == []
    assert rec.of("agent_end")[-1]["messages"] == [message]
    assert agent.state.messages[-1] is message
    assert agent.state.error == text
    assert not agent.state.is_streaming and not agent.is_running
    assert len({e["runId"] for e in rec.events}) == 1


async def test_raising_listener_does_not_break_the_run(faux: FauxProvider) -> None:
    reported: list[tuple[str, str]] = []
    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("done"))
    agent = make_agent(
        faux, [make_tool("noop")], on_listener_error=lambda err, ev: reported.append((str(err), ev["type"]))
    )

    def explosive(event: AgentEvent) -> None:
        if event["type"] in ("message_end", "tool_execution_start"):
            raise RuntimeError(f"listener broke on {event['type']}")

    agent.subscribe(explosive)
    rec = Recorder(agent)  # subscribed after the failing listener: still gets everything
    await agent.prompt("go")

    assert rec.trace()[-1] == "agent_end"
    assert rec.of("message_end")[-1]["message"]["stopReason"] == "stop"
    assert agent.state.error is None
    assert ("listener broke on tool_execution_start", "tool_execution_start") in reported
    assert sum(1 for _, kind in reported if kind == "message_end") == 4


async def test_raising_listener_is_reported_to_stderr_by_default(
    faux: FauxProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    faux.push(faux_text("ok"))
    agent = make_agent(faux)

    def explosive(event: AgentEvent) -> None:
        if event["type"] == "agent_start":
            raise ValueError("bad listener")

    agent.subscribe(explosive)
    await agent.prompt("go")
    err = capsys.readouterr().err
    assert "agent_start" in err and "ValueError: bad listener" in err
    assert agent.state.messages[-1]["stopReason"] == "stop"  # type: ignore[typeddict-item]


async def test_async_listeners_are_awaited_in_order(faux: FauxProvider) -> None:
    log: list[str] = []
    faux.push(faux_text("ok"))
    agent = make_agent(faux)

    async def slow(event: AgentEvent) -> None:
        await asyncio.sleep(0.001)
        log.append(f"slow {event['type']}")

    def fast(event: AgentEvent) -> None:
        log.append(f"fast {event['type']}")

    agent.subscribe(slow)
    unsubscribe = agent.subscribe(fast)
    await agent.prompt("go")
    kinds = [line.split()[1] for line in log[::2]]
    assert log[::2] == [f"slow {k}" for k in kinds] and log[1::2] == [f"fast {k}" for k in kinds]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"

    unsubscribe()
    unsubscribe()  # idempotent
    log.clear()
    faux.push(faux_text("again"))
    await agent.prompt("again")
    assert log and all(line.startswith("slow") for line in log)


async def test_raising_stream_fn(faux: FauxProvider) -> None:
    def broken_stream(model: Any, context: Any, options: Any) -> Any:
        raise ConnectionError("proxy unreachable")

    agent = make_agent(faux, stream_fn=broken_stream)
    rec = Recorder(agent)
    await agent.prompt("go")
    assert rec.trace()[:4] == ["agent_start", "turn_start", "message_start:user", "message_end:user"]
    assert_synthesised_failure(rec, agent, faux, "proxy unreachable", "error")


async def test_raising_convert_to_llm(faux: FauxProvider) -> None:
    def broken_convert(messages: list[Any]) -> list[Any]:
        raise KeyError("role")

    faux.push(faux_text("never"))
    agent = make_agent(faux, convert_to_llm=broken_convert)
    rec = Recorder(agent)
    await agent.prompt("go")
    assert_synthesised_failure(rec, agent, faux, "'role'", "error")
    assert not faux.requests


async def test_raising_hook_after_abort_is_reported_as_aborted(faux: FauxProvider) -> None:
    faux.push(faux_response(faux_tool_call("noop", {}, "c1")))

    async def next_turn(ctx: Any, signal: AbortSignal) -> Any:
        agent.abort()
        raise RuntimeError("compaction cancelled")

    agent = make_agent(faux, [make_tool("noop")], prepare_next_turn=next_turn)
    rec = Recorder(agent)
    await agent.prompt("go")
    assert_synthesised_failure(rec, agent, faux, "compaction cancelled", "aborted")


async def test_raising_declare_tool_changes_still_brackets_the_run(faux: FauxProvider) -> None:
    def declare(context: Any, signal: Any) -> Any:
        raise RuntimeError("transcript unreadable")

    agent = make_agent(faux, declare_tool_changes=declare)
    rec = Recorder(agent)
    await agent.prompt("go")
    assert rec.trace()[0] == "agent_start"
    assert_synthesised_failure(rec, agent, faux, "transcript unreadable", "error")


async def test_stream_simple_without_credentials(faux: FauxProvider) -> None:
    model = get_model("openai", "gpt-4o-mini")
    assert model is not None
    agent = Agent(AgentOptions(initial_state={"model": model}))
    rec = Recorder(agent)
    await agent.prompt("go")
    message = rec.of("message_end")[-1]["message"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "No API key for provider: openai"
    assert agent.state.error == "No API key for provider: openai"
    assert rec.trace()[-1] == "agent_end"


async def test_next_run_clears_the_previous_error(faux: FauxProvider) -> None:
    from pi_harness.ai.providers.faux import faux_error

    faux.push(faux_error("500 internal error"), faux_text("recovered"))
    agent = make_agent(faux)
    await agent.prompt("one")
    assert agent.state.error == "500 internal error"
    await agent.prompt("two")
    assert agent.state.error is None
