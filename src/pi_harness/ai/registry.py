"""The API-provider registry, keyed by ``api`` id (a model's ``api`` field picks its provider).

Built-in providers are registered lazily: their module is imported the first time a model of
that API is streamed, so importing ``pi_harness.ai`` costs almost nothing.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass

from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Context, Model


@dataclass(frozen=True)
class ApiProvider:
    api: str
    stream: Callable[[Model, Context, StreamOptions | None], AssistantMessageEventStream]
    stream_simple: Callable[[Model, Context, SimpleStreamOptions | None], AssistantMessageEventStream]
    # In-process providers (faux, some extension providers) need no credentials.
    requires_api_key: bool = True


# api id -> module exposing ``PROVIDER: ApiProvider``
BUILTIN_PROVIDER_MODULES: dict[str, str] = {
    "openai-completions": "pi_harness.ai.providers.openai_completions",
    "openai-responses": "pi_harness.ai.providers.openai_responses",
    "anthropic-messages": "pi_harness.ai.providers.anthropic",
    "google-generative-ai": "pi_harness.ai.providers.google",
    "azure-openai-responses": "pi_harness.ai.providers.azure_openai_responses",
    "openai-codex-responses": "pi_harness.ai.providers.openai_codex_responses",
    "mistral-conversations": "pi_harness.ai.providers.mistral_conversations",
    "google-vertex": "pi_harness.ai.providers.google_vertex",
    "bedrock-converse-stream": "pi_harness.ai.providers.bedrock_converse_stream",
    "pi-messages": "pi_harness.ai.providers.pi_messages",
    "faux": "pi_harness.ai.providers.faux",
}

_registered: dict[str, tuple[ApiProvider, str | None]] = {}


def register_api_provider(provider: ApiProvider, source_id: str | None = None) -> None:
    """Register (or replace) the provider of ``provider.api``; ``source_id`` groups removals."""
    _registered[provider.api] = (provider, source_id)


def unregister_api_providers(source_id: str) -> None:
    for api in [api for api, (_, src) in _registered.items() if src == source_id]:
        del _registered[api]


def clear_api_providers() -> None:
    _registered.clear()


def get_api_provider(api: str) -> ApiProvider | None:
    entry = _registered.get(api)
    if entry is not None:
        return entry[0]
    module_name = BUILTIN_PROVIDER_MODULES.get(api)
    if module_name is None:
        return None
    # Every request asks: the import machinery (a lock, a finder pass) only the first time.
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    provider: ApiProvider = module.PROVIDER
    return provider


def get_registered_apis() -> list[str]:
    return sorted(set(_registered) | set(BUILTIN_PROVIDER_MODULES))


def resolve_api_provider(model: Model) -> ApiProvider:
    provider = get_api_provider(model["api"])
    if provider is None:
        raise ValueError(f"No API provider registered for api: {model['api']}")
    if provider.api != model["api"]:
        raise ValueError(f"Mismatched api: {model['api']} expected {provider.api}")
    return provider
