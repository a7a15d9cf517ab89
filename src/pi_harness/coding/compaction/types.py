"""Wire shapes of compaction results and events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Literal, NotRequired, TypeAlias, TypedDict, cast

from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Model, Usage

CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]

# ``pi_harness.ai.complete_simple`` or anything with its signature (tests, extension routing).
CompleteFn: TypeAlias = Callable[[Model, Context, SimpleStreamOptions | None], Awaitable[AssistantMessage]]


class CompactionResult(TypedDict):
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    details: NotRequired[object]
    estimatedTokensAfter: NotRequired[int]
    usage: NotRequired[Usage]


class CompactionStartEvent(TypedDict):
    type: Literal["compaction_start"]
    reason: CompactionReason


class CompactionEndEvent(TypedDict):
    type: Literal["compaction_end"]
    reason: CompactionReason
    result: NotRequired[CompactionResult]
    aborted: bool
    willRetry: bool
    errorMessage: NotRequired[str]


CompactionEvent: TypeAlias = CompactionStartEvent | CompactionEndEvent


_TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
_OPTIONAL_TOKEN_KEYS = ("cacheWrite1h", "reasoning")
_COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")


def _number(value: object) -> float:
    return value if isinstance(value, int | float) else 0


def add_usage(total: Usage | None, extra: Usage | None) -> Usage | None:
    """Sum two usages (either may be missing)."""
    if total is None:
        return extra
    if extra is None:
        return total
    a: Mapping[str, object] = total
    b: Mapping[str, object] = extra

    def tokens(key: str) -> int:
        return int(_number(a.get(key))) + int(_number(b.get(key)))

    a_cost, b_cost = a.get("cost"), b.get("cost")
    costs_a: Mapping[str, object] = a_cost if isinstance(a_cost, Mapping) else {}
    costs_b: Mapping[str, object] = b_cost if isinstance(b_cost, Mapping) else {}
    # Built key by key so the stored usage keeps the key order of the usages it sums.
    out: dict[str, object] = {key: tokens(key) for key in _TOKEN_KEYS}
    for key in _OPTIONAL_TOKEN_KEYS:
        if key in a or key in b:
            out[key] = tokens(key)
    out["cost"] = {key: float(_number(costs_a.get(key))) + float(_number(costs_b.get(key))) for key in _COST_KEYS}
    return cast(Usage, out)  # every key of Usage, and the optional ones either usage had
