"""Token accounting for compaction decisions.

Provider usage is exact but only exists up to the last response; everything after it is
estimated at four characters per token. Images count as 4,800 characters (≈1,200 tokens).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from pi_harness.ai.jsonutil import dumps_str
from pi_harness.coding.message_content import content_blocks, text_parts, timestamp_ms

IMAGE_CHARS = 4800
CHARS_PER_TOKEN = 4

# Messages as the agent holds them (``AgentMessage``) or as read from a session file.
StoredMessage = Mapping[str, object]


def _number(value: object) -> float:
    return value if isinstance(value, int | float) else 0


def _length(value: object) -> int:
    return len(value) if isinstance(value, str) else 0


def calculate_context_tokens(usage: Mapping[str, object]) -> int:
    """The context size a response reports: ``totalTokens``, else the sum of its parts."""
    total = _number(usage.get("totalTokens"))
    if total:
        return int(total)
    return int(
        _number(usage.get("input"))
        + _number(usage.get("output"))
        + _number(usage.get("cacheRead"))
        + _number(usage.get("cacheWrite"))
    )


def _usage_tokens(message: StoredMessage) -> int:
    usage = message.get("usage")
    return calculate_context_tokens(usage) if isinstance(usage, Mapping) else 0


def _text_chars(content: object, *, images: bool) -> int:
    if isinstance(content, str):
        return len(content)
    chars = sum(len(text) for text in text_parts(content))
    if images:
        chars += IMAGE_CHARS * sum(1 for block in content_blocks(content) if block.get("type") == "image")
    return chars


def _assistant_chars(content: object) -> int:
    chars = 0
    for block in content_blocks(content):
        kind = block.get("type")
        if kind == "text":
            chars += _length(block.get("text"))
        elif kind == "thinking":
            chars += _length(block.get("thinking"))
        elif kind == "toolCall":
            chars += _length(block.get("name")) + len(dumps_str(block.get("arguments") or {}))
    return chars


def estimate_tokens(message: StoredMessage) -> int:
    """``ceil(chars / 4)`` over what the model would read of one message."""
    role = message.get("role")
    if role == "user":
        chars = _text_chars(message.get("content"), images=False)
    elif role == "assistant":
        chars = _assistant_chars(message.get("content"))
    elif role in ("custom", "toolResult"):
        chars = _text_chars(message.get("content"), images=True)
    elif role == "bashExecution":
        chars = _length(message.get("command")) + _length(message.get("output"))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _length(message.get("summary"))
    else:
        chars = 0
    return math.ceil(chars / CHARS_PER_TOKEN)


def has_usable_usage(message: StoredMessage) -> bool:
    """An assistant response whose usage describes a real request (not aborted, not failed)."""
    return (
        message.get("role") == "assistant"
        and message.get("stopReason") not in ("aborted", "error")
        and bool(message.get("usage"))
    )


@dataclass(frozen=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[StoredMessage]) -> ContextEstimate:
    """Usage of the last valid response plus estimates for the messages after it."""
    last_usage_index: int | None = None
    for index in range(len(messages) - 1, -1, -1):
        if has_usable_usage(messages[index]):
            last_usage_index = index
            break
    if last_usage_index is None:
        total = sum(estimate_tokens(m) for m in messages)
        return ContextEstimate(total, 0, total, None)
    usage_tokens = _usage_tokens(messages[last_usage_index])
    trailing = sum(estimate_tokens(m) for m in messages[last_usage_index + 1 :])
    return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, last_usage_index)


class ContextUsage(TypedDict):
    tokens: int | None
    contextWindow: int
    percent: float | None


def context_usage(
    messages: Sequence[StoredMessage],
    context_window: int | None,
    *,
    compacted_without_new_usage: bool = False,
) -> ContextUsage | None:
    """The current context size shown to users.

    ``None`` without a usable window. ``compacted_without_new_usage`` (the branch has a compaction
    and no valid, non-zero assistant usage after it) gives unknown tokens until the next response.
    """
    if not context_window or context_window <= 0:
        return None
    if compacted_without_new_usage:
        return {"tokens": None, "contextWindow": context_window, "percent": None}
    tokens = estimate_context_tokens(messages).tokens
    return {"tokens": tokens, "contextWindow": context_window, "percent": tokens / context_window * 100}


def session_context_usage(messages: Sequence[StoredMessage], context_window: int | None) -> ContextUsage | None:
    """``getContextUsage`` over a rebuilt context that may start with a compaction summary (after
    the compaction's system checkpoint).

    Right after a compaction the size is unknown until a response newer than the compaction
    reports non-zero usage (kept messages carry usage from before the compaction).
    """
    compacted_at: int | None = None
    first = next((m for m in messages if m.get("role") != "system"), None)
    if first is not None and first.get("role") == "compactionSummary":
        compacted_at = timestamp_ms(first)
    fresh = compacted_at is None or any(
        has_usable_usage(m) and timestamp_ms(m) > compacted_at and _usage_tokens(m) > 0 for m in messages
    )
    return context_usage(messages, context_window, compacted_without_new_usage=not fresh)
