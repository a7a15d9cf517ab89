"""Request options shared by every API: sampling, credentials, caching, hooks, retries, timeouts.

Options are runtime objects (dataclasses with snake_case names), not wire data. Providers that
accept extra, API-specific options subclass ``StreamOptions``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TypeVar

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import CacheRetention, Model, ThinkingLevel

# The request body as a JSON object; the hook may change it in place or return a replacement.
PayloadHook = Callable[[dict[str, object], Model], "dict[str, object] | Awaitable[dict[str, object] | None] | None"]
ResponseHook = Callable[[int, Mapping[str, str]], "Awaitable[None] | None"]
# Called with each parsed event of the response stream, before it is read (``data``, ``model``).
StreamEventHook = Callable[[object, Model], "Awaitable[None] | None"]

DEFAULT_MAX_RETRY_DELAY_MS = 60_000
DEFAULT_HTTP_IDLE_TIMEOUT_MS = 300_000
DEFAULT_WEBSOCKET_CONNECT_TIMEOUT_MS = 15_000
DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


def resolve_cache_retention(retention: CacheRetention | None) -> CacheRetention:
    """The option, else ``long`` when ``PI_CACHE_RETENTION=long``, else ``short``."""
    if retention is not None:
        return retention
    from pi_harness.ai.environ import get_env

    return "long" if get_env("PI_CACHE_RETENTION") == "long" else "short"


@dataclass
class StreamOptions:
    temperature: float | None = None
    max_tokens: int | None = None
    signal: AbortSignal | None = None
    api_key: str | None = None
    transport: str | None = None
    cache_retention: CacheRetention | None = None
    session_id: str | None = None
    # Inspect or replace the request body; returning None keeps it (extension hook
    # ``before_provider_request``).
    on_payload: PayloadHook | None = None
    # Called with the HTTP status and headers once a response arrives
    # (extension hook ``after_provider_response``).
    on_response: ResponseHook | None = None
    # Sees each parsed event of the response stream (extension hook ``provider_stream_event``).
    on_stream_event: StreamEventHook | None = None
    headers: dict[str, str] | None = None
    max_retry_delay_ms: int = DEFAULT_MAX_RETRY_DELAY_MS
    # Request metadata; Anthropic sends ``user_id`` from it, the other APIs ignore it.
    metadata: dict[str, object] | None = None
    # Provider-level request retry (``retry.provider.maxRetries``); 0 = off, Pi's default.
    max_retries: int = 0
    idle_timeout_ms: int = DEFAULT_HTTP_IDLE_TIMEOUT_MS
    # How long opening a WebSocket may take (``websocketConnectTimeoutMs``; 0: no limit).
    websocket_connect_timeout_ms: int = DEFAULT_WEBSOCKET_CONNECT_TIMEOUT_MS
    # How long one attempt may wait for the response's status and headers
    # (``retry.provider.timeoutMs``); None leaves that wait to the idle timeout, as Pi's default.
    timeout_ms: int | None = None
    # Summarisation requests turn prompt-cache writes off (compaction, branch summaries).
    disable_cache_writes: bool = False
    # API-specific extras a caller wants merged into the request body verbatim.
    extra_body: dict[str, object] = field(default_factory=dict)
    # Provider settings resolved for this request (a stored credential's ``env`` object over the
    # process environment), e.g. ``CLOUDFLARE_ACCOUNT_ID`` for the base URL's placeholder.
    env: dict[str, str] | None = None


@dataclass
class SimpleStreamOptions(StreamOptions):
    reasoning: ThinkingLevel | None = None
    thinking_budgets: dict[str, int] | None = None


_Options = TypeVar("_Options", bound=StreamOptions)
_SHARED_FIELDS: tuple[str, ...] = ()  # the names of ``StreamOptions``' fields (every request asks)


def shared_options(options: StreamOptions | None, cls: type[_Options]) -> _Options:
    """A new instance of an API's options class with the fields every API shares taken from
    ``options`` (the same objects, not copies); the API-specific fields keep their defaults."""
    global _SHARED_FIELDS
    converted = cls()
    if options is not None:
        names = _SHARED_FIELDS or tuple(shared.name for shared in fields(StreamOptions))
        _SHARED_FIELDS = names
        for name in names:
            setattr(converted, name, getattr(options, name))
    return converted


def convert_options(options: StreamOptions | None, cls: type[_Options]) -> _Options:
    """``options`` as an instance of ``cls``: itself when it is one, else ``shared_options``."""
    return options if isinstance(options, cls) else shared_options(options, cls)
