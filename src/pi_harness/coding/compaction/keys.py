"""Credentials for summary requests: an explicit key, else the environment, else none needed."""

from __future__ import annotations

from pi_harness.ai.env_keys import get_env_api_key
from pi_harness.ai.registry import get_api_provider
from pi_harness.ai.types import Model


def _requires_api_key(model: Model) -> bool:
    try:
        provider = get_api_provider(model["api"])
    except ImportError:
        return True
    return provider.requires_api_key if provider is not None else True


def resolve_api_key(model: Model, api_key: str | None) -> str | None:
    """The key to use; ``""`` for providers that need none; ``None`` when a needed key is missing."""
    if api_key:
        return api_key
    env_key = get_env_api_key(model["provider"])
    if env_key:
        return env_key
    return None if _requires_api_key(model) else ""
