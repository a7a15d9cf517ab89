"""Steering and follow-up queues: poll points, delivery, modes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool, request_texts, text_result

from pi_harness.agent import Agent, AgentToolResult
from pi_harness.ai.providers.faux import FauxProvider, faux_response, faux_text, faux_tool_call


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


def steering_tool(agent_ref: list[Agent], *texts: str, delay: float = 0.01) -> Any:
    async def execute(call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        for text in texts:
            agent_ref[0].steer(text)
        await asyncio.sleep(delay)
        return text_result(f"{call_id} finished")

    return make_tool("work", execute)


async def test_steering_during_tools_lands_after_the_whole_batch(faux: FauxProvider) -> None:
    ref: list[Agent] = []
    faux.push(
        faux_response(faux_tool_call("work", {}, "c1"), faux_tool_call("slow", {}, "c2")),
        faux_text("switching to yarn"),
    )
    agent = make_agent(faux, [steering_tool(ref, "use yarn"), make_tool("slow", delay=0.03)])
    ref.append(agent)
    rec = Recorder(agent)

    await agent.prompt("install deps")

    # no tool was skipped; the steering message follows the results, before the next request
    assert request_texts(faux, 1) == [
        "user:install deps",
        "assistant",
        "toolResult:c1",
        "toolResult:c2",
        "user:use yarn",
    ]
    trace = rec.trace()
    first_turn_end = trace.index("turn_end")
    assert trace[first_turn_end - 4 : first_turn_end + 5] == [
        "message_start:c1",
        "message_end:c1",
        "message_start:c2",
        "message_end:c2",
        "turn_end",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
    ]
    assert all(not r["isError"] for r in rec.of("turn_end")[0]["toolResults"])
    assert len(rec.of("agent_start")) == 1 and len(rec.of("agent_end")) == 1
    assert not agent.has_queued_messages()


async def test_steering_queued_while_idle_is_delivered_at_run_start(faux: FauxProvider) -> None:
    faux.push(faux_text("ok"))
    agent = make_agent(faux)
    agent.steer("and be quick")
    rec = Recorder(agent)
    await agent.prompt("do it")
    assert request_texts(faux, 0) == ["user:do it", "user:and be quick"]
    assert rec.trace()[:6] == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:user",
        "message_end:user",
    ]


async def test_follow_up_runs_after_the_work_in_the_same_run(faux: FauxProvider) -> None:
    faux.push(faux_text("first answer"), faux_text("second answer"))
    agent = make_agent(faux)
    queued: list[bool] = []

    def queue_once(event: Any) -> None:
        if event["type"] == "message_start" and not queued:
            queued.append(True)
            agent.follow_up("now the tests")

    agent.subscribe(queue_once)
    rec = Recorder(agent)

    await agent.prompt("write code")

    assert rec.trace() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert request_texts(faux, 1) == ["user:write code", "assistant", "user:now the tests"]
    assert len(faux.requests) == 2


async def test_follow_up_waits_while_there_are_tool_calls(faux: FauxProvider) -> None:
    faux.push(faux_response(faux_tool_call("noop", {}, "c1")), faux_text("tools done"), faux_text("follow-up done"))
    agent = make_agent(faux, [make_tool("noop")])
    agent.follow_up("then this")
    await agent.prompt("start")
    assert request_texts(faux, 1) == ["user:start", "assistant", "toolResult:c1"]
    assert request_texts(faux, 2)[-1] == "user:then this"


@pytest.mark.parametrize("mode", ["one-at-a-time", "all"])
async def test_steering_modes(faux: FauxProvider, mode: str) -> None:
    ref: list[Agent] = []
    faux.push(faux_response(faux_tool_call("work", {}, "c1")), faux_text("a1"), faux_text("a2"))
    agent = make_agent(faux, [steering_tool(ref, "s1", "s2")], steering_mode=mode)
    ref.append(agent)
    assert agent.get_steering_mode() == mode

    await agent.prompt("go")

    if mode == "all":
        assert len(faux.requests) == 2
        assert request_texts(faux, 1)[-2:] == ["user:s1", "user:s2"]
    else:
        assert len(faux.requests) == 3
        assert request_texts(faux, 1)[-2:] == ["toolResult:c1", "user:s1"]
        assert request_texts(faux, 2)[-2:] == ["assistant", "user:s2"]


@pytest.mark.parametrize("mode", ["one-at-a-time", "all"])
async def test_follow_up_modes(faux: FauxProvider, mode: str) -> None:
    faux.push(faux_text("a0"), faux_text("a1"), faux_text("a2"))
    agent = make_agent(faux)
    agent.set_follow_up_mode(mode)  # type: ignore[arg-type]
    assert agent.get_follow_up_mode() == mode
    agent.follow_up("f1")
    agent.follow_up("f2")

    await agent.prompt("go")

    if mode == "all":
        assert len(faux.requests) == 2
        assert request_texts(faux, 1)[-2:] == ["user:f1", "user:f2"]
    else:
        assert len(faux.requests) == 3
        assert request_texts(faux, 1)[-1] == "user:f1"
        assert request_texts(faux, 2)[-1] == "user:f2"


async def test_queues_can_be_inspected_and_cleared(faux: FauxProvider) -> None:
    agent = make_agent(faux)
    agent.steer("s")
    agent.follow_up("f")
    assert agent.has_queued_messages()
    assert [m["content"][0]["text"] for m in agent.get_steering_messages()] == ["s"]  # type: ignore[index]
    assert [m["content"][0]["text"] for m in agent.clear_follow_up_queue()] == ["f"]  # type: ignore[index]
    assert len(agent.clear_steering_queue()) == 1
    assert not agent.has_queued_messages()
    agent.steer("x")
    agent.follow_up("y")
    agent.clear_all_queues()
    assert not agent.has_queued_messages()
