"""The output cap ``stream_simple`` asks for (``max_tokens`` and its API-specific names).

Pi 1.4.0 asks for the caller's cap, else the model's whole ``maxTokens``, but never more than
the room the context window has left by its own estimate, less a safety margin; at least one
token is always asked for. Budget-based thinking adds its budget first and then clamps again,
leaving the answer at least ``MIN_ANSWER_TOKENS``.
"""

from __future__ import annotations

from pi_harness.ai.thinking import adjust_max_tokens_for_budget
from pi_harness.ai.token_estimate import estimate_context_tokens
from pi_harness.ai.types import Context, Model

CONTEXT_SAFETY_TOKENS = 4096
MIN_ANSWER_TOKENS = 1024


def clamp_to_context(model: Model, context: Context, max_tokens: int) -> int:
    window = int(model.get("contextWindow") or 0)
    if window <= 0:
        return max(1, max_tokens)
    room = window - estimate_context_tokens(context) - CONTEXT_SAFETY_TOKENS
    return min(max_tokens, max(1, room))


def simple_max_tokens(model: Model, context: Context, requested: int | None) -> int:
    """The caller's cap (``None``: the model's ``maxTokens``) clamped to the context's room."""
    return clamp_to_context(model, context, model["maxTokens"] if requested is None else requested)


def budgeted_max_tokens(model: Model, context: Context, requested: int | None, budget: int) -> tuple[int, int]:
    """``(max_tokens, thinking budget)`` for budget-based thinking: the clamped cap grows by the
    budget up to the model's limit, is clamped to the context again, and the budget shrinks to
    leave room for the answer."""
    base = simple_max_tokens(model, context, requested)
    grown, budget = adjust_max_tokens_for_budget(base, model["maxTokens"], budget)
    max_tokens = clamp_to_context(model, context, grown)
    return max_tokens, min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))
