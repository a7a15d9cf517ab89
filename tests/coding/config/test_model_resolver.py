from __future__ import annotations

from typing import Any

import pytest

from pi_harness.coding.model_resolver import (
    ModelResolutionError,
    default_model,
    resolve_model_pattern,
    resolve_model_scope,
)


def m(provider: str, mid: str, name: str | None = None) -> Any:
    return {
        "id": mid,
        "name": name or mid,
        "provider": provider,
        "api": "x",
        "baseUrl": "",
        "reasoning": True,
        "input": ["text"],
        "cost": {},
        "contextWindow": 1,
        "maxTokens": 1,
    }


MODELS = [
    m("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5"),
    m("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5 (latest)"),
    m("anthropic", "claude-opus-4-1-20250805", "Claude Opus 4.1"),
    m("openrouter", "anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5"),
    m("ollama", "qwen3:8b", "Qwen3 8B"),
    m("openai", "gpt-5", "GPT-5"),
]


def test_provider_slash_id_and_exact_id() -> None:
    assert resolve_model_pattern(MODELS, "openrouter/anthropic/claude-sonnet-4.5").model["provider"] == "openrouter"
    assert resolve_model_pattern(MODELS, "gpt-5").model["id"] == "gpt-5"
    assert resolve_model_pattern(MODELS, "qwen3:8b").model["id"] == "qwen3:8b"  # colon inside an id


def test_thinking_suffix() -> None:
    match = resolve_model_pattern(MODELS, "gpt-5:high")
    assert match.model["id"] == "gpt-5" and match.thinking_level == "high"
    match = resolve_model_pattern(MODELS, "anthropic/claude-opus-4-1-20250805:off")
    assert match.thinking_level == "off"


def test_fuzzy_prefers_undated_alias() -> None:
    assert resolve_model_pattern(MODELS, "sonnet", provider="anthropic").model["id"] == "claude-sonnet-4-5"
    assert resolve_model_pattern(MODELS, "opus").model["id"] == "claude-opus-4-1-20250805"


def test_not_found_message() -> None:
    with pytest.raises(ModelResolutionError, match='Model "nope" not found'):
        resolve_model_pattern(MODELS, "nope")


def test_scope_globs_and_levels() -> None:
    scoped = resolve_model_scope(MODELS, ["anthropic/*", "gpt-5:low", "missing"])
    assert [(s.model["provider"], s.model["id"], s.thinking_level) for s in scoped] == [
        ("anthropic", "claude-sonnet-4-5-20250929", None),
        ("anthropic", "claude-sonnet-4-5", None),
        ("anthropic", "claude-opus-4-1-20250805", None),
        ("openai", "gpt-5", "low"),
    ]
    assert [s.model["id"] for s in resolve_model_scope(MODELS, ["*sonnet*"])] == [
        "claude-sonnet-4-5-20250929",
        "claude-sonnet-4-5",
        "anthropic/claude-sonnet-4.5",
    ]


def test_default_model_preference() -> None:
    assert default_model(MODELS)["id"] == "claude-sonnet-4-5"  # type: ignore[index]
    assert default_model([m("ollama", "llama")])["id"] == "llama"  # type: ignore[index]
    assert default_model([]) is None
