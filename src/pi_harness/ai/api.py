"""The entry points: ``stream``, ``complete``, ``stream_simple``, ``complete_simple``."""

from __future__ import annotations

import dataclasses

from pi_harness.ai.env_keys import get_env_api_key
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.registry import resolve_api_provider
from pi_harness.ai.request_model import prepare_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, Model


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    """Stream one response with API-specific options. A missing key fails inside the stream."""
    provider = resolve_api_provider(model)
    opts = options if options is not None else StreamOptions()
    if opts.api_key is None:
        opts = dataclasses.replace(opts, api_key=get_env_api_key(model["provider"]) or "")
    model, opts = prepare_request(model, opts, None)
    return provider.stream(model, context, opts)


async def complete(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessage:
    return await stream(model, context, options).result()


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream with the unified ``reasoning`` option.

    Raises ``ValueError("No API key for provider: <provider>")`` before any stream exists when
    no key can be resolved; every later failure is an ``error`` event.
    """
    provider = resolve_api_provider(model)
    opts = options if options is not None else SimpleStreamOptions()
    if not opts.api_key:
        key = get_env_api_key(model["provider"])
        if not key and provider.requires_api_key:
            raise ValueError(f"No API key for provider: {model['provider']}")
        opts = dataclasses.replace(opts, api_key=key or "")
    model, opts = prepare_request(model, opts, opts.reasoning)
    return provider.stream_simple(model, context, opts)


async def complete_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessage:
    return await stream_simple(model, context, options).result()
