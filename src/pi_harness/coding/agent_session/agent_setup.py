"""The ``Agent`` a session runs on: its options from settings, then the session's hooks.

The agent is made first, from settings alone, because the session's parts work on it; once the
parts exist their hooks are installed through the agent's setters (never per request: what one
request needs is returned by ``prepare_request``).

Settings wired here: ``steeringMode``, ``followUpMode``, ``transport``, ``thinkingBudgets``,
``httpIdleTimeoutMs``, ``retry.provider.timeoutMs`` (the wait for a response's headers),
``retry.provider.maxRetries``/``maxRetryDelayMs`` (provider-level retry, off by default) and the run
budgets ``agent.maxTurns``/``agent.maxTotalTokens``/``agent.maxCost`` (beyond Pi, off by default).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pi_harness.agent import Agent, AgentOptions
from pi_harness.agent.hooks import StreamFn
from pi_harness.agent.types import AgentMessage
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import Model, ThinkingLevel
from pi_harness.coding.agent_session.pump import EventPump
from pi_harness.coding.agent_session.request_projection import RequestProjection
from pi_harness.coding.agent_session.tool_hooks import ToolHooks
from pi_harness.coding.agent_session.turn_hooks import TurnHooks
from pi_harness.coding.config.settings import SettingsManager


def stream_options_from_settings(settings: SettingsManager) -> SimpleStreamOptions:
    """The request options every model request of the session starts from."""
    values = settings.values
    return SimpleStreamOptions(
        max_retries=values.retry.provider.max_retries,
        idle_timeout_ms=values.http_idle_timeout_ms,  # 0: no idle timeout, as in Pi
        websocket_connect_timeout_ms=values.websocket_connect_timeout_ms,
        timeout_ms=values.retry.provider.timeout_ms,  # unset: the idle timeout also bounds the wait
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
    values = settings.values
    return Agent(
        AgentOptions(
            initial_state={"model": model, "thinking_level": thinking_level, "messages": messages},
            steering_mode=values.steering_mode,
            follow_up_mode=values.follow_up_mode,
            stream_fn=stream_fn,
            session_id=session_id,
            # Only the budgets a user set: Gemini's dynamic thinking (-1) is the default there,
            # not the built-in budget of the level (budget-based providers fall back to those).
            thinking_budgets={
                level: budget
                for level, budget in values.thinking_budgets.items()
                if settings.is_set(f"thinkingBudgets.{level}")
            },
            transport=values.transport,
            max_retry_delay_ms=values.retry.provider.max_retry_delay_ms,
            stream_options=dataclasses.replace(stream_options),
            max_turns=values.agent.max_turns,
            max_total_tokens=values.agent.max_total_tokens,
            max_cost=values.agent.max_cost,
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
    return agent.subscribe(pump.listen)


__all__ = ["agent_from_settings", "connect_agent", "stream_options_from_settings"]
