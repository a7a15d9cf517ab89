"""Model references, ``--model``, ``--models`` and the default model, with Pi 1.4.0's rules
(checked side by side with the real Pi: the same command line picks the same model)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_harness.coding.model_reference import collation_key, is_alias, resolve_model_reference
from pi_harness.coding.model_resolver import (
    ModelResolutionError,
    default_model,
    resolve_cli_model,
    resolve_model_pattern,
    resolve_model_scope,
    resolve_model_scope_with_warnings,
)


def m(provider: str, mid: str, name: str | None = None, **extra: Any) -> Any:
    return {
        "id": mid,
        "name": name or mid,
        "provider": provider,
        "api": "x",
        "baseUrl": "",
        "reasoning": False,
        "input": ["text"],
        "cost": {},
        "contextWindow": 1,
        "maxTokens": 1,
        **extra,
    }


MODELS = [
    m("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5"),
    m("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5 (latest)"),
    m("anthropic", "claude-sonnet-5", "Claude Sonnet 5"),
    m("anthropic", "claude-sonnet-5-5", "Claude Sonnet 5.5"),
    m("anthropic", "claude-opus-4-1-20250805", "Claude Opus 4.1"),
    m("openrouter", "anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5"),
    m("ollama", "qwen3:8b", "Qwen3 8B"),
    m("openai", "gpt-5", "GPT-5"),
    m("openai", "gpt-4.1", "GPT-4.1"),
    m("azure", "gpt-5", "GPT-5"),
]


def ids(models: list[Any]) -> list[tuple[str, str]]:
    return [(x["provider"], x["id"]) for x in models]


def test_collation_matches_node_locale_compare() -> None:
    # Recorded from Node 22: printable ASCII sorted with String.prototype.localeCompare.
    node_order = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
    assert "".join(sorted(node_order, key=collation_key)) == node_order
    words = ["ab", "a9", "a10", "a1", "a.b", "A-b", "a-B", "a-b", "a_b"]
    assert sorted(words, key=collation_key) == ["a_b", "a-b", "a-B", "A-b", "a.b", "a1", "a10", "a9", "ab"]


def test_aliases() -> None:
    assert is_alias("claude-sonnet-4-5") and is_alias("claude-3-7-sonnet-latest")
    assert not is_alias("claude-sonnet-4-5-20250929")


def test_provider_slash_id_and_exact_id() -> None:
    assert resolve_model_pattern(MODELS, "openrouter/anthropic/claude-sonnet-4.5").model["provider"] == "openrouter"
    assert resolve_model_pattern(MODELS, "GPT-4.1").model["id"] == "gpt-4.1"  # ids in any case
    assert resolve_model_pattern(MODELS, "qwen3:8b").model["id"] == "qwen3:8b"  # colon inside an id
    # A gateway id that looks like provider/id still finds the gateway's model.
    assert ids([resolve_model_pattern(MODELS, "anthropic/claude-sonnet-4.5").model]) == [
        ("openrouter", "anthropic/claude-sonnet-4.5")
    ]


def test_thinking_suffix() -> None:
    match = resolve_model_pattern(MODELS, "openai/gpt-5:high")
    assert match.model["id"] == "gpt-5" and match.thinking_level == "high"
    match = resolve_model_pattern(MODELS, "anthropic/claude-opus-4-1-20250805:off")
    assert match.thinking_level == "off"
    with pytest.raises(ModelResolutionError, match='Model "sonnet:bogus" not found'):
        resolve_model_pattern(MODELS, "sonnet:bogus")  # strict: an unknown suffix stays in the id


def test_fuzzy_takes_the_alias_that_sorts_last() -> None:
    assert resolve_model_pattern(MODELS, "sonnet", provider="anthropic").model["id"] == "claude-sonnet-5-5"
    assert resolve_model_pattern(MODELS, "opus").model["id"] == "claude-opus-4-1-20250805"  # only dated ones
    assert resolve_model_pattern(MODELS, "anthropic/sonnet").model["id"] == "claude-sonnet-5-5"


def test_the_same_id_on_two_providers() -> None:
    with pytest.raises(ModelResolutionError, match=r"ambiguous across providers: azure/gpt-5, openai/gpt-5"):
        resolve_model_pattern(MODELS, "gpt-5")
    # Credentials break the tie; a provider prefix decides it.
    only_openai = resolve_model_reference("gpt-5", MODELS, usable=lambda p: p == "openai")
    assert only_openai.status == "resolved" and only_openai.model is not None
    assert only_openai.model["provider"] == "openai"
    assert resolve_model_pattern(MODELS, "azure/gpt-5").model["provider"] == "azure"


def test_cli_model_errors_and_custom_ids() -> None:
    def usable(provider: str) -> bool:
        return provider == "openai"

    picked = resolve_cli_model(MODELS, "gpt-5", has_credentials=usable)
    assert picked.error is None and picked.model is not None and picked.model["provider"] == "openai"
    ambiguous = resolve_cli_model(MODELS, "gpt-5", inline_api_key=True, has_credentials=usable)
    assert ambiguous.error == (
        'Model "gpt-5" is ambiguous across providers: azure/gpt-5, openai/gpt-5. '
        "--api-key does not choose a provider. Use --provider or provider/model."
    )
    unknown = resolve_cli_model(MODELS, "x", provider="nope", has_credentials=usable)
    assert unknown.error == 'Unknown provider "nope". Use --list-models to see available providers/models.'
    assert resolve_cli_model([], "x", has_credentials=usable).error == (
        "No models available. Check your installation or add models to models.json."
    )
    assert resolve_cli_model(MODELS, "zzz", has_credentials=usable).error == (
        'Model "zzz" not found. Use --list-models to see available models.'
    )
    # A known provider with an id its catalog lacks: that id on the provider, with a warning.
    custom = resolve_cli_model(MODELS, "openai/gpt-9:high", has_credentials=usable)
    assert custom.error is None and custom.model is not None
    assert (custom.model["provider"], custom.model["id"], custom.model["name"]) == ("openai", "gpt-9", "gpt-9")
    assert custom.model["reasoning"] is True and custom.thinking_level == "high"
    assert custom.warning == 'Model "gpt-9" not found for provider "openai". Using custom model id.'
    # With --thinking given, the suffix stays part of the id.
    kept = resolve_cli_model(MODELS, "gpt-9:high", provider="openai", thinking="low", has_credentials=usable)
    assert kept.model is not None and kept.model["id"] == "gpt-9:high" and kept.thinking_level is None


def test_scope_globs_levels_and_warnings() -> None:
    scope = resolve_model_scope_with_warnings(MODELS, ["anthropic/*opus*", "openai/gpt-5:low", "missing", "sonnet:zz"])
    assert [(s.model["id"], s.thinking_level) for s in scope.models] == [
        ("claude-opus-4-1-20250805", None),
        ("gpt-5", "low"),
        ("claude-sonnet-5-5", None),
    ]
    assert scope.warnings == [
        'No models match pattern "missing"',
        'Invalid thinking level "zz" in pattern "sonnet:zz". Using default instead.',
    ]
    # minimatch: "*" stays inside one segment, so the gateway's "anthropic/…" ids do not match.
    assert ids([s.model for s in resolve_model_scope(MODELS, ["*sonnet-4*"])]) == [
        ("anthropic", "claude-sonnet-4-5-20250929"),
        ("anthropic", "claude-sonnet-4-5"),
    ]
    assert ids([s.model for s in resolve_model_scope(MODELS, ["openrouter/**"])]) == [
        ("openrouter", "anthropic/claude-sonnet-4.5")
    ]
    both = resolve_model_scope_with_warnings(MODELS, ["gpt-5"])
    assert ids([s.model for s in both.models]) == [("openai", "gpt-5"), ("azure", "gpt-5")]
    assert both.warnings == ['Pattern "gpt-5" matches several providers: azure, openai. Use provider/id to choose one.']


def test_default_model_follows_the_provider_defaults() -> None:
    catalog = [m("openai", "gpt-4.1"), m("anthropic", "claude-sonnet-4-5"), m("anthropic", "claude-opus-4-8")]
    assert ids([default_model(catalog)]) == [("anthropic", "claude-opus-4-8")]
    assert ids([default_model(MODELS)]) == [("anthropic", "claude-sonnet-4-5-20250929")]  # none: the first
    assert default_model([]) is None
