"""``--model`` / ``--models`` and the model a new session starts with, decided as Pi 1.4.0 decides
them (the reference rules are in ``model_reference.py``).

* ``--model TEXT`` (with ``--provider``): any catalog model may be named, credentials only break
  ties; a name the catalog lacks on a known provider (``anthropic/claude-next``) is used as a
  custom id of that provider, with a warning; ``:<level>`` sets the thinking level.
* ``--models a,b`` / ``enabledModels``: globs (minimatch's, case-insensitive) over
  ``provider/id`` and over the id, or references as above; a pattern that matches nothing is a
  warning, not an error.
* without either: the settings' default when it has credentials, else the first provider
  default of ``DEFAULT_MODEL_PER_PROVIDER`` that is available, else the first available model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pi_harness.ai.types import Model, ThinkingLevel
from pi_harness.coding.model_reference import Resolution, resolve_model_reference, split_thinking_suffix
from pi_harness.coding.packages.patterns import glob_match

# Each provider's default chat model (Pi 1.4.0's table, in its order, which is also the order of
# preference when a new session has to pick one of the available models).
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-4-6-v1",
    "ant-ling": "Ring-2.6-1T",
    "anthropic": "claude-opus-4-8",
    "openai": "gpt-5.5",
    "azure": "gpt-5.4",
    "openai-codex": "gpt-6.1-sol",
    "radius": "balanced",
    "nvidia": "nvidia/nemotron-3.5-super-vl-120b-a12b",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-3.1-pro-preview",
    "google-vertex": "gemini-3.1-pro-preview",
    "github-copilot": "gpt-6.1-sol",
    "openrouter": "moonshotai/kimi-k2.6",
    "vercel-ai-gateway": "zai/glm-5.1",
    "xai": "grok-4.7",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "gpt-oss-120b",
    "zai": "glm-5.3",
    "zai-coding-cn": "glm-5.3",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M2.7",
    "minimax-cn": "MiniMax-M2.7",
    "moonshotai": "kimi-k2.6",
    "moonshotai-cn": "kimi-k2.6",
    "huggingface": "moonshotai/Kimi-K2.6",
    "fireworks": "accounts/fireworks/models/kimi-k3",
    "together": "moonshotai/Kimi-K3",
    "baseten": "zai-org/GLM-5.2",
    "opencode": "kimi-k2.6",
    "opencode-go": "kimi-k3",
    "kimi-coding": "kimi-for-coding",
    "meta": "muse-spark-1.3",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.6",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.6",
    "qwen-token-plan": "qwen3.7-max",
    "qwen-token-plan-cn": "qwen3.7-max",
    "qwen-token-plan-individual": "qwen3.8-max",
    "xiaomi": "mimo-v2.6-pro",
    "xiaomi-token-plan-cn": "mimo-v2.6-pro",
    "xiaomi-token-plan-ams": "mimo-v2.6-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.6-pro",
}

NO_MODELS = "No models available. Check your installation or add models to models.json."


@dataclass(frozen=True)
class ModelMatch:
    model: Model
    thinking_level: ThinkingLevel | None = None


class ModelResolutionError(ValueError):
    pass


@dataclass(frozen=True)
class CliModel:
    """What ``--model``/``--provider`` resolved to: a model, or an error to stop with; a warning
    is shown either way."""

    model: Model | None = None
    thinking_level: ThinkingLevel | None = None
    warning: str | None = None
    error: str | None = None


def provider_requires_model(provider: str) -> str:
    return f"--provider requires --model (for example: --provider {provider} --model <pattern>)"


def unknown_provider_message(provider: str) -> str:
    return f'Unknown provider "{provider}". Use --list-models to see available providers/models.'


def not_found_message(text: str) -> str:
    return f'Model "{text}" not found. Use --list-models to see available models.'


def ambiguous_message(text: str, resolution: Resolution, *, inline_api_key: bool) -> str:
    matches = ", ".join(sorted(f"{m['provider']}/{m['id']}" for m in resolution.candidates))
    if inline_api_key:
        hint = "--api-key does not choose a provider."
    elif resolution.usable_count == 0:
        hint = "No matching provider is authenticated."
    else:
        hint = "More than one matching provider is authenticated."
    return f'Model "{text}" is ambiguous across providers: {matches}. {hint} Use --provider or provider/model.'


def resolve_cli_model(
    models: Sequence[Model],
    text: str,
    *,
    provider: str | None = None,
    thinking: str | None = None,
    inline_api_key: bool = False,
    has_credentials: Callable[[str], bool],
) -> CliModel:
    """``--model TEXT`` (``--provider``, ``--thinking``, ``--api-key`` given or not) among every
    model of the catalog."""
    if not models:
        return CliModel(error=NO_MODELS)
    chosen_provider = None
    if provider:
        chosen_provider = next((m["provider"] for m in models if m["provider"].lower() == provider.lower()), None)
        if chosen_provider is None:
            return CliModel(error=unknown_provider_message(provider))
    # An inline key serves whichever provider is picked: stored credentials must not pick it.
    usable = (lambda _p: False) if inline_api_key else has_credentials
    result = resolve_model_reference(text, models, provider=chosen_provider, suffix="strict", usable=usable)
    if result.status == "resolved" and result.model is not None:
        return CliModel(result.model, result.thinking_level, result.warning)
    if result.status == "ambiguous":
        return CliModel(error=ambiguous_message(text, result, inline_api_key=inline_api_key))
    target = result.target
    if target is None:
        return CliModel(error=not_found_message(text))
    # With --thinking given, a ":<level>" suffix stays part of the custom id.
    model_id = target.model_text if thinking else target.model_id
    level = None if thinking else target.thinking_level
    custom = custom_model(target.provider_models, model_id)
    requested = thinking or level
    if requested and requested != "off":
        custom["reasoning"] = True
    warning = f'Model "{model_id}" not found for provider "{target.provider}". Using custom model id.'
    return CliModel(custom, level, warning)


def custom_model(provider_models: Sequence[Model], model_id: str) -> Model:
    """A model the catalog does not list: the provider's default model (else its first) with
    another id and name."""
    default_id = DEFAULT_MODEL_PER_PROVIDER.get(provider_models[0]["provider"])
    base = next((m for m in provider_models if m["id"] == default_id), provider_models[0])
    model: Model = {**base, "id": model_id, "name": model_id}
    return model


def resolve_model_pattern(models: Sequence[Model], pattern: str, provider: str | None = None) -> ModelMatch:
    """One reference among ``models`` (``/model TEXT``, the SDK's ``model="..."``); raises
    ``ModelResolutionError`` with the message to show when it matches none or several."""
    result = resolve_model_reference(pattern, models, provider=provider, suffix="strict")
    if result.status == "resolved" and result.model is not None:
        return ModelMatch(result.model, result.thinking_level)
    if result.status == "ambiguous":
        raise ModelResolutionError(ambiguous_message(pattern, result, inline_api_key=False))
    raise ModelResolutionError(not_found_message(pattern))


@dataclass
class ModelScope:
    models: list[ModelMatch] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, model: Model, level: ThinkingLevel | None) -> None:
        key = (model["provider"], model["id"])
        if all((m.model["provider"], m.model["id"]) != key for m in self.models):
            self.models.append(ModelMatch(model, level))


def _is_glob(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")


def _ambiguous_scope(pattern: str, candidates: Sequence[Model]) -> str:
    providers = ", ".join(sorted({m["provider"] for m in candidates}))
    return f'Pattern "{pattern}" matches several providers: {providers}. Use provider/id to choose one.'


def resolve_model_scope_with_warnings(models: Sequence[Model], patterns: Sequence[str]) -> ModelScope:
    """``--models a,b`` / ``enabledModels`` among ``models`` (the available ones): every model a
    pattern matches, each once, in pattern order; what matched nothing or several providers is
    a warning."""
    scope = ModelScope()
    for entry in patterns:
        pattern = entry.strip()
        if not pattern:
            continue
        if _is_glob(pattern):
            thinking = split_thinking_suffix(pattern)
            glob, level = thinking if thinking else (pattern, None)
            # Ids such as ``bracketed-model[1m]`` are not globs.
            exact = resolve_model_reference(glob, models, suffix="none", fuzzy=False)
            if exact.status == "resolved" and exact.model is not None:
                matches = [exact.model]
            elif exact.status == "ambiguous":
                matches = list(exact.candidates)
                scope.warnings.append(_ambiguous_scope(pattern, matches))
            else:
                matches = [
                    m
                    for m in models
                    if glob_match(f"{m['provider']}/{m['id']}", glob, nocase=True)
                    or glob_match(m["id"], glob, nocase=True)
                ]
            if not matches:
                scope.warnings.append(f'No models match pattern "{pattern}"')
            for model in matches:
                scope.add(model, level)
            continue
        result = resolve_model_reference(pattern, models, suffix="lenient")
        if result.status == "not-found":
            scope.warnings.append(f'No models match pattern "{pattern}"')
            continue
        if result.warning:
            scope.warnings.append(result.warning)
        if result.status == "ambiguous":
            scope.warnings.append(_ambiguous_scope(pattern, result.candidates))
        found = [result.model] if result.model is not None else list(result.candidates)
        for model in found:
            scope.add(model, result.thinking_level)
    return scope


def resolve_model_scope(models: Sequence[Model], patterns: Sequence[str]) -> list[ModelMatch]:
    """``resolve_model_scope_with_warnings`` without the warnings."""
    return resolve_model_scope_with_warnings(models, patterns).models


def default_model(available: Sequence[Model]) -> Model | None:
    """The first provider default (in ``DEFAULT_MODEL_PER_PROVIDER`` order) that is available,
    else the first available model."""
    for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
        for model in available:
            if model["provider"] == provider and model["id"] == model_id:
                return model
    return available[0] if available else None
