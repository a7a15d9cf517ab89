"""Thinking levels: clamping, budgets and the max-token adjustment."""

from __future__ import annotations

import pytest

from pi_harness.ai.thinking import (
    DEFAULT_THINKING_LEVEL,
    adjust_max_tokens_for_budget,
    clamp_thinking_level,
    default_max_tokens,
    is_thinking_level,
    supported_levels,
    thinking_budget,
)
from pi_harness.ai.types import Model, ThinkingLevel


def model(model_id: str = "m", *, reasoning: bool = True, api: str = "openai-responses", **extra: object) -> Model:
    m = {
        "id": model_id,
        "name": model_id,
        "api": api,
        "provider": "p",
        "baseUrl": "",
        "reasoning": reasoning,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 200_000,
        "maxTokens": 64_000,
        **extra,
    }
    return m  # type: ignore[return-value]


def test_default_level_is_medium() -> None:
    assert DEFAULT_THINKING_LEVEL == "medium"


def test_is_thinking_level() -> None:
    for level in ("off", "minimal", "low", "medium", "high", "xhigh", "max"):
        assert is_thinking_level(level)
    assert not is_thinking_level("extreme")
    assert not is_thinking_level(None)


def test_non_reasoning_models_only_support_off() -> None:
    plain = model(reasoning=False)
    assert supported_levels(plain) == ["off"]
    for level in ("minimal", "high", "xhigh", "max"):
        assert clamp_thinking_level(plain, level) == "off"


def test_core_levels_are_always_supported_by_reasoning_models() -> None:
    m = model("o3")
    assert supported_levels(m) == ["off", "minimal", "low", "medium", "high"]
    for level in ("off", "minimal", "low", "medium", "high"):
        assert clamp_thinking_level(m, level) == level


def test_xhigh_clamps_to_high_unless_the_map_names_it() -> None:
    # As Pi 1.4.0: xhigh and max exist only where the model's thinkingLevelMap names them.
    assert clamp_thinking_level(model("gpt-5.2"), "xhigh") == "high"
    assert clamp_thinking_level(model("gpt-5.2", thinkingLevelMap={"xhigh": "xhigh"}), "xhigh") == "xhigh"


def test_max_needs_a_map_entry() -> None:
    assert clamp_thinking_level(model("gpt-5.2", thinkingLevelMap={"xhigh": "xhigh"}), "max") == "xhigh"
    assert clamp_thinking_level(model("gpt-5.1"), "max") == "high"
    opus = model("claude-opus-4-6", api="anthropic-messages", thinkingLevelMap={"xhigh": "max"})
    assert clamp_thinking_level(opus, "max") == "xhigh"  # its xhigh is sent as the native max
    assert clamp_thinking_level(model("custom", thinkingLevelMap={"max": "ultra"}), "max") == "max"
    assert clamp_thinking_level(model("custom", thinkingLevelMap={"max": "ultra"}), "xhigh") == "max"  # up first


def test_null_entries_in_the_level_map_clamp_to_the_nearest_lower_level() -> None:
    m = model("custom", thinkingLevelMap={"medium": None, "high": None})
    assert supported_levels(m) == ["off", "minimal", "low"]
    assert clamp_thinking_level(m, "high") == "low"
    assert clamp_thinking_level(m, "medium") == "low"
    assert clamp_thinking_level(m, "minimal") == "minimal"


def test_models_that_cannot_switch_reasoning_off_clamp_upwards() -> None:
    m = model("always-thinks", thinkingLevelMap={"off": None, "minimal": None})
    assert supported_levels(m) == ["low", "medium", "high"]
    assert clamp_thinking_level(m, "off") == "low"
    assert clamp_thinking_level(m, "minimal") == "low"
    assert clamp_thinking_level(m, "high") == "high"


@pytest.mark.parametrize(
    ("level", "expected"),
    [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384), ("xhigh", 16384), ("max", 16384), ("off", 0)],
)
def test_default_budgets(level: ThinkingLevel, expected: int) -> None:
    assert thinking_budget(level) == expected


def test_custom_budgets_merge_over_the_defaults() -> None:
    custom = {"low": 3000}
    assert thinking_budget("low", custom) == 3000
    assert thinking_budget("medium", custom) == 8192


def test_budget_adjustment() -> None:
    # room for budget + base output
    assert adjust_max_tokens_for_budget(32_000, 64_000, 8192) == (40_192, 8192)
    # capped by the model; budget still below the cap
    assert adjust_max_tokens_for_budget(60_000, 64_000, 16_384) == (64_000, 16_384)
    # cap at or below the budget: keep 1024 tokens for the answer
    assert adjust_max_tokens_for_budget(4000, 8000, 8192) == (8000, 6976)
    assert adjust_max_tokens_for_budget(100, 1000, 2048) == (1000, 0)


def test_default_max_tokens_is_capped_at_32000() -> None:
    assert default_max_tokens(model()) == 32_000
    small = model()
    small["maxTokens"] = 8192
    assert default_max_tokens(small) == 8192
