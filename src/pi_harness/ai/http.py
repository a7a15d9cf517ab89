"""HTTP for providers: streamed POSTs (over the client ``http_transport`` picks), errors as
exceptions with provider-formatted messages, and the optional provider-level retry
(``retry.provider.maxRetries`` in settings.md; off by default).

Aborting is done by cancelling the request task (see ``provider_stream``): leaving the
``async with`` closes the connection, so an aborted request stops reading at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from pi_harness.ai.abort import AbortError, AbortSignal
from pi_harness.ai.body_encoding import EncodedBody, encode_body_parts
from pi_harness.ai.env_keys import AUTHENTICATED
from pi_harness.ai.environ import get_env
from pi_harness.ai.http_transport import (
    StreamingResponse,
    is_remote_protocol_error,
    is_timeout,
    send_post,
    transport_errors,
)
from pi_harness.ai.message_builder import ABORTED_MESSAGE
from pi_harness.ai.options import StreamOptions
from pi_harness.ai.retry import is_retryable_status, parse_retry_delay_ms, provider_backoff_ms
from pi_harness.ai.sse import ServerSentEvent, SSEDecoder
from pi_harness.ai.types import Model

ErrorFormatter = Callable[[int, str, Mapping[str, str]], str]


class ProviderHTTPError(Exception):
    """A non-2xx response; ``str()`` is the provider-formatted message used as ``errorMessage``."""

    def __init__(self, message: str, status: int, headers: Mapping[str, str], body: str) -> None:
        super().__init__(message)
        self.status = status
        self.headers = dict(headers)
        self.body = body


def default_error_message(status: int, body: str, _headers: Mapping[str, str]) -> str:
    """``<status> <message>``, taking ``error.message`` (or ``message``) from a JSON body."""
    from pi_harness.ai.jsonutil import loads

    text = body.strip()
    try:
        data = loads(text) if text else None
    except ValueError:
        data = None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return f"{status} {err['message']}"
        if isinstance(err, str):
            return f"{status} {err}"
        if isinstance(data.get("message"), str):
            return f"{status} {data['message']}"
    return f"{status} {text}" if text else f"{status} status code (no body)"


def join_url(base_url: str, path: str) -> str:
    return base_url.rstrip("/") + "/" + path.lstrip("/")


class RequestTimeout(Exception):
    """No response status and headers within ``retry.provider.timeoutMs``."""

    def __init__(self, timeout_ms: int) -> None:
        super().__init__(f"no response within {timeout_ms} ms")


async def _send_within(
    timeout_ms: int | None, url: str, headers: Mapping[str, str], body: bytes | EncodedBody, read_timeout: float | None
) -> StreamingResponse:
    """``send_post``, given at most ``timeout_ms`` (``0``: no limit) to return the response's head."""
    if not timeout_ms:
        return await send_post(url, headers, body, read_timeout_s=read_timeout)
    try:
        async with asyncio.timeout(timeout_ms / 1000):
            return await send_post(url, headers, body, read_timeout_s=read_timeout)
    except TimeoutError as exc:
        raise RequestTimeout(timeout_ms) from exc


def transport_error_message(exc: BaseException) -> str:
    """Readable text for network failures, phrased so retry classification recognises them."""
    if isinstance(exc, RequestTimeout):
        return f"Connection error: request timed out ({exc})"
    if is_timeout(exc):
        return f"Connection error: request timed out ({type(exc).__name__})"
    detail = str(exc) or type(exc).__name__
    if is_remote_protocol_error(exc):
        return f"Connection error: {detail} (terminated)"
    return f"Connection error: {detail}"


_HEADER_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _check_header_values(headers: Mapping[str, str]) -> None:
    """Refuse header values HTTP cannot carry (a key with a line break pasted in) before the
    HTTP library does: its message would quote the value, which may be a credential."""
    for name, value in headers.items():
        if _HEADER_CONTROL.search(value):
            # Not a connection error: retrying cannot help.
            raise ValueError(
                f'Invalid value for header "{name}": it contains a line break or another control character'
            )


