"""``Agent.rehearse_request``: the request a next prompt would send, built and sent outside any run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _agent_helpers import Recorder, make_agent, make_tool, request_texts

from pi_harness.agent import AgentContext, PrepareRequestContext
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.providers.faux import FauxProvider, faux_text


@pytest.fixture
def faux() -> FauxProvider:
    provider = FauxProvider()
    yield provider
    provider.close()


def user(text: str) -> Any:
    return {"role": "user", "content": text, "timestamp": 0}


async def test_it_sends_the_history_and_the_new_messages_without_an_event_or_a_state_change(
    faux: FauxProvider,
) -> None:
    faux.push(faux_text("first answer"), faux_text("rehearsed answer"))
    agent = make_agent(faux, [make_tool("noop")], system_prompt="the prompt")
    await agent.prompt("first")
    recorder = Recorder(agent)
    before = list(agent.state.messages)

    final = await agent.rehearse_request([user("next")])

    assert final["stopReason"] == "stop"
    assert request_texts(faux, 1) == ["user:first", "assistant", "user:next"]
    assert faux.requests[1].context["systemPrompt"] == "the prompt"
    assert [tool["name"] for tool in faux.requests[1].context["tools"]] == ["noop"]
    assert recorder.events == []
    assert agent.state.messages == before


async def test_the_new_messages_follow_what_prepare_request_projects(faux: FauxProvider) -> None:
    turns: list[int] = []

    def prepare(request: PrepareRequestContext, signal: AbortSignal) -> Any:
        turns.append(request.turn)
        return AgentContext("projected prompt", [user("projected history")], request.context.tools)

    faux.push(faux_text("rehearsed"))
    agent = make_agent(faux, prepare_request=prepare)
    await agent.rehearse_request([user("next")])

    assert turns == [1]
    assert request_texts(faux, 0) == ["user:projected history", "user:next"]
    assert faux.requests[0].context["systemPrompt"] == "projected prompt"


async def test_it_is_refused_while_a_run_is_in_progress(faux: FauxProvider) -> None:
    faux.push(faux_text("slow answer"))
    agent = make_agent(faux)
    task = asyncio.ensure_future(agent.prompt("busy"))
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="already processing"):
        await agent.rehearse_request([user("next")])
    await task
