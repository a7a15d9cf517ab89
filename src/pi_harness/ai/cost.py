"""Usage pricing: token counts times the model's per-million prices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from pi_harness.ai.types import Model, ModelCost, ModelCostTier, Usage

_PER_TOKEN = 1 / 1_000_000


def tier_rates(model: Model, usage: Usage) -> ModelCost | ModelCostTier:
    """The rates of the whole request: the model's, or those of the tier with the highest
    ``inputTokensAbove`` that the request's input (fresh, cached and cache-written) exceeds."""
    prices = model["cost"]
    input_tokens = usage["input"] + usage["cacheRead"] + usage["cacheWrite"]
    best: ModelCost | ModelCostTier = prices
    threshold = -1.0
    tiers = cast(Mapping[str, object], prices).get("tiers")
    for tier in cast(list[ModelCostTier], tiers if isinstance(tiers, list) else []):
        if input_tokens > tier["inputTokensAbove"] > threshold:
            best, threshold = tier, tier["inputTokensAbove"]
    return best


def calculate_cost(model: Model, usage: Usage) -> Usage:
    """Fill ``usage["cost"]`` from the model's per-million prices; mutates and returns ``usage``.

    A request whose input passes a threshold of ``cost.tiers`` is priced at that tier's rates.
    Tokens written with a 1-hour TTL (``cacheWrite1h``, a subset of ``cacheWrite``) are priced at
    ``cost.cacheWrite1h`` when the model declares that rate.
    """
    prices = tier_rates(model, usage)
    cache_write = prices["cacheWrite"] * usage["cacheWrite"]
    one_hour = usage.get("cacheWrite1h", 0)
    rate_1h = model["cost"].get("cacheWrite1h")
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