@asynccontextmanager
async def post_stream(
    url: str,
    *,
    headers: Mapping[str, str],
    body: bytes | EncodedBody,
    options: StreamOptions,
    format_error: ErrorFormatter = default_error_message,
) -> AsyncIterator[StreamingResponse]:
    """POST ``body`` and yield the streaming response once it has a 2xx status.

    Non-2xx responses raise ``ProviderHTTPError``; transport failures raise ``ConnectionError``
    with a readable message. With ``options.max_retries > 0`` retryable statuses (408, 409, 429,
    5xx, ``x-should-retry``) and connection failures are retried with backoff; a server-requested
    delay above ``options.max_retry_delay_ms`` fails at once, naming the delay.
    """
    _check_header_values(headers)
    _dump_modules_once()
    # 0 turns the idle timeout off (Pi's ``httpIdleTimeoutMs: 0``).
    read_timeout = options.idle_timeout_ms / 1000 if options.idle_timeout_ms > 0 else None
    attempt = 0
    while True:
        failures: tuple[type[Exception], ...] = (*transport_errors(), RequestTimeout)
        try:
            response = await _send_within(options.timeout_ms, url, headers, body, read_timeout)
        except failures as exc:
            if attempt < options.max_retries:
                await _retry_wait(provider_backoff_ms(attempt), options.signal)
                attempt += 1
                continue
            raise ConnectionError(transport_error_message(exc)) from exc
        try:
            response_headers = {k.lower(): v for k, v in response.headers.items()}
            if options.on_response is not None:
                result = options.on_response(response.status_code, response_headers)
                if inspect.isawaitable(result):
                    await result
            if response.status_code >= 400:
                try:
                    raw = await response.aread()
                except transport_errors() as exc:
                    # Not "<status> status code (no body)": that text would read as a Cerebras overflow.
                    raise ConnectionError(
                        f"{transport_error_message(exc)} (while reading a {response.status_code} response)"
                    ) from exc
                text = raw.decode("utf-8", errors="replace")
                message = format_error(response.status_code, text, response_headers)
                if attempt < options.max_retries and is_retryable_status(response.status_code, response_headers):
                    requested = parse_retry_delay_ms(response_headers, text)
                    cap = options.max_retry_delay_ms
                    if requested is not None and cap > 0 and requested > cap:
                        raise ProviderHTTPError(
                            f"{message} (server requested a retry delay of {requested / 1000:g}s, "
                            f"above the limit of {cap / 1000:g}s)",
                            response.status_code,
                            response_headers,
                            text,
                        )
                    delay = requested if requested is not None else provider_backoff_ms(attempt)
                    await response.aclose()
                    await _retry_wait(delay, options.signal)
                    attempt += 1
                    continue
                raise ProviderHTTPError(message, response.status_code, response_headers, text)
            try:
                yield response
            except transport_errors() as exc:
                raise ConnectionError(transport_error_message(exc)) from exc
            return
        finally:
            await response.aclose()


MODULES_DUMP_ENV = "PI_DEBUG_MODULES_AT_REQUEST"
_modules_dumped = False


def _dump_modules_once() -> None:
    """With ``PI_DEBUG_MODULES_AT_REQUEST=<file>``, write the names of the imported modules to
    that file when the first request is about to be sent: the startup import guard's test reads
    it to prove that the print-mode path loads nothing it does not need before the request."""
    global _modules_dumped
    if _modules_dumped:
        return
    _modules_dumped = True  # asked at the first request only
    target = get_env(MODULES_DUMP_ENV)
    if not target:
        return
    import sys

    with open(target, "w", encoding="utf-8") as out:
        out.write("\n".join(sorted(sys.modules)) + "\n")


async def _retry_wait(delay_ms: int, signal: AbortSignal | None) -> None:
    """Sleep before a retry; the abort signal ends the wait (and the request) at once."""
    if signal is None:
        await asyncio.sleep(delay_ms / 1000)
    elif not await signal.sleep(delay_ms / 1000):
        raise AbortError(ABORTED_MESSAGE)


