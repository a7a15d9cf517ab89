"""Retrying a summary request after a transient provider error (the ``retry.*`` settings).

A summary is one model call; a dropped stream or an overload should not cost the whole
compaction, so, as Pi 1.4.0 does, the call is repeated with the session's backoff
(``baseDelayMs * 2^(attempt-1)``, capped at ``maxAgentDelayMs``) up to ``maxRetries`` times.
Deterministic errors (a bad request, a quota) and aborts come back at once. The session is told
through three events: ``summarization_retry_scheduled {attempt, maxAttempts, delayMs,
errorMessage}`` before each wait, ``summarization_retry_attempt_start {source, reason}`` when the
next attempt starts, and ``summarization_retry_finished`` once at the end of a sequence that
retried at least once.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import cast

from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.retry import agent_retry_delay_ms, is_retryable_error
from pi_harness.ai.types import AssistantMessage, Context, Model
from pi_harness.coding.compaction.types import CompleteFn

RetryEventSink = Callable[[Mapping[str, object]], "Awaitable[None] | None"]


@dataclass(frozen=True)
class SummaryRetryPolicy:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60_000


async def _emit(sink: RetryEventSink | None, event: Mapping[str, object]) -> None:
    if sink is not None:
        outcome = sink(event)
        if inspect.isawaitable(outcome):
            await outcome


def retrying(
    complete_fn: CompleteFn,
    policy: SummaryRetryPolicy | None,
    emit: RetryEventSink | None,
    source: Mapping[str, object],
) -> CompleteFn:
    """``complete_fn`` repeated on transient errors under ``policy`` (``None``/disabled: once)."""
    if policy is None or not policy.enabled or policy.max_retries <= 0:
        return complete_fn

    async def complete(model: Model, context: Context, options: SimpleStreamOptions | None) -> AssistantMessage:
        signal = options.signal if options is not None else None
        attempt = 0
        while True:
            response = await complete_fn(model, context, options)
            stop = response.get("stopReason")
            final = stop != "error" or attempt >= policy.max_retries or not is_retryable_error(response)
            if final:
                if attempt:
                    await _emit(emit, {"type": "summarization_retry_finished"})
                return response
            attempt += 1
            delay = agent_retry_delay_ms(attempt, policy.base_delay_ms, policy.max_delay_ms)
            scheduled = {
                "type": "summarization_retry_scheduled",
                "attempt": attempt,
                "maxAttempts": policy.max_retries,
                "delayMs": delay,
                "errorMessage": response.get("errorMessage") or "Unknown error",
            }
            await _emit(emit, scheduled)
            completed = await signal.sleep(delay / 1000) if signal is not None else await _sleep(delay)
            if not completed:
                # Aborted while waiting: the same shape as a stream the abort cut off.
                await _emit(emit, {"type": "summarization_retry_finished"})
                aborted = {key: value for key, value in response.items() if key != "errorMessage"}
                return cast(AssistantMessage, {**aborted, "stopReason": "aborted"})
            await _emit(emit, {"type": "summarization_retry_attempt_start", **source})

    return complete


async def _sleep(milliseconds: int) -> bool:
    await asyncio.sleep(milliseconds / 1000)
    return True


__all__ = ["SummaryRetryPolicy", "retrying"]
