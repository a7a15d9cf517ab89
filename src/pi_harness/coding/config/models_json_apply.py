"""Merging a checked models.json over a catalogue (docs: models.md, custom-provider.md).

Custom models are upserted by id; ``modelOverrides`` patch existing models, object fields merging
field by field (``cost``, ``promptCache``, ``samplingParams``, ``inputLimits`` down to
``images.resize``, each level of ``samplingParamsByThinkingLevel``, ``compat`` with its routing and
chat-template objects) and other fields replacing; provider-level ``baseUrl``/``headers``/``compat``
re-route every model of that provider.
"""

from __future__ import annotations

from typing import Any

from pi_harness.ai.types import Model
from pi_harness.coding.config.models_json_schema import THINKING_LEVELS
from pi_harness.coding.config.provider_config import ProviderConfig

MODEL_DEFAULTS: dict[str, Any] = {
    "reasoning": False,
    "input": ["text"],
    "contextWindow": 128_000,
    "maxTokens": 16_384,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
}
# compat values that are objects themselves and merge key by key.
_NESTED_COMPAT = ("openRouterRouting", "vercelGatewayRouting", "chatTemplateKwargs", "chatTemplateArgs")
# Fields copied as given from a models.json model entry.
_PLAIN_FIELDS = ("inputLimits", "promptCache", "samplingParams", "samplingParamsByThinkingLevel")


def merge_compat(base: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    """Model compat over provider compat; routing and chat-template objects merge key-wise."""
    if override is None:
        return base
    merged = {**(base or {}), **override}
    for key in _NESTED_COMPAT:
        below, above = (base or {}).get(key), override.get(key)
        if isinstance(below, dict) or isinstance(above, dict):
            merged[key] = {**(below if isinstance(below, dict) else {}), **(above if isinstance(above, dict) else {})}
    return merged


def merge_input_limits(base: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    if not override:
        return base
    merged = {**(base or {}), **override}
    images = override.get("images")
    if isinstance(images, dict):
        below = (base or {}).get("images") or {}
        merged_images = {**below, **images}
        if isinstance(images.get("resize"), dict):
            merged_images["resize"] = {**(below.get("resize") or {}), **images["resize"]}
        merged["images"] = merged_images
    return merged


def merge_sampling_by_level(base: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    if not override:
        return base
    merged = dict(base or {})
    for level in THINKING_LEVELS:
        if override.get(level):
            merged[level] = {**(merged.get(level) or {}), **override[level]}
    return merged


def build_custom_model(config: ProviderConfig, raw: dict[str, Any]) -> Model:
    model: dict[str, Any] = {
        "id": raw["id"],
        "name": raw.get("name") or raw["id"],
        "api": raw.get("api") or config.api,
        "provider": config.name,
        "baseUrl": raw.get("baseUrl") or config.base_url,
        "reasoning": raw.get("reasoning", MODEL_DEFAULTS["reasoning"]),
        "input": list(raw.get("input") or MODEL_DEFAULTS["input"]),
        "cost": {**MODEL_DEFAULTS["cost"], **(raw.get("cost") or {})},
        "contextWindow": int(raw.get("contextWindow", MODEL_DEFAULTS["contextWindow"])),
        "maxTokens": int(raw.get("maxTokens", MODEL_DEFAULTS["maxTokens"])),
    }
    headers = {**config.headers, **(raw.get("headers") or {})}
    if headers:
        model["headers"] = headers
    compat = merge_compat(config.compat, raw.get("compat"))
    if compat is not None:
        model["compat"] = compat
    if isinstance(raw.get("thinkingLevelMap"), dict):
        model["thinkingLevelMap"] = dict(raw["thinkingLevelMap"])
    for key in _PLAIN_FIELDS:
        if isinstance(raw.get(key), dict):
            model[key] = raw[key]
    return model  # type: ignore[return-value]  # assembled key by key from the checked models.json entry


def apply_override(model: Model, override: dict[str, Any]) -> Model:
    patched: dict[str, Any] = dict(model)
    for key in ("name", "reasoning", "input", "contextWindow", "maxTokens"):
        if key in override:
            patched[key] = override[key]
    for key in ("thinkingLevelMap", "cost", "promptCache", "samplingParams", "headers"):
        if isinstance(override.get(key), dict):
            patched[key] = {**(patched.get(key) or {}), **override[key]}
    merges = (
        ("inputLimits", merge_input_limits),
        ("samplingParamsByThinkingLevel", merge_sampling_by_level),
        ("compat", merge_compat),
    )
    for key, merge in merges:
        merged = merge(patched.get(key), override.get(key))
        if merged is not None:
            patched[key] = merged
    return patched  # type: ignore[return-value]  # a Model with some of its keys replaced by checked values


def apply_models_config(catalog: dict[str, list[Model]], configs: list[ProviderConfig]) -> dict[str, list[Model]]:
    """The catalogue with every provider config applied (inputs are not mutated)."""
    result = {provider: list(models) for provider, models in catalog.items()}
    for config in configs:
        rerouted: list[Model] = []
        for model in result.get(config.name, []):
            patched: dict[str, Any] = dict(model)
            # A Radius gateway keeps its models' own URLs (Pi: oauth "radius").
            if config.base_url and config.oauth != "radius":
                patched["baseUrl"] = config.base_url
            # A provider-level ``api`` only reaches the custom models below: built-in models keep
            # the API they are catalogued with (Pi 1.4.0 does not switch them).
            if config.headers:
                patched["headers"] = {**model.get("headers", {}), **config.headers}
            if config.compat is not None:
                patched["compat"] = merge_compat(model.get("compat"), config.compat)
            rerouted.append(patched)  # type: ignore[arg-type]  # a Model with checked config values
        for raw in config.models or []:
            custom = build_custom_model(config, raw)
            rerouted = [m for m in rerouted if m["id"] != custom["id"]] + [custom]
        # Overrides are the topmost layer: they also patch the custom models just added.
        result[config.name] = [
            apply_override(m, config.model_overrides[m["id"]]) if m["id"] in config.model_overrides else m
            for m in rerouted
        ]
    return result
