"""Thinking levels: clamping to a model and token budgets."""

from __future__ import annotations

from pi_harness.ai.options import DEFAULT_THINKING_BUDGETS
from pi_harness.ai.types import THINKING_LEVELS, Model, ThinkingLevel

DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium"
_CORE: tuple[ThinkingLevel, ...] = ("minimal", "low", "medium", "high")


def is_thinking_level(value: object) -> bool:
    return isinstance(value, str) and value in THINKING_LEVELS


def supported_levels(model: Model) -> list[ThinkingLevel]:
    """Levels a model accepts, lowest first, as Pi 1.4.0 reads them from ``thinkingLevelMap``:
    every standard level unless the map says ``null``; ``xhigh`` and ``max`` only where the map
    names them. Non-reasoning models only support ``off``."""
    if not model.get("reasoning"):
        return ["off"]
    level_map = model.get("thinkingLevelMap") or {}
    levels: list[ThinkingLevel] = []
    for level in THINKING_LEVELS:
        if level in level_map and level_map[level] is None:
            continue
        if level in ("xhigh", "max") and level not in level_map:
            continue
        levels.append(level)
    return levels


def clamp_thinking_level(model: Model, level: ThinkingLevel) -> ThinkingLevel:
    """The level itself if the model supports it, else the nearest supported one above it, else
    the nearest below (as Pi 1.4.0 clamps); ``off`` for non-reasoning models."""
    levels = supported_levels(model)
    if level in levels:
        return level
    if not levels:
        return "off"
    order = list(THINKING_LEVELS)
    if level not in order:
        return levels[0]
    wanted = order.index(level)
    above = [candidate for candidate in order[wanted:] if candidate in levels]
    if above:
        return above[0]
    below = [candidate for candidate in order[:wanted] if candidate in levels]
    return below[-1] if below else levels[0]


def requested_level(model: Model, level: ThinkingLevel | None) -> ThinkingLevel | None:
    """The ``reasoning`` level of ``stream_simple`` clamped to the model; ``None``: ask for none.

    Nothing is asked of non-reasoning models, for ``off``, or when clamping ends at ``off``.
    """
    if level is None or level == "off" or not model.get("reasoning"):
        return None
    clamped = clamp_thinking_level(model, level)
    return None if clamped == "off" else clamped


def thinking_budget(level: ThinkingLevel, budgets: dict[str, int] | None = None) -> int:
    """Token budget for budget-based APIs; custom budgets merge over the defaults."""
    if level == "off":
        return 0
    merged = {**DEFAULT_THINKING_BUDGETS, **(budgets or {})}
    key = "high" if level in ("xhigh", "max") else level
    return merged.get(key, merged["medium"])


def adjust_max_tokens_for_budget(base_max_tokens: int, model_max_tokens: int, budget: int) -> tuple[int, int]:
    """``(max_tokens, budget)`` keeping at least 1024 tokens for the visible answer."""
    max_tokens = min(base_max_tokens + budget, model_max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - 1024)
    return max_tokens, budget


def default_max_tokens(model: Model) -> int:
    """min(model.maxTokens, 32000): the figure compaction's length-stop check compares with.

    Providers no longer ask for it: ``output_cap.simple_max_tokens`` is what Pi 1.4.0 sends.
    """
    return min(model["maxTokens"], 32000)
