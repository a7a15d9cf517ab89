"""``thinkingConfig`` of Gemini requests for the unified reasoning levels, as Pi 1.4.0 writes it.

Gemini has two controls. Gemini 3 Pro/Flash (and their point releases), Gemini 4 and later, the
``gemini-flash-latest`` aliases and Gemma 4 take a discrete ``thinkingLevel`` (``MINIMAL`` to
``HIGH``); every other model takes a token ``thinkingBudget``. The budget of a level is the user's
own (the ``thinkingBudgets`` setting) when one is set for it, else Google's recommended one for
the Gemini 2.5 family, else ``-1``: dynamic thinking, the model decides.

A model's ``thinkingLevelMap`` says which levels it supports (``null``: unsupported, so a level is
moved to the nearest supported one first) and may rename one to another standard level; a number
there is taken as a token budget (pi-harness: Pi accepts level names only).
"""

from __future__ import annotations

import re

from pi_harness.ai.providers.google_wire import ThinkingConfig
from pi_harness.ai.thinking import clamp_thinking_level
from pi_harness.ai.types import Model, ThinkingLevel

_LEVELS = ("minimal", "low", "medium", "high")

# Google's recommended budgets per level for Gemini 2.5 (tokens); lite is checked before flash.
_BUDGETS_25 = (
    ("2.5-pro", {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}),
    ("2.5-flash-lite", {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}),
    ("2.5-flash", {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}),
)
_DYNAMIC_BUDGET = -1

_LEVEL_CONTROL = (
    re.compile(r"gemini-3(?:\.\d+)?-(?:pro|flash)"),
    re.compile(r"gemini-(?:[4-9]|[1-9]\d)"),
    re.compile(r"gemma-?4"),
)
_LEVEL_CONTROL_ALIASES = frozenset({"gemini-flash-latest", "gemini-flash-lite-latest"})


def uses_thinking_level(model_id: str) -> bool:
    """The model takes ``thinkingLevel`` rather than ``thinkingBudget``."""
    lowered = model_id.lower()
    return lowered in _LEVEL_CONTROL_ALIASES or any(pattern.search(lowered) for pattern in _LEVEL_CONTROL)


def _resolve(model: Model, level: ThinkingLevel) -> str | int:
    """The standard level (lower case) a supported level stands for, or a mapped token budget."""
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    if isinstance(mapped, int) and not isinstance(mapped, bool):
        return mapped
    if isinstance(mapped, str):
        if re.fullmatch(r"-?\d+", mapped.strip()):
            return int(mapped)
        return mapped.lower()
    # xhigh/max reach here only on a model whose map names them; Gemini's top level is high.
    return level if level in _LEVELS else "high"


def thinking_budget_for(model_id: str, level: str, budgets: dict[str, int] | None = None) -> int:
    """The user's budget for ``level`` if set; else the Gemini 2.5 tables; else dynamic (-1)."""
    if budgets and budgets.get(level) is not None:
        return int(budgets[level])
    for marker, table in _BUDGETS_25:
        if marker in model_id:
            return table.get(level, _DYNAMIC_BUDGET)
    return _DYNAMIC_BUDGET


def disabled_thinking_config(model: Model) -> ThinkingConfig:
    """Thinking off: budget 0, or on a level-controlled model that cannot stop thinking, the
    lowest level it supports."""
    if not uses_thinking_level(model["id"]):
        return {"thinkingBudget": 0}
    floor = clamp_thinking_level(model, "off")
    if floor == "off":
        return {"thinkingBudget": 0}
    resolved = _resolve(model, floor)
    if isinstance(resolved, int):
        return {"thinkingBudget": resolved}
    return {"thinkingLevel": resolved.upper()}


def simple_thinking_config(
    model: Model, level: ThinkingLevel | None, budgets: dict[str, int] | None = None
) -> ThinkingConfig | None:
    """``thinkingConfig`` for the unified reasoning level; ``None`` for non-reasoning models."""
    if not model.get("reasoning"):
        return None
    if level is None or level == "off":
        return disabled_thinking_config(model)
    clamped = clamp_thinking_level(model, level)
    if clamped == "off":
        return disabled_thinking_config(model)
    resolved = _resolve(model, clamped)
    if isinstance(resolved, int):
        return {"includeThoughts": True, "thinkingBudget": resolved}
    if uses_thinking_level(model["id"]):
        return {"includeThoughts": True, "thinkingLevel": resolved.upper()}
    return {"includeThoughts": True, "thinkingBudget": thinking_budget_for(model["id"], resolved, budgets)}


__all__ = ["disabled_thinking_config", "simple_thinking_config", "thinking_budget_for", "uses_thinking_level"]
