"""Prompt-cache miss detection over session entries (``showCacheMissNotices``)."""

from __future__ import annotations

from typing import Any

from pi_harness.coding.cache_misses import describe_cache_miss, detect_cache_miss

PRICES = {"input": 3.0, "cacheRead": 0.3, "cacheWrite": 3.75}  # $ per million


def _answer(ts: int, *, fresh: int = 0, read: int = 0, written: int = 0, model: str = "m") -> dict[str, Any]:
    cost = {k: n * PRICES[k] / 1e6 for k, n in (("input", fresh), ("cacheRead", read), ("cacheWrite", written))}
    usage = {"input": fresh, "output": 1, "cacheRead": read, "cacheWrite": written, "cost": cost}
    return {"role": "assistant", "provider": "p", "model": model, "timestamp": ts, "usage": usage}


def _entries(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "message", "message": m} for m in messages]


def _price(_provider: str, _model: str) -> float:
    return PRICES["cacheRead"]


def test_a_prompt_paid_again_is_a_miss() -> None:
    first = _answer(0, written=50_000)
    second = _answer(60_000, written=51_000)  # nothing came back from the cache
    miss = detect_cache_miss(_entries(first, second), second, _price)
    assert miss is not None and miss.missed_tokens == 50_000 and not miss.model_changed
    assert abs(miss.missed_cost - 50_000 * (3.75 - 0.3) / 1e6) < 1e-9
    assert describe_cache_miss(miss, lambda n: f"{n // 1000}k") == "Prompt cache missed: 50k tokens paid again (~$0.17)"


def test_hits_noise_switches_and_idle_gaps() -> None:
    first = _answer(0, written=50_000)
    hit = _answer(1_000, read=49_500, written=600)  # 500 missed: below the 1,024-token floor
    assert detect_cache_miss(_entries(first, hit), hit, _price) is None
    switched = _answer(2_000, fresh=50_000, model="other")
    miss = detect_cache_miss(_entries(first, switched), switched, _price)
    assert miss is not None and miss.model_changed
    assert describe_cache_miss(miss, str).startswith("Prompt cache missed after switching models")
    idle = _answer(10 * 60_000, written=50_000)
    miss = detect_cache_miss(_entries(first, idle), idle, _price)
    assert miss is not None and describe_cache_miss(miss, str).startswith("Prompt cache missed after 10 minutes idle")


def test_compaction_and_providers_without_caching_are_no_miss_and_warming_counts() -> None:
    first = _answer(0, written=50_000)
    later = _answer(1_000, written=50_000)
    compacted = [*_entries(first), {"type": "compaction"}, *_entries(later)]
    assert detect_cache_miss(compacted, later, _price) is None
    plain = [_answer(0, fresh=50_000), _answer(1_000, fresh=50_000)]
    assert detect_cache_miss(_entries(*plain), plain[1], _price) is None
    # A refresh after the first answer is the request the next one is compared with.
    warm = {"type": "usage", "kind": "cache_warm", "provider": "p", "model": "m",
            "timestamp": "1970-01-01T00:00:01.000Z", "usage": {"input": 0, "cacheRead": 80_000, "cacheWrite": 0}}  # fmt: skip
    after = _answer(2_000, read=50_000, written=30_000)
    miss = detect_cache_miss([*_entries(first), warm, *_entries(after)], after, _price)
    assert miss is not None and miss.missed_tokens == 30_000
