"""The WebSocket transport of ``openai-codex-responses`` (settings ``transport``: ``websocket``,
``websocket-cached`` and ``auto``, Pi 1.4.0's default).

The request goes to the Codex route with ``ws``/``wss`` in place of ``http``/``https`` and
is sent as one text message, ``{"type": "response.create", ...body}``; every message back is one
Responses event as JSON, and ``response.completed``/``response.done``/``response.incomplete``
ends the answer. The upgrade request carries the Codex headers with
``OpenAI-Beta: responses_websockets=2026-02-06`` and, as both ``session-id`` and
``x-client-request-id``, the prompt-cache session id (or a fresh id without one).

What is kept between requests, per session id and ChatGPT account (without a session id every
request has a connection of its own):

* **the connection**, reused by the next request of the session while it is open, closed after
  5 idle minutes or once it is 55 minutes old; a second request while one runs opens another;
* **the continuation** (``websocket-cached`` and ``auto``): after an answer, the request body and
  the answer's items. When the next body differs from that one only by items appended to its
  ``input``, only those items are sent, with ``previous_response_id`` naming the last answer (the
  service keeps the conversation per connection; ``store`` stays ``false``). A
  ``previous_response_not_found`` error resends the full body once;
* **the SSE fallback**: a transport failure (no upgrade, refused, closed, timed out) before the
  first event marks the session, and its requests use SSE from then on (in this process).

Errors the service reports (``error`` events, ``response.failed``) and unreadable messages are not
transport failures: they end the request like the same error over SSE. One
``websocket_connection_limit_reached`` before the first event is retried on a new connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import loads
from pi_harness.ai.providers.openai_responses_events import ResponsesStreamError
from pi_harness.ai.session_resources import on_session_end

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

OPENAI_BETA = "responses_websockets=2026-02-06"
IDLE_CLOSE_S = 5 * 60
MAX_AGE_S = 55 * 60
CONNECTION_LIMIT_REACHED = "websocket_connection_limit_reached"
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"
MESSAGE_TOO_BIG = 1009
_TERMINAL = frozenset({"response.completed", "response.done", "response.incomplete"})
# The Codex route's JSON headers have no meaning on an upgrade request.
_DROPPED_HEADERS = frozenset({"accept", "content-type", "openai-beta", "content-encoding"})


class CodexApiError(ResponsesStreamError):
    """An error the service reported in the stream (``error`` or ``response.failed``)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class CodexProtocolError(ResponsesStreamError):
    """A message that is not a JSON event."""


class StreamHookError(Exception):
    """The ``provider_stream_event`` hook failed: never a reason to change transports."""


class WebSocketTransportError(ConnectionError):
    """The connection failed (not the service): a reason to fall back to SSE."""


def is_transport_failure(error: BaseException) -> bool:
    return not isinstance(error, CodexApiError | CodexProtocolError | StreamHookError)


def websocket_url(http_url: str) -> str:
    parts = urlsplit(http_url)
    scheme = {"https": "wss", "http": "ws"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))


def websocket_headers(sse_headers: Mapping[str, str], request_id: str) -> dict[str, str]:
    """The upgrade request's headers from the SSE request's (credentials and model headers kept)."""
    headers = {name: value for name, value in sse_headers.items() if name.lower() not in _DROPPED_HEADERS}
    for name in [n for n in headers if n.lower() in ("session-id", "x-client-request-id")]:
        del headers[name]
    headers["openai-beta"] = OPENAI_BETA
    headers["x-client-request-id"] = request_id
    headers["session-id"] = request_id
    return headers


# --- connections --------------------------------------------------------------------------------


@dataclass
class Continuation:
    body: dict[str, object]  # the full body of the last request
    response_id: str
    items: list[Any]  # the last answer as input items


@dataclass
class _Cached:
    socket: ClientConnection
    created: float = field(default_factory=time.monotonic)
    busy: bool = True
    continuation: Continuation | None = None
    expiry: asyncio.TimerHandle | None = None


@dataclass
class Lease:
    socket: ClientConnection
    entry: _Cached | None  # None: a connection of this request only
    reused: bool
    release: Callable[[bool], None]  # keep: whether the connection may serve the next request


_cache: dict[str, dict[str, _Cached]] = {}
_sse_sessions: set[str] = set()


def uses_sse_now(session: str | None) -> bool:
    """Whether a transport failure sent this session to SSE for the rest of the process."""
    return session is not None and session in _sse_sessions


def record_failure(session: str | None) -> None:
    if session is not None:
        _sse_sessions.add(session)


def _open(socket: ClientConnection) -> bool:
    from websockets.protocol import State

    return socket.state is State.OPEN


def _close_later(socket: ClientConnection, reason: str = "done") -> None:
    """Close with a close frame in the background (the caller may be cancelled)."""

    async def close() -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(socket.close(1000, reason), 2)

    with contextlib.suppress(RuntimeError):
        task = asyncio.get_running_loop().create_task(close())
        _closing.add(task)
        task.add_done_callback(_closing.discard)


_closing: set[asyncio.Task[None]] = set()


def _forget(session: str, account: str, entry: _Cached) -> None:
    entries = _cache.get(session)
    if entries is not None and entries.get(account) is entry:
        del entries[account]
        if not entries:
            del _cache[session]


def _schedule_expiry(session: str, account: str, entry: _Cached) -> None:
    def expire() -> None:
        if not entry.busy:
            _close_later(entry.socket, "idle_timeout")
            _forget(session, account, entry)

    entry.expiry = asyncio.get_running_loop().call_later(IDLE_CLOSE_S, expire)


