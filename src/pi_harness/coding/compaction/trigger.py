"""When to compact automatically.

``should_compact`` is the threshold rule; ``compaction_reason`` applies the guards (compaction on,
a model, the response not aborted, from the current model and newer than the latest compaction)
to the assistant message a check point looks at and says whether to compact, and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.types import AssistantMessage, Model
from pi_harness.coding.compaction.estimate import calculate_context_tokens, estimate_context_tokens
from pi_harness.coding.compaction.settings import CompactionSettings
from pi_harness.coding.message_content import timestamp_ms
from pi_harness.coding.session_store.entries import CompactionEntry
from pi_harness.coding.session_store.ids import iso_to_ms

AutoCompactionReason = Literal["threshold", "overflow"]


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """``enabled`` and ``contextTokens > contextWindow - reserveTokens`` (strictly greater)."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens


def _is_current_model(message: AssistantMessage, model: Model) -> bool:
    return message.get("provider") == model["provider"] and message.get("model") == model["id"]


def is_recoverable_length_stop(message: AssistantMessage, requested_max_tokens: int | None) -> bool:
    """(1.4.0) A ``length`` stop below the requested output limit: the input left no room."""
    if message.get("stopReason") != "length" or not requested_max_tokens:
        return False
    return int((message.get("usage") or {}).get("output") or 0) < requested_max_tokens


def compaction_reason(
    assistant: AssistantMessage,
    *,
    settings: CompactionSettings,
    model: Model | None,
    latest_compaction: CompactionEntry | None = None,
    messages: Sequence[Mapping[str, object]] = (),
    before_prompt: bool = False,
    requested_max_tokens: int | None = None,
) -> AutoCompactionReason | None:
    """Whether the check point that sees ``assistant`` should compact.

    ``before_prompt`` marks check point 1 (aborted responses count there). ``messages`` are the
    agent's current messages, used to estimate the context when ``assistant`` failed and has no
    usable usage. ``latest_compaction`` is the newest compaction on the active branch.
    """
    if not settings.enabled or model is None:
        return None
    stop = assistant.get("stopReason")
    if stop == "aborted" and not before_prompt:
        return None
    compacted_at = iso_to_ms(latest_compaction.get("timestamp")) if latest_compaction else None
    if compacted_at is not None and int(assistant.get("timestamp") or 0) <= compacted_at:
        return None  # stale usage or errors from before the compaction must not trigger again
    context_window = int(model.get("contextWindow") or 0)
    if _is_current_model(assistant, model) and (
        is_context_overflow(assistant, context_window or None)
        or is_recoverable_length_stop(assistant, requested_max_tokens)
    ):
        return "overflow"
    if context_window <= 0:
        return None
    if stop == "error":
        estimate = estimate_context_tokens(messages)
        if estimate.last_usage_index is None:
            return None
        source = messages[estimate.last_usage_index]
        if compacted_at is not None and timestamp_ms(source) <= compacted_at:
            return None
        tokens = estimate.tokens
    else:
        usage = assistant.get("usage")
        if not usage:
            return None
        tokens = calculate_context_tokens(usage)
    return "threshold" if should_compact(tokens, context_window, settings) else None
