"""Usage pricing."""

from __future__ import annotations

import pytest

from pi_harness.ai.cost import calculate_cost, finalize_usage
from pi_harness.ai.types import Model, ModelCost, Usage, empty_usage


def model(cost: ModelCost) -> Model:
    return {
        "id": "m",
        "name": "m",
        "api": "openai-completions",
        "provider": "p",
        "baseUrl": "http://127.0.0.1",
        "reasoning": False,
        "input": ["text"],
        "cost": cost,
        "contextWindow": 1000,
        "maxTokens": 100,
    }


def usage(input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> Usage:
    u = empty_usage()
    u["input"], u["output"], u["cacheRead"], u["cacheWrite"] = input, output, cache_read, cache_write
    return u


PRICES: ModelCost = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}


def test_cost_is_price_per_million_times_tokens() -> None:
    u = usage(input=1_000_000, output=2000, cache_read=500_000, cache_write=10_000)
    returned = calculate_cost(model(PRICES), u)
    assert returned is u  # mutates and returns the usage
    cost = u["cost"]
    assert cost["input"] == pytest.approx(3.0)
    assert cost["output"] == pytest.approx(0.03)
    assert cost["cacheRead"] == pytest.approx(0.15)
    assert cost["cacheWrite"] == pytest.approx(0.0375)
    assert cost["total"] == pytest.approx(3.0 + 0.03 + 0.15 + 0.0375)


def test_zero_usage_costs_nothing() -> None:
    u = calculate_cost(model(PRICES), usage())
    assert u["cost"] == {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}


def test_one_hour_cache_writes_priced_at_their_own_rate() -> None:
    prices: ModelCost = {**PRICES, "cacheWrite1h": 6.0}
    u = usage(cache_write=1_000_000)
    u["cacheWrite1h"] = 400_000  # a subset of cacheWrite
    calculate_cost(model(prices), u)
    assert u["cost"]["cacheWrite"] == pytest.approx(0.6 * 3.75 + 0.4 * 6.0)
    assert u["cost"]["total"] == pytest.approx(u["cost"]["cacheWrite"])


def test_one_hour_tokens_never_exceed_the_cache_writes() -> None:
    prices: ModelCost = {**PRICES, "cacheWrite1h": 6.0}
    u = usage(cache_write=100)
    u["cacheWrite1h"] = 1000
    calculate_cost(model(prices), u)
    assert u["cost"]["cacheWrite"] == pytest.approx(100 * 6.0 / 1_000_000)


def test_one_hour_tokens_without_a_1h_rate_use_the_normal_write_rate() -> None:
    u = usage(cache_write=1_000_000)
    u["cacheWrite1h"] = 500_000
    calculate_cost(model(PRICES), u)
    assert u["cost"]["cacheWrite"] == pytest.approx(3.75)


def test_finalize_recomputes_total_tokens_and_cost() -> None:
    u = usage(input=10, output=20, cache_read=30, cache_write=40)
    u["totalTokens"] = 999
    u["reasoning"] = 5  # a subset of output, not added again
    finalize_usage(model(PRICES), u)
    assert u["totalTokens"] == 100
    assert u["cost"]["total"] > 0
