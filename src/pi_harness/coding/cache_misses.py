"""Prompt-cache misses: prompt tokens a response paid for again although the request before it
had already sent them (``showCacheMissNotices``).

A response's miss is the part of the previous request's prompt that did not come back as a
cache read. Misses of 1,024 tokens or fewer are the cache's granularity, not a miss; a
compaction or branch summary starts afresh (the context really changed); a ``cache_warm`` usage
entry counts as the previous request. A provider that never reported cache activity has no
misses. The notice says what is known: a model switch, or an idle gap longer than the
five-minute lifetime.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

NOISE_FLOOR_TOKENS = 1024
CACHE_TTL_MS = 5 * 60_000
NOTICE_MIN_TOKENS = 20_000
NOTICE_MIN_COST = 0.10

# ``(provider, model) -> $ per million cache-read tokens`` (0 when unknown).
CacheReadPrice = Callable[[str, str], float]


@dataclass(frozen=True)
class CacheMiss:
    missed_tokens: int
    missed_cost: float
    idle_ms: float
    model_changed: bool


@dataclass(frozen=True)
class _Previous:
    prompt_tokens: int
    model_key: str
    timestamp_ms: float
    reported_cache: bool


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _tokens(usage: Mapping[str, object], name: str) -> int:
    return int(_num(usage.get(name)))


def _iso_ms(value: object) -> float:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return 0.0


def _prompt(usage: Mapping[str, object]) -> int:
    return _tokens(usage, "input") + _tokens(usage, "cacheRead") + _tokens(usage, "cacheWrite")


def _miss(previous: _Previous | None, message: Mapping[str, object], read_price: CacheReadPrice) -> CacheMiss | None:
    usage = message.get("usage")
    if previous is None or not isinstance(usage, Mapping):
        return None
    prompt = _prompt(usage)
    cached = _tokens(usage, "cacheRead") + _tokens(usage, "cacheWrite")
    # No cache activity at all counts only where the provider has reported some before.
    if prompt <= 0 or (cached == 0 and not previous.reported_cache):
        return None
    missed = min(previous.prompt_tokens, prompt) - _tokens(usage, "cacheRead")
    if missed <= NOISE_FLOOR_TOKENS:
        return None
    raw_cost = usage.get("cost")
    cost: Mapping[str, object] = raw_cost if isinstance(raw_cost, Mapping) else {}
    # The missed tokens were paid at this response's own input/cache-write rate instead of the
    # cache-read rate.
    paid = _tokens(usage, "input") + _tokens(usage, "cacheWrite")
    paid_rate = (_num(cost.get("input")) + _num(cost.get("cacheWrite"))) / paid if paid else 0.0
    read = _tokens(usage, "cacheRead")
    if read:
        read_rate = _num(cost.get("cacheRead")) / read
    else:
        read_rate = read_price(str(message.get("provider")), str(message.get("model"))) / 1_000_000
    key = f"{message.get('provider')}/{message.get('model')}"
    return CacheMiss(
        missed,
        missed * max(0.0, paid_rate - read_rate),
        max(0.0, _num(message.get("timestamp")) - previous.timestamp_ms),
        key != previous.model_key,
    )


def _scan(
    entries: Sequence[Mapping[str, object]],
    read_price: CacheReadPrice,
    stop_at: Mapping[str, object] | None,
    on_miss: Callable[[CacheMiss], None] | None = None,
) -> _Previous | None:
    previous: _Previous | None = None
    for entry in entries:
        kind = entry.get("type")
        if kind in ("compaction", "branch_summary"):
            previous = None
        elif kind == "usage" and entry.get("kind") == "cache_warm":
            usage = entry.get("usage")
            if isinstance(usage, Mapping) and _prompt(usage) > 0:
                key = f"{entry.get('provider')}/{entry.get('model')}"
                previous = _Previous(_prompt(usage), key, _iso_ms(entry.get("timestamp")), True)
        elif kind == "message":
            message = entry.get("message")
            if not isinstance(message, Mapping) or message.get("role") != "assistant":
                continue
            if stop_at is not None and _same(message, stop_at):
                break
            if on_miss is not None and (miss := _miss(previous, message, read_price)) is not None:
                on_miss(miss)
            usage = message.get("usage")
            if isinstance(usage, Mapping) and _prompt(usage) > 0:
                cached = _tokens(usage, "cacheRead") + _tokens(usage, "cacheWrite")
                reported = (previous.reported_cache if previous else False) or cached > 0
                key = f"{message.get('provider')}/{message.get('model')}"
                previous = _Previous(_prompt(usage), key, _num(message.get("timestamp")), reported)
    return previous


def _same(a: Mapping[str, object], b: Mapping[str, object]) -> bool:
    return a is b or (a.get("timestamp") == b.get("timestamp") and a.get("responseId") == b.get("responseId"))


def detect_cache_miss(
    entries: Sequence[Mapping[str, object]], message: Mapping[str, object], read_price: CacheReadPrice
) -> CacheMiss | None:
    """The miss ``message`` paid for, judged against the entries before it (``message`` itself
    may already be stored: it is where the scan stops)."""
    return _miss(_scan(entries, read_price, message), message, read_price)


@dataclass
class CacheWaste:
    """Every miss of a session added up (``/session``'s "Cache Re-billed")."""

    missed_tokens: int = 0
    missed_cost: float = 0.0
    miss_count: int = 0

    def add(self, miss: CacheMiss) -> None:
        self.missed_tokens += miss.missed_tokens
        self.missed_cost += miss.missed_cost
        self.miss_count += 1


def cache_waste(entries: Sequence[Mapping[str, object]], read_price: CacheReadPrice) -> CacheWaste:
    waste = CacheWaste()
    _scan(entries, read_price, None, waste.add)
    return waste


def describe_cache_miss(miss: CacheMiss, format_tokens: Callable[[int], str]) -> str | None:
    """The notice for a miss worth mentioning (20k tokens or $0.10), else ``None``."""
    if miss.missed_tokens < NOTICE_MIN_TOKENS and miss.missed_cost < NOTICE_MIN_COST:
        return None
    cost = f" (~${miss.missed_cost:.2f})" if miss.missed_cost >= 0.01 else ""
    if miss.model_changed:
        cause = " after switching models"
    elif miss.idle_ms >= CACHE_TTL_MS:
        cause = f" after {round(miss.idle_ms / 60_000)} minutes idle"
    else:
        cause = ""
    return f"Prompt cache missed{cause}: {format_tokens(miss.missed_tokens)} tokens paid again{cost}"


__all__ = ["CacheMiss", "CacheWaste", "cache_waste", "describe_cache_miss", "detect_cache_miss"]
