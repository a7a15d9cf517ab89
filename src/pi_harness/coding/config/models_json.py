"""models.json: custom providers and models over the built-in catalogue.

``load_models_json`` validates the file with Pi's exact error texts; on any error the caller keeps
only the built-in models and reports the error. ``apply_models_config`` merges a valid config
over a catalogue: custom models are upserted by id, ``modelOverrides`` patch built-ins, and
provider-level ``baseUrl``/``headers``/``compat`` re-route every model of that provider.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_harness.ai.types import Model

MODEL_DEFAULTS: dict[str, Any] = {
    "reasoning": False,
    "input": ["text"],
    "contextWindow": 128_000,
    "maxTokens": 16_384,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
}


@dataclass
class ProviderConfig:
    name: str
    base_url: str | None = None
    api: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    auth_header: bool = False
    compat: dict[str, Any] | None = None
    models: list[dict[str, Any]] | None = None
    model_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)


class ModelsJsonError(ValueError):
    pass


def _schema_error(problems: list[tuple[str, str]], path: Path) -> ModelsJsonError:
    lines = "\n".join(f"  - {where}: {what}" for where, what in problems)
    return ModelsJsonError(f"Invalid models.json schema:\n{lines}\n\nFile: {path}")


def _check_type(value: Any, expected: type | tuple[type, ...], where: str, problems: list[tuple[str, str]]) -> None:
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        names = expected.__name__ if isinstance(expected, type) else "/".join(t.__name__ for t in expected)
        problems.append((where, f"must be {_json_type_name(names)}"))


def _json_type_name(python_name: str) -> str:
    return {"str": "string", "dict": "object", "list": "array", "bool": "boolean", "int": "integer"}.get(
        python_name, python_name.replace("int/float", "number")
    )


def load_models_json(path: Path) -> list[ProviderConfig]:
    """Parse and validate; raises ``ModelsJsonError`` with Pi's message. Missing file → []."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError) as exc:
        raise ModelsJsonError(f"Failed to parse models.json: {exc}\n\nFile: {path}") from exc
    problems: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        raise _schema_error([("root", "must be object")], path)
    providers = data.get("providers", {})
    if not isinstance(providers, dict):
        raise _schema_error([("providers", "must be object")], path)
    for name, raw in providers.items():
        where = f"providers/{name}"
        if not isinstance(raw, dict):
            problems.append((where, "must be object"))
            continue
        for key in ("baseUrl", "api", "apiKey"):
            if key in raw:
                _check_type(raw[key], str, f"{where}/{key}", problems)
        for key in ("headers", "compat", "modelOverrides"):
            if key in raw:
                _check_type(raw[key], dict, f"{where}/{key}", problems)
        if "authHeader" in raw:
            _check_type(raw["authHeader"], bool, f"{where}/authHeader", problems)
        if "models" in raw:
            _check_type(raw["models"], list, f"{where}/models", problems)
            for i, model in enumerate(raw["models"] if isinstance(raw["models"], list) else []):
                mwhere = f"{where}/models/{i}"
                if not isinstance(model, dict):
                    problems.append((mwhere, "must be object"))
                    continue
                if "id" not in model:
                    problems.append((mwhere, "must have required property 'id'"))
                for key in ("id", "name", "api"):
                    if key in model:
                        _check_type(model[key], str, f"{mwhere}/{key}", problems)
                for key in ("contextWindow", "maxTokens"):
                    if key in model:
                        _check_type(model[key], (int, float), f"{mwhere}/{key}", problems)
                if "reasoning" in model:
                    _check_type(model["reasoning"], bool, f"{mwhere}/reasoning", problems)
                if "input" in model:
                    _check_type(model["input"], list, f"{mwhere}/input", problems)
                for key in ("cost", "headers", "compat", "thinkingLevelMap"):
                    if key in model:
                        _check_type(model[key], dict, f"{mwhere}/{key}", problems)
    if problems:
        raise _schema_error(problems, path)
    configs = [_provider_config(name, raw) for name, raw in providers.items()]
    for config in configs:
        _validate_semantics(config)
    return configs


