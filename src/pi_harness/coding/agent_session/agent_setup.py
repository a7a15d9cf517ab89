"""The ``Agent`` a session runs on: its options from settings and the session's hooks.

Settings wired here: ``steeringMode``, ``followUpMode``, ``transport``, ``thinkingBudgets``,
``httpIdleTimeoutMs``, ``retry.provider.maxRetries``/``maxRetryDelayMs`` (provider-level retry,
off by default) and the run budgets ``agent.maxTurns``/``agent.maxTotalTokens``/``agent.maxCost``
(beyond Pi, off by default).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, cast

from pi_harness.agent import AgentOptions
from pi_harness.agent.options import QueueMode, Transport
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import Model, ThinkingLevel
from pi_harness.coding.config.settings import SettingsManager

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession

QUEUE_MODES = ("all", "one-at-a-time")
TRANSPORTS = ("sse", "websocket", "auto", "websocket-cached")
DEFAULT_IDLE_TIMEOUT_MS = 300_000
DEFAULT_MAX_RETRY_DELAY_MS = 60_000


def non_negative_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def queue_mode(value: Any) -> QueueMode:
    return cast(QueueMode, value if value in QUEUE_MODES else "one-at-a-time")


def stream_options_from_settings(settings: SettingsManager) -> SimpleStreamOptions:
    """The request options every model request of the session starts from."""
    return SimpleStreamOptions(
        max_retries=non_negative_int(settings.get("retry.provider.maxRetries")) or 0,
        idle_timeout_ms=non_negative_int(settings.get("httpIdleTimeoutMs")) or DEFAULT_IDLE_TIMEOUT_MS,
    )


def agent_options(session: AgentSession, model: Model | None, thinking_level: ThinkingLevel) -> AgentOptions:
    settings = session.settings
    transport = settings.get("transport")
    max_delay = non_negative_int(settings.get("retry.provider.maxRetryDelayMs"))
    budgets = settings.get("thinkingBudgets")
    cost = settings.get("agent.maxCost")
    return AgentOptions(
        initial_state={
            "model": model,
            "thinking_level": thinking_level,
            "tools": session.tool_registry.active_tools(),
            "messages": list(session.session_manager.build_session_context().messages),
        },
        convert_to_llm=session.request.convert,
        steering_mode=queue_mode(settings.get("steeringMode")),
        follow_up_mode=queue_mode(settings.get("followUpMode")),
        stream_fn=session.stream_fn,
        session_id=session.session_manager.get_session_id(),
        get_api_key=session.request.get_api_key,
        on_payload=session.request.on_payload,
        on_response=session.request.on_response,
        thinking_budgets=budgets if isinstance(budgets, dict) else None,
        transport=cast(Transport, transport if transport in TRANSPORTS else "sse"),
        max_retry_delay_ms=max_delay if max_delay is not None else DEFAULT_MAX_RETRY_DELAY_MS,
        stream_options=dataclasses.replace(session.base_stream_options),
        before_tool_call=session.tool_hooks.before_tool_call,
        after_tool_call=session.tool_hooks.after_tool_call,
        prepare_request=session.request.prepare,
        finish_turn=session.pump.finish_turn,
        prepare_next_turn=session.prepare_next_turn,
        declare_tool_changes=session.declare_tool_changes,
        max_turns=non_negative_int(settings.get("agent.maxTurns")),
        max_total_tokens=non_negative_int(settings.get("agent.maxTotalTokens")),
        max_cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )


__all__ = ["QUEUE_MODES", "agent_options", "non_negative_int", "queue_mode", "stream_options_from_settings"]
