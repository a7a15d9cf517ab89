"""Run budgets (beyond Pi): max_turns, max_total_tokens, max_cost."""

from __future__ import annotations

from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool

from pi_harness.ai.providers.faux import FauxProvider, faux_response, faux_text, faux_tool_call

USAGE = {"input": 100, "output": 50}  # 150 tokens per response


def tool_turn(call_id: str) -> Any:
    return faux_response(faux_tool_call("noop", {}, call_id), usage=USAGE)


@pytest.fixture
def faux() -> FauxProvider:
    # $1000 per million tokens: 150 tokens cost $0.15
    provider = FauxProvider(cost={"input": 1000.0, "output": 1000.0})
    provider.push(tool_turn("c1"), tool_turn("c2"), tool_turn("c3"), faux_text("done", usage=USAGE))
    yield provider
    provider.close()


def assert_stopped_by_budget(rec: Recorder, limit: str, value: float, used: float) -> None:
    assert rec.trace()[-5:] == ["message_start:c2", "message_end:c2", "turn_end", "budget_exceeded", "agent_end"]
    event = rec.of("budget_exceeded")[0]
    assert (event["limit"], event["value"]) == (limit, value)
    assert event["used"] == pytest.approx(used)
    agent_end = rec.of("agent_end")[0]
    assert agent_end["budgetExceeded"] == {"limit": limit, "value": value, "used": event["used"]}
    assert event["runId"] == agent_end["runId"]
    # the run ended cleanly at the turn boundary: both turns have their results
    assert [m["role"] for m in agent_end["messages"]] == ["user", "assistant", "toolResult", "assistant", "toolResult"]


async def test_max_turns(faux: FauxProvider) -> None:
    agent = make_agent(faux, [make_tool("noop")], max_turns=2)
    rec = Recorder(agent)
    await agent.prompt("loop forever")
    assert len(faux.requests) == 2
    assert_stopped_by_budget(rec, "maxTurns", 2, 2)


async def test_max_total_tokens(faux: FauxProvider) -> None:
    agent = make_agent(faux, [make_tool("noop")], max_total_tokens=250)
    rec = Recorder(agent)
    await agent.prompt("loop forever")
    assert len(faux.requests) == 2
    assert_stopped_by_budget(rec, "maxTotalTokens", 250, 300)


async def test_max_cost(faux: FauxProvider) -> None:
    agent = make_agent(faux, [make_tool("noop")], max_cost=0.2)
    rec = Recorder(agent)
    await agent.prompt("loop forever")
    assert len(faux.requests) == 2
    assert_stopped_by_budget(rec, "maxCost", 0.2, 0.3)


async def test_no_budget_event_when_the_run_ends_by_itself(faux: FauxProvider) -> None:
    faux.close()
    provider = FauxProvider([faux_text("short answer", usage=USAGE)])
    try:
        agent = make_agent(provider, max_turns=1, max_total_tokens=10, max_cost=0.0)
        rec = Recorder(agent)
        await agent.prompt("hi")
        assert not rec.of("budget_exceeded")
        assert "budgetExceeded" not in rec.of("agent_end")[0]
    finally:
        provider.close()


async def test_queued_follow_up_stays_queued_when_the_budget_stops_the_run(faux: FauxProvider) -> None:
    faux.close()
    provider = FauxProvider([faux_text("first", usage=USAGE), faux_text("second", usage=USAGE)])
    try:
        agent = make_agent(provider, max_turns=1)
        agent.follow_up("and another thing")
        rec = Recorder(agent)
        await agent.prompt("hi")
        assert rec.of("budget_exceeded")[0]["limit"] == "maxTurns"
        assert len(provider.requests) == 1
        assert [m["content"][0]["text"] for m in agent.get_follow_up_messages()] == ["and another thing"]  # type: ignore[index]
        # budgets count per run: the next run starts from zero
        rec.events.clear()
        await agent.continue_()
        assert len(provider.requests) == 2
        assert [e["limit"] for e in rec.of("budget_exceeded")] == []
    finally:
        provider.close()
