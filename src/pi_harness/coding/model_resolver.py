"""``--model`` / ``--models`` patterns and the initial model.

A pattern is ``provider/id``, an exact id, or a fuzzy id/name fragment, optionally followed by
``:<thinking level>``. Scope patterns (``--models``, ``enabledModels``) also accept globs such as
``anthropic/*`` or ``*sonnet*``.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from pi_harness.ai.types import THINKING_LEVELS, Model, ThinkingLevel

_DATED = re.compile(r"-\d{8}$|-\d{4}-\d{2}-\d{2}$")

# Preferred default model per provider, when available (first match wins).
DEFAULT_MODEL_PREFERENCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("anthropic", ("claude-sonnet-4-5", "claude-sonnet-4", "claude-opus-4-1")),
    ("openai", ("gpt-5", "gpt-5-mini", "gpt-4.1")),
    ("google", ("gemini-2.5-pro", "gemini-2.5-flash")),
    ("openrouter", ("anthropic/claude-sonnet-4.5", "openai/gpt-5")),
    ("xai", ("grok-4",)),
    ("groq", ("openai/gpt-oss-120b",)),
    ("cerebras", ("gpt-oss-120b",)),
    ("mistral", ("devstral-medium-latest",)),
)


@dataclass(frozen=True)
class ModelMatch:
    model: Model
    thinking_level: ThinkingLevel | None = None


class ModelResolutionError(ValueError):
    pass


def split_thinking_suffix(pattern: str) -> tuple[str, ThinkingLevel | None]:
    head, sep, tail = pattern.rpartition(":")
    level = next((known for known in THINKING_LEVELS if known == tail), None)
    if sep and head and level is not None:
        return head, level
    return pattern, None


def _rank(model: Model) -> tuple[int, str]:
    # Prefer undated aliases ("claude-sonnet-4-5") over dated snapshots, then the newest date.
    dated = _DATED.search(model["id"])
    return (1 if dated else 0, "" if not dated else model["id"])


def _pick(candidates: list[Model]) -> Model | None:
    if not candidates:
        return None
    undated = [m for m in candidates if not _DATED.search(m["id"])]
    if undated:
        return min(undated, key=lambda m: (len(m["id"]), m["id"]))
    return max(candidates, key=lambda m: m["id"])


def find_model(models: list[Model], pattern: str, provider: str | None = None) -> Model | None:
    """Exact ``provider/id``, exact id, exact name, then fuzzy substring of id or name."""
    pool = [m for m in models if provider is None or m["provider"] == provider]
    if "/" in pattern:
        prov, _, mid = pattern.partition("/")
        for model in pool:
            if model["provider"] == prov and model["id"] == mid:
                return model
    exact = [m for m in pool if m["id"] == pattern]
    if exact:
        return exact[0]
    lowered = pattern.lower()
    exact_ci = [m for m in pool if m["id"].lower() == lowered or m["name"].lower() == lowered]
    if exact_ci:
        return exact_ci[0]
    fuzzy = [
        m
        for m in pool
        if lowered in m["id"].lower() or lowered in m["name"].lower() or lowered in f"{m['provider']}/{m['id']}".lower()
    ]
    return _pick(fuzzy)


def resolve_model_pattern(models: list[Model], pattern: str, provider: str | None = None) -> ModelMatch:
    """Resolve one ``--model`` value; raises ``ModelResolutionError`` with a clear message."""
    model = find_model(models, pattern, provider)
    if model is not None:
        return ModelMatch(model)
    base, level = split_thinking_suffix(pattern)
    if level is not None:
        model = find_model(models, base, provider)
        if model is not None:
            return ModelMatch(model, level)
    where = f" for provider {provider}" if provider else ""
    raise ModelResolutionError(f'Model "{pattern}" not found{where}. Use --list-models to see available models.')


def resolve_model_scope(models: list[Model], patterns: list[str]) -> list[ModelMatch]:
    """``--models a,b`` / ``enabledModels``: globs over ``provider/id`` and id, or fuzzy patterns."""
    out: list[ModelMatch] = []
    seen: set[tuple[str, str]] = set()
    for entry in patterns:
        raw = entry.strip()
        if not raw:
            continue
        base, level = split_thinking_suffix(raw)
        if any(ch in base for ch in "*?["):
            glob = base.lower()
            matched = [
                m
                for m in models
                if fnmatch.fnmatchcase(f"{m['provider']}/{m['id']}".lower(), glob)
                or ("/" not in glob and fnmatch.fnmatchcase(m["id"].lower(), glob))
            ]
        else:
            try:
                match = resolve_model_pattern(models, raw)
            except ModelResolutionError:
                continue
            matched, level = [match.model], match.thinking_level
        for model in matched:
            key = (model["provider"], model["id"])
            if key not in seen:
                seen.add(key)
                out.append(ModelMatch(model, level))
    return out


def default_model(available: list[Model]) -> Model | None:
    """The first preferred model that is available, else the first available one."""
    by_provider: dict[str, list[Model]] = {}
    for model in available:
        by_provider.setdefault(model["provider"], []).append(model)
    for provider, ids in DEFAULT_MODEL_PREFERENCES:
        models = by_provider.get(provider)
        if not models:
            continue
        for wanted in ids:
            for model in models:
                if model["id"] == wanted:
                    return model
        return models[0]
    return available[0] if available else None
