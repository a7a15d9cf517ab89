"""The built-in model catalogue and its lookups."""

from __future__ import annotations

from pi_harness.ai.models import all_models, get_model, get_models, get_providers, models_are_equal, supports_xhigh
from pi_harness.ai.types import Model


def test_providers_and_models_are_listed() -> None:
    providers = get_providers()
    for expected in ("anthropic", "openai", "google", "openrouter", "groq"):
        assert expected in providers
    models = get_models("anthropic")
    assert models
    assert all(m["provider"] == "anthropic" and m["api"] == "anthropic-messages" for m in models)


def test_descriptors_have_every_required_field() -> None:
    required = {"id", "name", "api", "provider", "baseUrl", "reasoning", "input", "cost", "contextWindow", "maxTokens"}
    models = all_models()
    assert len(models) > 500
    for m in models:
        assert required <= set(m), m["id"]
        assert set(m["cost"]) >= {"input", "output", "cacheRead", "cacheWrite"}
        assert "text" in m["input"]


def test_lookup_by_provider_and_id() -> None:
    first = get_models("openai")[0]
    found = get_model("openai", first["id"])
    assert found == first


def test_unknown_lookups_are_empty() -> None:
    assert get_model("anthropic", "no-such-model") is None
    assert get_model("no-such-provider", "x") is None
    assert get_models("no-such-provider") == []


def test_lookups_return_copies_that_do_not_share_state() -> None:
    model_id = get_models("anthropic")[0]["id"]
    a = get_model("anthropic", model_id)
    assert a is not None
    a["name"] = "changed"
    a["cost"]["input"] = 123456.0
    b = get_model("anthropic", model_id)
    assert b is not None
    assert b["name"] != "changed"
    assert b["cost"]["input"] != 123456.0
    listed = get_models("anthropic")
    listed[0]["id"] = "mutated"
    assert get_models("anthropic")[0]["id"] == model_id


def _model(model_id: str, provider: str = "p", **extra: object) -> Model:
    m = {
        "id": model_id,
        "name": model_id,
        "api": "openai-responses",
        "provider": provider,
        "baseUrl": "",
        "reasoning": True,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1,
        "maxTokens": 1,
        **extra,
    }
    return m  # type: ignore[return-value]


def test_models_are_equal_compares_id_and_provider_only() -> None:
    assert models_are_equal(_model("a"), _model("a", name="other"))
    assert not models_are_equal(_model("a"), _model("b"))
    assert not models_are_equal(_model("a", "p1"), _model("a", "p2"))
    assert not models_are_equal(_model("a"), None)
    assert not models_are_equal(None, None)


def test_supports_xhigh_by_id_marker() -> None:
    for model_id in ("gpt-5.2", "gpt-5.3-codex", "gpt-5.4-mini", "claude-opus-4-6", "anthropic/claude-opus-4.6"):
        assert supports_xhigh(_model(model_id)), model_id
    for model_id in ("gpt-5", "gpt-5.1", "claude-sonnet-4-5", "o3"):
        assert not supports_xhigh(_model(model_id)), model_id


def test_supports_xhigh_follows_the_thinking_level_map() -> None:
    assert supports_xhigh(_model("custom", thinkingLevelMap={"xhigh": "max"}))
    assert not supports_xhigh(_model("gpt-5.2", thinkingLevelMap={"xhigh": None}))


def test_catalogue_is_pi_1_4_s() -> None:
    """41 providers under Pi's ids (TypeSafe has classifier models only, which are left out)."""
    providers = get_providers()
    assert len(providers) == 41 and providers == sorted(providers)
    for expected in ("nvidia", "together", "baseten", "qwen-token-plan", "meta", "radius", "ant-ling", "azure"):
        assert expected in providers
    assert "azure-openai-responses" not in providers  # Pi 1.4 renamed the provider to "azure"
    assert sum(len(get_models(p)) for p in providers) == 1599


def test_the_build_script_reproduces_the_committed_catalogue() -> None:
    """Only where Pi's reference install exists; the catalogue itself is committed."""
    import importlib.util
    from pathlib import Path

    import pytest

    script = Path(__file__).resolve().parents[2] / "scripts" / "build_catalog.py"
    spec = importlib.util.spec_from_file_location("build_catalog", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not module.DEFAULT_SOURCE.is_dir():
        pytest.skip(f"no Pi reference install at {module.DEFAULT_SOURCE}")
    assert module.build(module.DEFAULT_SOURCE) == module.TARGET.read_text(encoding="utf-8")