async def iter_sse_events(response: StreamingResponse) -> AsyncGenerator[ServerSentEvent, None]:
    """Decode the response body as Server-Sent Events, chunk by chunk."""
    decoder = SSEDecoder()
    try:
        async for chunk in response.aiter_bytes():
            for event in decoder.feed(chunk):
                yield event
    except transport_errors() as exc:
        raise ConnectionError(transport_error_message(exc)) from exc
    decoder.flush()


async def apply_payload_hook(options: StreamOptions, payload: dict[str, object], model: Model) -> dict[str, object]:
    """Run ``options.on_payload``; a returned dict replaces the payload, ``None`` keeps it."""
    if options.on_payload is None:
        return payload
    result = options.on_payload(payload, model)
    if inspect.isawaitable(result):
        result = await result
    return result if isinstance(result, dict) else payload


@asynccontextmanager
async def open_event_stream(
    url: str,
    *,
    headers: Mapping[str, str],
    body: Mapping[str, object],
    model: Model,
    options: StreamOptions,
    format_error: ErrorFormatter = default_error_message,
) -> AsyncIterator[AsyncGenerator[ServerSentEvent, None]]:
    """POST a streaming request and yield its Server-Sent Events once the status is 2xx.

    ``options.extra_body`` is laid over ``body`` and the ``on_payload`` hook sees the result, so
    what the hook inspects is what is sent. Leaving the block stops reading and closes the
    connection, even when the events were not read to the end.
    """
    payload = await apply_payload_hook(options, {**body, **options.extra_body}, model)
    # Only what is new since the last request is encoded, and the rest is not copied again
    # (``body_encoding``).
    encoded = encode_body_parts(payload)
    async with open_encoded_event_stream(
        url, headers=headers, body=encoded, options=options, format_error=format_error
    ) as events:
        yield events


@asynccontextmanager
async def open_encoded_event_stream(
    url: str,
    *,
    headers: Mapping[str, str],
    body: bytes | EncodedBody,
    options: StreamOptions,
    format_error: ErrorFormatter = default_error_message,
) -> AsyncIterator[AsyncGenerator[ServerSentEvent, None]]:
    """``open_event_stream`` for a body that is final (hooks applied, encoded, maybe compressed)."""
    async with post_stream(url, headers=headers, body=body, options=options, format_error=format_error) as response:
        events = iter_sse_events(response)
        try:
            yield events
            await _finish_body(events, bool(getattr(response, "complete", False)))
        finally:
            await events.aclose()


# How long the rest of a body is waited for once the reader has what it needs.
_FINISH_BODY_LIMIT_S = 0.5


async def _finish_body(events: AsyncGenerator[ServerSentEvent, None], complete: bool = False) -> None:
    """Read what is left of a response whose reader stopped early, without looking at it.

    A reader may stop at its protocol's last event (``data: [DONE]``) a few bytes before the body
    ends. Reading those bytes too lets the connection go back to the pool, so the next request of
    the session does not open (and, for HTTPS, handshake) a new one, and the HTTP library's
    generators end in order instead of through the event loop's finalizer. A server that keeps
    sending or holds the body open after its last event is cut off after a short wait, as before.
    When the whole body has arrived already (``complete``), what is left is only read, with no
    timer to set and cancel.
    """
    if complete:
        with contextlib.suppress(ConnectionError):
            async for _event in events:
                pass
        return
    try:
        async with asyncio.timeout(_FINISH_BODY_LIMIT_S):
            async for _event in events:
                pass
    except (TimeoutError, ConnectionError):
        pass


def bearer_authorization(api_key: str | None) -> dict[str, str]:
    """``Authorization: Bearer <key>``, or nothing without a key or for the ``AUTHENTICATED``
    placeholder (credentials another layer supplies)."""
    if not api_key or api_key == AUTHENTICATED:
        return {}
    return {"Authorization": f"Bearer {api_key}"}


def merge_headers(*sources: Mapping[str, str] | None) -> dict[str, str]:
    """Later sources win; names compared case-insensitively."""
    merged: dict[str, str] = {}
    lowered: dict[str, str] = {}
    for source in sources:
        for key, value in (source or {}).items():
            previous = lowered.get(key.lower())
            if previous is not None:
                merged.pop(previous, None)
            merged[key] = value
            lowered[key.lower()] = key
    return merged
