"""Token accounting for compaction decisions.

Provider usage is exact but only exists up to the last response; everything after it is
estimated at four characters per token. Images count as 4,800 characters (≈1,200 tokens).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.types import Usage

IMAGE_CHARS = 4800
CHARS_PER_TOKEN = 4


def calculate_context_tokens(usage: Usage | dict[str, Any]) -> int:
    """The context size a response reports: ``totalTokens``, else the sum of its parts."""
    total = usage.get("totalTokens") or 0
    if total:
        return int(total)
    return int(
        (usage.get("input") or 0)
        + (usage.get("output") or 0)
        + (usage.get("cacheRead") or 0)
        + (usage.get("cacheWrite") or 0)
    )


def _text_chars(content: Any, *, images: bool) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for block in content or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            chars += len(block.get("text") or "")
        elif kind == "image" and images:
            chars += IMAGE_CHARS
    return chars


def _assistant_chars(content: Any) -> int:
    chars = 0
    for block in content or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            chars += len(block.get("text") or "")
        elif kind == "thinking":
            chars += len(block.get("thinking") or "")
        elif kind == "toolCall":
            chars += len(block.get("name") or "") + len(dumps_str(block.get("arguments") or {}))
    return chars


def estimate_tokens(message: AgentMessage | dict[str, Any]) -> int:
    """``ceil(chars / 4)`` over what the model would read of one message."""
    message = cast(dict[str, Any], message)
    role = message.get("role")
    if role == "user":
        chars = _text_chars(message.get("content"), images=False)
    elif role == "assistant":
        chars = _assistant_chars(message.get("content"))
    elif role in ("custom", "toolResult"):
        chars = _text_chars(message.get("content"), images=True)
    elif role == "bashExecution":
        chars = len(message.get("command") or "") + len(message.get("output") or "")
    elif role in ("branchSummary", "compactionSummary"):
        chars = len(message.get("summary") or "")
    else:
        chars = 0
    return math.ceil(chars / CHARS_PER_TOKEN)


def has_usable_usage(message: AgentMessage | dict[str, Any]) -> bool:
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


def estimate_context_tokens(messages: Sequence[AgentMessage | dict[str, Any]]) -> ContextEstimate:
    """Usage of the last valid response plus estimates for the messages after it."""
    last_usage_index: int | None = None
    for index in range(len(messages) - 1, -1, -1):
        if has_usable_usage(messages[index]):
            last_usage_index = index
            break
    if last_usage_index is None:
        total = sum(estimate_tokens(m) for m in messages)
        return ContextEstimate(total, 0, total, None)
    usage_tokens = calculate_context_tokens(messages[last_usage_index]["usage"])  # type: ignore[typeddict-item]
    trailing = sum(estimate_tokens(m) for m in messages[last_usage_index + 1 :])
    return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, last_usage_index)


class ContextUsage(TypedDict):
    tokens: int | None
    contextWindow: int
    percent: float | None


def context_usage(
    messages: Sequence[AgentMessage | dict[str, Any]],
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


def session_context_usage(
    messages: Sequence[AgentMessage | dict[str, Any]], context_window: int | None
) -> ContextUsage | None:
    """``getContextUsage`` over a rebuilt context whose first message may be a compaction summary.

    Right after a compaction the size is unknown until a response newer than the compaction
    reports non-zero usage (kept messages carry usage from before the compaction).
    """
    compacted_at: int | None = None
    if messages and messages[0].get("role") == "compactionSummary":
        compacted_at = int(messages[0].get("timestamp") or 0)
    fresh = compacted_at is None or any(
        has_usable_usage(m)
        and int(m.get("timestamp") or 0) > compacted_at
        and calculate_context_tokens(cast(dict[str, Any], m)["usage"]) > 0
        for m in messages
    )
    return context_usage(messages, context_window, compacted_without_new_usage=not fresh)
