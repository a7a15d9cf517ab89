"""models.json: custom providers and models over the built-in catalogue.

``load_models_file`` reads the file: a parse or schema error (Pi's exact texts) rejects the whole
file, so the caller keeps only the built-in models; a provider entry that is valid JSON but cannot
be used (no ``baseUrl`` for custom models, no ``api``...) is reported and skipped on its own, the
others still apply, as in Pi 1.4; fields Pi does not define are reported as warnings and ignored.
Merging a valid config over a catalogue lives in ``models_json_apply``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_harness.coding.config.models_json_apply import (
    MODEL_DEFAULTS,
    apply_models_config,
    apply_override,
    build_custom_model,
    merge_compat,
)
from pi_harness.coding.config.models_json_schema import check_models_json
from pi_harness.coding.config.provider_config import ProviderConfig


class ModelsJsonError(ValueError):
    pass


@dataclass
class LoadedModelsJson:
    configs: list[ProviderConfig] = field(default_factory=list)
    # Pi's per-provider errors (``Provider "<id>": ...``); that provider's entry is skipped.
    errors: list[str] = field(default_factory=list)
    # Fields Pi's schema does not know; ignored.
    warnings: list[str] = field(default_factory=list)


def _schema_error(problems: list[tuple[str, str]], path: Path) -> ModelsJsonError:
    lines = "\n".join(f"  - {where}: {what}" for where, what in problems)
    return ModelsJsonError(f"Invalid models.json schema:\n{lines}\n\nFile: {path}")


def load_models_file(path: Path) -> LoadedModelsJson:
    """Parse and validate; raises ``ModelsJsonError`` (Pi's message) when the file is unusable."""
    if not path.exists():
        return LoadedModelsJson()
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
        data = json.loads(text or "{}")
    except (OSError, ValueError) as exc:
        raise ModelsJsonError(f"Failed to parse models.json: {exc}\n\nFile: {path}") from exc
    report = check_models_json(data)
    if report.problems:
        raise _schema_error(report.problems, path)
    loaded = LoadedModelsJson(
        warnings=[f"models.json: unknown field {where} ignored ({path})" for where in report.unknown]
    )
    for name, raw in (data.get("providers") or {}).items():
        config = _provider_config(name, raw)
        problem = provider_problem(config)
        if problem is not None:
            loaded.errors.append(f'Provider "{name}": {problem}')
        else:
            loaded.configs.append(config)
    return loaded


def load_models_json(path: Path) -> list[ProviderConfig]:
    """The usable provider configs; raises ``ModelsJsonError`` when the file is unusable."""
    return load_models_file(path).configs


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
        display_name=raw.get("name"),
        oauth=raw.get("oauth"),
    )


def provider_problem(config: ProviderConfig) -> str | None:
    """Why Pi would not use this provider entry, in Pi's words; ``None`` when it is usable."""
    p = config.name
    if config.oauth and not config.base_url:
        return f'Provider {p}: "baseUrl" is required when "oauth" is set.'
    if not (
        config.models
        or config.base_url
        or config.headers
        or config.compat
        or config.model_overrides
        or config.api_key
        or config.oauth
    ):
        return f'Provider {p}: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".'
    for model in config.models or []:
        mid = model.get("id")
        if not (model.get("api") or config.api):
            return f'Provider {p}, model {mid}: no "api" specified. Set at provider or model level.'
        if not (model.get("baseUrl") or config.base_url):
            return f'Provider {p}: "baseUrl" is required when defining custom models.'
        if "contextWindow" in model and model["contextWindow"] <= 0:
            return f"Provider {p}, model {mid}: invalid contextWindow"
        if "maxTokens" in model and model["maxTokens"] <= 0:
            return f"Provider {p}, model {mid}: invalid maxTokens"
    return None


__all__ = [
    "MODEL_DEFAULTS",
    "LoadedModelsJson",
    "ModelsJsonError",
    "ProviderConfig",
    "apply_models_config",
    "apply_override",
    "build_custom_model",
    "load_models_file",
    "load_models_json",
    "merge_compat",
    "provider_problem",
]
