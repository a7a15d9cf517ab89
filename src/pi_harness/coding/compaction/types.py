"""Wire shapes of compaction results and events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Model, Usage

CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]

# ``pi_harness.ai.complete_simple`` or anything with its signature (tests, extension routing).
CompleteFn: TypeAlias = Callable[[Model, Context, SimpleStreamOptions | None], Awaitable[AssistantMessage]]


class CompactionResult(TypedDict):
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    details: NotRequired[Any]
    estimatedTokensAfter: NotRequired[int]
    usage: NotRequired[Usage]


class CompactionStartEvent(TypedDict):
    type: Literal["compaction_start"]
    reason: CompactionReason


class CompactionEndEvent(TypedDict):
    type: Literal["compaction_end"]
    reason: CompactionReason
    result: CompactionResult | None
    aborted: bool
    willRetry: bool
    errorMessage: NotRequired[str]


CompactionEvent: TypeAlias = CompactionStartEvent | CompactionEndEvent


def add_usage(total: Usage | None, extra: Usage | None) -> Usage | None:
    """Sum two usages (either may be missing)."""
    if total is None:
        return extra
    if extra is None:
        return total
    a: dict[str, Any] = dict(total)
    b: dict[str, Any] = dict(extra)
    out: dict[str, Any] = {}
    for key in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"):
        out[key] = int(a.get(key) or 0) + int(b.get(key) or 0)
    for key in ("cacheWrite1h", "reasoning"):
        if key in a or key in b:
            out[key] = int(a.get(key) or 0) + int(b.get(key) or 0)
    a_cost: dict[str, Any] = dict(a.get("cost") or {})
    b_cost: dict[str, Any] = dict(b.get("cost") or {})
    out["cost"] = {
        k: float(a_cost.get(k) or 0) + float(b_cost.get(k) or 0)
        for k in ("input", "output", "cacheRead", "cacheWrite", "total")
    }
    return out  # type: ignore[return-value]
