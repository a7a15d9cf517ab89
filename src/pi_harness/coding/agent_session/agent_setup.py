"""The ``Agent`` a session runs on: its options from settings, then the session's hooks.

The agent is made first, from settings alone, because the session's parts work on it; once the
parts exist their hooks are installed through the agent's setters (never per request: what one
request needs is returned by ``prepare_request``).

Settings wired here: ``steeringMode``, ``followUpMode``, ``transport``, ``thinkingBudgets``,
``httpIdleTimeoutMs``, ``retry.provider.maxRetries``/``maxRetryDelayMs`` (provider-level retry,
off by default) and the run budgets ``agent.maxTurns``/``agent.maxTotalTokens``/``agent.maxCost``
(beyond Pi, off by default).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pi_harness.agent import Agent, AgentOptions
from pi_harness.agent.hooks import StreamFn
from pi_harness.agent.options import QueueMode, Transport
from pi_harness.agent.types import AgentMessage
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import Model, ThinkingLevel
from pi_harness.coding.agent_session.pump import EventPump
from pi_harness.coding.agent_session.queued_messages import QUEUE_MODES
from pi_harness.coding.agent_session.request_projection import RequestProjection
from pi_harness.coding.agent_session.tool_hooks import ToolHooks
from pi_harness.coding.agent_session.turn_hooks import TurnHooks
from pi_harness.coding.config.settings import SettingsManager

TRANSPORTS: tuple[Transport, ...] = ("sse", "websocket", "auto", "websocket-cached")
DEFAULT_IDLE_TIMEOUT_MS = 300_000
DEFAULT_MAX_RETRY_DELAY_MS = 60_000


def non_negative_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def queue_mode(value: object) -> QueueMode:
    for mode in QUEUE_MODES:
        if value == mode:
            return mode
    return "one-at-a-time"


def transport(value: object) -> Transport:
    for name in TRANSPORTS:
        if value == name:
            return name
    return "sse"


def stream_options_from_settings(settings: SettingsManager) -> SimpleStreamOptions:
    """The request options every model request of the session starts from."""
    return SimpleStreamOptions(
        max_retries=non_negative_int(settings.get("retry.provider.maxRetries")) or 0,
        idle_timeout_ms=non_negative_int(settings.get("httpIdleTimeoutMs")) or DEFAULT_IDLE_TIMEOUT_MS,
    )


def agent_from_settings(
    settings: SettingsManager,
    *,
    model: Model | None,
    thinking_level: ThinkingLevel,
    messages: list[AgentMessage],
    session_id: str,
    stream_fn: StreamFn,
    stream_options: SimpleStreamOptions,
) -> Agent:
    """An agent configured from settings, without the session's hooks yet."""
    max_delay = non_negative_int(settings.get("retry.provider.maxRetryDelayMs"))
    budgets = settings.get("thinkingBudgets")
    cost = settings.get("agent.maxCost")
    return Agent(
        AgentOptions(
            initial_state={"model": model, "thinking_level": thinking_level, "messages": messages},
            steering_mode=queue_mode(settings.get("steeringMode")),
            follow_up_mode=queue_mode(settings.get("followUpMode")),
            stream_fn=stream_fn,
            session_id=session_id,
            thinking_budgets=budgets if isinstance(budgets, dict) else None,
            transport=transport(settings.get("transport")),
            max_retry_delay_ms=max_delay if max_delay is not None else DEFAULT_MAX_RETRY_DELAY_MS,
            stream_options=dataclasses.replace(stream_options),
            max_turns=non_negative_int(settings.get("agent.maxTurns")),
            max_total_tokens=non_negative_int(settings.get("agent.maxTotalTokens")),
            max_cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        )
    )


def connect_agent(
    agent: Agent, *, request: RequestProjection, tool_hooks: ToolHooks, turns: TurnHooks, pump: EventPump
) -> Callable[[], None]:
    """Install the session's hooks on ``agent`` and feed its events to the pump; returns the
    function that stops the feed."""
    agent.set_convert_to_llm(request.convert)
    agent.set_get_api_key(request.get_api_key)
    agent.set_on_payload(request.on_payload)
    agent.set_on_response(request.on_response)
    agent.set_prepare_request(request.prepare)
    agent.set_before_tool_call(tool_hooks.before_tool_call)
    agent.set_after_tool_call(tool_hooks.after_tool_call)
    agent.set_finish_turn(pump.finish_turn)
    agent.set_prepare_next_turn(turns.prepare_next_turn)
    agent.set_declare_tool_changes(turns.declare_tool_changes)
    return agent.subscribe(pump)


__all__ = [
    "TRANSPORTS",
    "agent_from_settings",
    "connect_agent",
    "non_negative_int",
    "queue_mode",
    "stream_options_from_settings",
    "transport",
]
