"""Prompt-cache warming against the fake server (Anthropic Messages and OpenAI Responses), driven
by a fake clock: nothing sleeps, the test moves time and waits for the refresh it caused."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import make_session, make_tool

from pi_harness.agent.types import AgentToolResult
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.coding.cache_warming import (
    FakeClock,
    describe_warming_status,
    evaluate,
    format_warming_usage,
    prompt_cache_ttl_ms,
    warming_delay_ms,
)
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

CLAUDE_COST = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}
GPT_COST = {"input": 2.5, "output": 10.0, "cacheRead": 0.25, "cacheWrite": 0.0}
TTL_S = 300  # the five-minute tier
DUE_MS = 270_000  # 90 % of it


def _model(server: FakeLLMServer, api: str, cost: dict[str, float], **extra: Any) -> dict[str, Any]:
    return dict(server.model(api, "cached-model", cost=cost, promptCache={"short": TTL_S}, **extra))


def _usage_entries(session: Any) -> list[dict[str, Any]]:
    return [e for e in session.session_manager.get_entries() if e["type"] == "usage"]


# -- the rules ---------------------------------------------------------------------------------------


def test_refresh_at_ninety_percent_keeping_ten_seconds() -> None:
    assert warming_delay_ms(300_000) == 270_000
    assert warming_delay_ms(60_000) == 50_000  # 90 % would leave only 6 s
    assert warming_delay_ms(10_000) is None


def test_the_lifetime_follows_the_retention_tier() -> None:
    model: Any = {"api": "anthropic-messages", "promptCache": {"short": 300, "long": 3600}}
    assert prompt_cache_ttl_ms(model, SimpleStreamOptions()) == 300_000
    assert prompt_cache_ttl_ms(model, SimpleStreamOptions(cache_retention="long")) == 3_600_000
    assert prompt_cache_ttl_ms(model, SimpleStreamOptions(cache_retention="none")) is None
    assert prompt_cache_ttl_ms({"api": "x"}, SimpleStreamOptions()) is None  # type: ignore[arg-type]  # a partial model


def test_warming_needs_five_cents_of_expected_savings() -> None:
    model: Any = {"cost": CLAUDE_COST}
    # miss 3.75 - 0.3 = 3.45 $/M, warm 0.3 $/M: 15,900 prompt tokens save just over $0.05.
    assert evaluate(model, 15_900, "streaming")["action"] == "warm"
    assert evaluate(model, 15_800, "streaming")["action"] == "stop"
    # Between runs a next request is likely only 15 % of the time.
    idle = evaluate(model, 50_000, "idle")
    assert idle["continuationProbability"] == 0.15 and idle["action"] == "stop"
    assert evaluate(model, 0, "streaming")["economicsAvailable"] is False


# -- while the agent runs (anthropic-messages) -------------------------------------------------------


async def test_a_long_tool_call_keeps_the_anthropic_cache_warm(server: FakeLLMServer, project: Path) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def wait(_id: str, _args: dict[str, Any], _signal: Any, _update: Any) -> AgentToolResult:
        started.set()
        await release.wait()
        return AgentToolResult(content=[{"type": "text", "text": "waited"}], details=None)

    server.push(
        ScriptedResponse(
            steps=[ToolCallStep("wait", {}, id="call_1")], usage={"input": 100, "cacheWrite": 50_000, "output": 5}
        ),
        ScriptedResponse(steps=[TextStep("x")], usage={"cacheRead": 50_100, "output": 1}),  # the refresh
        ScriptedResponse(steps=[TextStep("done")], usage={"input": 20, "cacheRead": 50_100, "output": 3}),
    )
    created = await make_session(
        server,
        project,
        model=_model(server, "anthropic-messages", CLAUDE_COST),
        api_keys={"fake": "test-key"},
        custom_tools=[make_tool("wait", wait)],
    )
    session = created.session
    clock = FakeClock()
    session.cache_warmer.clock = clock
    run = asyncio.ensure_future(session.prompt("go"))
    await started.wait()
    assert session.cache_warmer.status["state"] == "scheduled"
    clock.advance(DUE_MS - 1)
    assert len(server.requests) == 1  # not yet
    clock.advance(1)
    await session.cache_warmer.wait_idle()
    release.set()
    await run

    first, warm, last = server.requests
    assert warm.json["max_tokens"] == 1
    assert warm.json["messages"] == first.json["messages"]  # the same prefix, replayed
    (entry,) = _usage_entries(session)
    assert (entry["kind"], entry["provider"], entry["model"]) == ("cache_warm", "fake", "cached-model")
    assert entry["usage"]["cacheRead"] == 50_100 and entry["usage"]["output"] == 1
    # Counted in the totals, never sent to the model.
    stats = session.get_session_stats()
    assert stats["tokens"]["cacheRead"] == 50_100 * 2
    context = session.session_manager.build_session_context().messages
    answered = sum(m["usage"]["cost"]["total"] for m in context if m["role"] == "assistant")
    assert entry["usage"]["cost"]["total"] > 0
    assert stats["cost"] == pytest.approx(answered + entry["usage"]["cost"]["total"])
    assert len(last.json["messages"]) == len(first.json["messages"]) + 2  # the tool call and its result
    assert [m["role"] for m in context if m["role"] != "system"] == ["user", "assistant", "toolResult", "assistant"]
    assert format_warming_usage(entry["usage"]).startswith("Cache warmed: $0.01")
    # ``streaming`` stops when the run settles.
    assert session.cache_warmer.status == {"state": "inactive", "reason": "agent run settled"}
    assert clock.pending == 0
    await session.dispose()


async def test_cheap_prompts_are_not_warmed(server: FakeLLMServer, project: Path) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def wait(_id: str, _args: dict[str, Any], _signal: Any, _update: Any) -> AgentToolResult:
        started.set()
        await release.wait()
        return AgentToolResult(content=[{"type": "text", "text": "waited"}], details=None)

    server.push(
        ScriptedResponse(steps=[ToolCallStep("wait", {}, id="call_1")], usage={"input": 100, "cacheWrite": 1_000}),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    created = await make_session(
        server, project, model=_model(server, "anthropic-messages", CLAUDE_COST), custom_tools=[make_tool("wait", wait)]
    )
    session = created.session
    clock = session.cache_warmer.clock = FakeClock()
    run = asyncio.ensure_future(session.prompt("go"))
    await started.wait()
    clock.advance(DUE_MS)
    await session.cache_warmer.wait_idle()
    assert session.cache_warmer.status["reason"] == "expected savings below threshold"
    release.set()
    await run
    assert len(server.requests) == 2 and _usage_entries(session) == []
    await session.dispose()


# -- between runs (openai-responses, ``cacheWarming: "idle"``) ------------------------------------


async def test_idle_warming_refreshes_the_responses_cache_between_runs(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("hi")], usage={"input": 1_000, "cacheRead": 600_000, "output": 3}),
        ScriptedResponse(steps=[TextStep("x")], usage={"cacheRead": 601_000, "output": 1}),
        ScriptedResponse(steps=[TextStep("x")], usage={"cacheRead": 601_000, "output": 1}),
    )
    created = await make_session(
        server,
        project,
        model=_model(server, "openai-responses", GPT_COST),
        settings={"cacheWarming": "idle"},
    )
    session = created.session
    clock = session.cache_warmer.clock = FakeClock()
    await session.prompt("hello")
    assert session.cache_warmer.status["state"] == "scheduled"
    line = describe_warming_status(session.cache_warmer.status, clock.now_ms())
    # 601,000 prompt tokens: 15 % of a $1.35 miss, less a $0.15 read.
    assert line == "next refresh in 4m 30s (saves $0.053 at a 15% chance of a next request, warm)"
    for _ in range(2):
        clock.advance(DUE_MS)
        await session.cache_warmer.wait_idle()
    first, *warms = server.requests
    assert len(warms) == 2
    # One output token asked for; the Responses API's floor is 16.
    assert all(w.json["max_output_tokens"] == 16 and w.json["input"] == first.json["input"] for w in warms)
    assert first.json["max_output_tokens"] != 16
    assert [e["kind"] for e in _usage_entries(session)] == ["cache_warm", "cache_warm"]
    # Disposal stops warming.
    await session.dispose()
    assert session.cache_warmer.status["reason"] == "inactive"


async def test_off_never_warms(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("hi")], usage={"input": 1_000, "cacheRead": 600_000}))
    created = await make_session(
        server, project, model=_model(server, "openai-responses", GPT_COST), settings={"cacheWarming": "off"}
    )
    session = created.session
    clock = session.cache_warmer.clock = FakeClock()
    await session.prompt("hello")
    clock.advance(10 * DUE_MS)
    assert clock.pending == 0 and len(server.requests) == 1
    assert session.cache_warmer.status == {"state": "inactive", "reason": "cache warming disabled"}
    assert describe_warming_status(session.cache_warmer.status, 0) == "off (cache warming disabled)"
    await session.dispose()