async def connect(url: str, headers: Mapping[str, str], connect_timeout_ms: int) -> ClientConnection:
    """Open a connection; every failure is a ``WebSocketTransportError`` with a readable message."""
    try:
        from websockets.asyncio.client import connect as ws_connect
        from websockets.exceptions import InvalidStatus, WebSocketException
    except ImportError as exc:  # a core dependency; only a broken install lacks it
        raise WebSocketTransportError("WebSocket transport needs the 'websockets' package") from exc
    from pi_harness.ai import tls
    from pi_harness.ai.http_transport import user_agent

    secure = url.startswith("wss:")
    timeout = connect_timeout_ms / 1000 if connect_timeout_ms > 0 else None
    try:
        return await ws_connect(
            url,
            additional_headers=dict(headers),
            user_agent_header=user_agent(),
            ssl=tls.verified_context() if secure else None,
            open_timeout=timeout,
            ping_interval=None,
            max_size=None,
            compression=None,
        )
    except TimeoutError:
        raise WebSocketTransportError(f"WebSocket connect timeout after {connect_timeout_ms}ms") from None
    except InvalidStatus as exc:
        status = exc.response.status_code
        raise WebSocketTransportError(f"WebSocket upgrade refused: HTTP {status}") from exc
    except (OSError, WebSocketException) as exc:
        raise WebSocketTransportError(f"WebSocket error: {exc or type(exc).__name__}") from exc


async def acquire(
    url: str, headers: Mapping[str, str], session: str | None, account: str, connect_timeout_ms: int
) -> Lease:
    """A connection for one request: the session's cached one when it is free and open."""

    def private(socket: ClientConnection) -> Lease:
        return Lease(socket, None, False, lambda _keep: _close_later(socket))

    if session is None:
        return private(await connect(url, headers, connect_timeout_ms))
    cached = _cache.get(session, {}).get(account)
    if cached is not None:
        if cached.expiry is not None:
            cached.expiry.cancel()
            cached.expiry = None
        if cached.busy:
            return private(await connect(url, headers, connect_timeout_ms))
        if time.monotonic() - cached.created >= MAX_AGE_S or not _open(cached.socket):
            _close_later(cached.socket, "connection_age_limit")
            _forget(session, account, cached)
        else:
            cached.busy = True
            return Lease(cached.socket, cached, True, _releaser(session, account, cached))
    socket = await connect(url, headers, connect_timeout_ms)
    entry = _Cached(socket)
    _cache.setdefault(session, {})[account] = entry
    on_session_end(close_sessions)
    return Lease(socket, entry, False, _releaser(session, account, entry))


def _releaser(session: str, account: str, entry: _Cached) -> Callable[[bool], None]:
    def release(keep: bool) -> None:
        if not keep or not _open(entry.socket):
            _close_later(entry.socket)
            _forget(session, account, entry)
            return
        entry.busy = False
        _schedule_expiry(session, account, entry)

    return release


async def close_sessions(session: str | None = None) -> None:
    """Close the cached connections of one session (all without an id): a disposed session's."""
    sessions = [session] if session is not None else list(_cache)
    for name in sessions:
        for entry in _cache.pop(name, {}).values():
            if entry.expiry is not None:
                entry.expiry.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(entry.socket.close(1000, "session_closed"), 2)


# --- requests -----------------------------------------------------------------------------------


def _without_input(body: Mapping[str, object]) -> dict[str, object]:
    return {key: value for key, value in body.items() if key not in ("input", "previous_response_id")}


def continued_body(entry: _Cached, body: dict[str, object]) -> dict[str, object]:
    """The body to send on ``entry``'s connection: only the new input items when the body
    continues the last request and its answer, else the full body (and no continuation)."""
    last = entry.continuation
    if last is None:
        return body
    current = body.get("input")
    baseline = [*_as_list(last.body.get("input")), *last.items]
    items = _as_list(current)
    same_request = _without_input(body) == _without_input(last.body)
    if not same_request or len(items) < len(baseline) or items[: len(baseline)] != baseline:
        entry.continuation = None
        return body
    return {**body, "previous_response_id": last.response_id, "input": items[len(baseline) :]}


def _as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _close_error(socket: ClientConnection) -> WebSocketTransportError:
    code = socket.close_code if socket.close_code is not None else 1006
    reason = socket.close_reason or ""
    if not reason and code == MESSAGE_TOO_BIG:
        reason = "message too big"
    return WebSocketTransportError(f"WebSocket closed {code} {reason}".strip())


async def events(socket: ClientConnection, idle_timeout_ms: int) -> AsyncIterator[JsonObject]:
    """The events of one answer, up to and including its terminal event."""
    from websockets.exceptions import ConnectionClosed

    timeout = idle_timeout_ms / 1000 if idle_timeout_ms > 0 else None
    while True:
        try:
            message = await asyncio.wait_for(socket.recv(), timeout)
        except TimeoutError:
            _close_later(socket, "idle_timeout")
            raise WebSocketTransportError(f"WebSocket idle timeout after {idle_timeout_ms}ms") from None
        except ConnectionClosed:
            raise _close_error(socket) from None
        text = message.decode("utf-8", errors="replace") if isinstance(message, bytes) else message
        try:
            data = loads(text)
        except ValueError as exc:
            raise CodexProtocolError(f"Invalid Codex WebSocket JSON: {exc}") from None
        if not isinstance(data, dict):
            continue
        yield data
        if data.get("type") in _TERMINAL:
            return


async def send_request(socket: ClientConnection, body: Mapping[str, object]) -> None:
    from websockets.exceptions import ConnectionClosed

    from pi_harness.ai.jsonutil import dumps

    try:
        await socket.send(dumps({"type": "response.create", **body}).decode("utf-8"))
    except ConnectionClosed:
        raise _close_error(socket) from None


HookRunner = Callable[[JsonObject], Awaitable[None]]
