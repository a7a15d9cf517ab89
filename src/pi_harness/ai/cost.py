"""Usage pricing: token counts times the model's per-million prices."""

from __future__ import annotations

from pi_harness.ai.types import Model, Usage

_PER_TOKEN = 1 / 1_000_000


def calculate_cost(model: Model, usage: Usage) -> Usage:
    """Fill ``usage["cost"]`` from the model's per-million prices; mutates and returns ``usage``.

    Tokens written with a 1-hour TTL (``cacheWrite1h``, a subset of ``cacheWrite``) are priced at
    ``cost.cacheWrite1h`` when the model declares that rate.
    """
    prices = model["cost"]
    cache_write = prices["cacheWrite"] * usage["cacheWrite"]
    one_hour = usage.get("cacheWrite1h", 0)
    rate_1h = prices.get("cacheWrite1h")
    if one_hour and rate_1h is not None:
        one_hour = min(one_hour, usage["cacheWrite"])
        cache_write = prices["cacheWrite"] * (usage["cacheWrite"] - one_hour) + rate_1h * one_hour
    cost = usage["cost"]
    cost["input"] = prices["input"] * usage["input"] * _PER_TOKEN
    cost["output"] = prices["output"] * usage["output"] * _PER_TOKEN
    cost["cacheRead"] = prices["cacheRead"] * usage["cacheRead"] * _PER_TOKEN
    cost["cacheWrite"] = cache_write * _PER_TOKEN
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return usage


def finalize_usage(model: Model, usage: Usage) -> Usage:
    """Recompute ``totalTokens`` and the cost after a provider updated the token counts."""
    usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    return calculate_cost(model, usage)