def _provider_config(name: str, raw: dict[str, Any]) -> ProviderConfig:
    return ProviderConfig(
        name=name,
        base_url=raw.get("baseUrl"),
        api=raw.get("api"),
        api_key=raw.get("apiKey"),
        headers=dict(raw.get("headers") or {}),
        auth_header=bool(raw.get("authHeader", False)),
        compat=raw.get("compat"),
        models=list(raw["models"]) if isinstance(raw.get("models"), list) else None,
        model_overrides=dict(raw.get("modelOverrides") or {}),
    )


def _validate_semantics(config: ProviderConfig) -> None:
    p = config.name
    if config.base_url is None and config.compat is None and not config.model_overrides and config.models is None:
        raise ModelsJsonError(f'Provider {p}: must specify "baseUrl", "compat", "modelOverrides", or "models".')
    if config.models:
        if not config.base_url:
            raise ModelsJsonError(f'Provider {p}: "baseUrl" is required when defining custom models.')
        if not config.api_key:
            raise ModelsJsonError(f'Provider {p}: "apiKey" is required when defining custom models.')
        for model in config.models:
            mid = model.get("id")
            if not (model.get("api") or config.api):
                raise ModelsJsonError(f'Provider {p}, model {mid}: no "api" specified. Set at provider or model level.')
            if "contextWindow" in model and model["contextWindow"] <= 0:
                raise ModelsJsonError(f"Provider {p}, model {mid}: invalid contextWindow")
            if "maxTokens" in model and model["maxTokens"] <= 0:
                raise ModelsJsonError(f"Provider {p}, model {mid}: invalid maxTokens")


def merge_compat(base: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    """Model compat over provider compat; routing objects merge key-wise."""
    if base is None and override is None:
        return None
    merged = dict(base or {})
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
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
    return model  # type: ignore[return-value]  # assembled key by key from the checked models.json entry


def apply_override(model: Model, override: dict[str, Any]) -> Model:
    patched: dict[str, Any] = dict(model)
    for key in ("name", "reasoning", "input", "contextWindow", "maxTokens", "thinkingLevelMap"):
        if key in override:
            patched[key] = override[key]
    if isinstance(override.get("cost"), dict):
        patched["cost"] = {**model["cost"], **override["cost"]}
    if isinstance(override.get("headers"), dict):
        patched["headers"] = {**model.get("headers", {}), **override["headers"]}
    if isinstance(override.get("compat"), dict):
        patched["compat"] = merge_compat(model.get("compat"), override["compat"])
    return patched  # type: ignore[return-value]  # a Model with some of its keys replaced by checked values


def apply_models_config(catalog: dict[str, list[Model]], configs: list[ProviderConfig]) -> dict[str, list[Model]]:
    """The catalogue with every provider config applied (inputs are not mutated)."""
    result = {provider: list(models) for provider, models in catalog.items()}
    for config in configs:
        models = result.get(config.name, [])
        rerouted: list[Model] = []
        for model in models:
            patched: dict[str, Any] = dict(model)
            if config.base_url:
                patched["baseUrl"] = config.base_url
            if config.api and not config.models:
                patched["api"] = config.api
            if config.headers:
                patched["headers"] = {**model.get("headers", {}), **config.headers}
            if config.compat is not None:
                patched["compat"] = merge_compat(model.get("compat"), config.compat)
            override = config.model_overrides.get(model["id"])
            # A Model with some keys replaced by checked config values; mypy cannot follow the dict copy.
            rerouted.append(apply_override(patched, override) if override else patched)  # type: ignore[arg-type]  # see above
        for raw in config.models or []:
            custom = build_custom_model(config, raw)
            rerouted = [m for m in rerouted if m["id"] != custom["id"]] + [custom]
        result[config.name] = rerouted
    return result
