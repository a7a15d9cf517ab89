"""Which transport a Codex request takes, and the WebSocket attempt with its retries and fallback.

``WebSocketAttempt.run`` sends the request over the session's WebSocket (``codex_websocket``) and
reads the answer into the message builder. It returns ``True`` once the answer is complete and
``False`` when the request should go over SSE instead: the connection failed before the first
event. Then the message keeps a ``provider_transport_failure`` diagnostic (as Pi's does) and the
session uses SSE from then on. A failure after the first event, or an error the service reported,
ends the request as an error.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import dumps
from pi_harness.ai.message_builder import MessageBuilder, now_ms
from pi_harness.ai.options import StreamOptions, resolve_cache_retention
from pi_harness.ai.providers import codex_websocket as ws
from pi_harness.ai.types import Model, StopReason

if TYPE_CHECKING:
    from pi_harness.ai.providers.codex_websocket import Lease

ZSTD_LEVEL = 3
_CACHED_CONTEXT = frozenset({"websocket-cached", "auto"})
_OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})


class EventReader(Protocol):
    terminated: bool

    def check(self, data: JsonObject) -> None: ...

    def feed_object(self, data: JsonObject) -> None: ...

    def result(self) -> StopReason | None: ...


def zstd_compress(data: bytes) -> bytes | None:
    """``data`` compressed with zstd, or ``None`` when no codec is importable."""
    try:
        from compression import zstd  # type: ignore[import-not-found, unused-ignore]  # Python 3.14+

        return bytes(zstd.compress(data, level=ZSTD_LEVEL))
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        return None
    return bytes(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data))


class WebSocketAttempt:
    def __init__(
        self,
        model: Model,
        options: StreamOptions,
        builder: MessageBuilder,
        url: str,
        sse_headers: Mapping[str, str],
        account: str,
    ) -> None:
        self.model = model
        self.options = options
        self.builder = builder
        self.transport = options.transport or "auto"
        # Connections and continuations are kept per session (Pi: unless caching is off).
        retention = resolve_cache_retention(options.cache_retention)
        self.session = options.session_id if retention != "none" and options.session_id else None
        header_session = sse_headers.get("session-id")
        self.url = ws.websocket_url(url)
        self.headers = ws.websocket_headers(sse_headers, header_session or str(uuid.uuid4()))
        self.account = account

    def wanted(self) -> bool:
        return self.transport != "sse" and not ws.uses_sse_now(self.session)

    async def run(self, payload: dict[str, object], new_reader: Callable[[], EventReader]) -> bool:
        retried_limit = retried_missing = False
        while True:
            started = False

            def on_first_event() -> None:
                nonlocal started
                started = True
                self.builder.start()

            try:
                await self._once(payload, new_reader(), on_first_event)
                return True
            except asyncio.CancelledError:
                raise
            except Exception as error:
                code = error.code if isinstance(error, ws.CodexApiError) else None
                if code == ws.PREVIOUS_RESPONSE_NOT_FOUND and not retried_missing and not started:
                    retried_missing = True
                    continue
                limit = not started and code == ws.CONNECTION_LIMIT_REACHED
                if limit and not retried_limit:
                    retried_limit = True
                    continue
                if not ws.is_transport_failure(error) and not limit:
                    raise
                self._diagnose(error, started, payload)
                ws.record_failure(self.session)
                if started:
                    raise
                return False

    async def _once(self, payload: dict[str, object], reader: EventReader, on_first_event: Callable[[], None]) -> None:
        lease = await ws.acquire(
            self.url, self.headers, self.session, self.account, self.options.websocket_connect_timeout_ms
        )
        keep = False
        try:
            cached = self.transport in _CACHED_CONTEXT and lease.entry is not None
            body = ws.continued_body(lease.entry, payload) if cached and lease.entry is not None else payload
            await ws.send_request(lease.socket, body)
            # Each message may take the request timeout (``retry.provider.timeoutMs``), by default
            # the idle timeout, as in Pi.
            wait_ms = self.options.timeout_ms if self.options.timeout_ms is not None else self.options.idle_timeout_ms
            async for data in ws.events(lease.socket, wait_ms):
                await self._announce(data)
                reader.check(data)
                if not self.builder.started:
                    on_first_event()
                reader.feed_object(data)
                if reader.terminated:
                    break
            if not reader.terminated:
                raise ws.WebSocketTransportError("WebSocket stream closed before response.completed")
            self.builder.finish(reader.result())
            aborted = self.options.signal is not None and self.options.signal.aborted
            keep = not aborted
            if cached and keep:
                self._remember(lease, payload)
        finally:
            if lease.entry is not None and not keep:
                lease.entry.continuation = None
            lease.release(keep)

    async def _announce(self, data: JsonObject) -> None:
        hook = self.options.on_stream_event
        if hook is None:
            return
        try:
            outcome = hook(data, self.model)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            raise ws.StreamHookError(str(exc) or type(exc).__name__) from exc

    def _remember(self, lease: Lease, payload: dict[str, object]) -> None:
        from pi_harness.ai.providers.openai_responses_convert import build_input

        response_id = self.builder.output.get("responseId")
        if lease.entry is None or not response_id:
            return
        items = build_input(self.model, {"systemPrompt": "", "messages": [self.builder.output]})
        answer = [item for item in items if item.get("type") not in _OUTPUT_ITEMS]
        lease.entry.continuation = ws.Continuation(payload, response_id, list(answer))

    def _diagnose(self, error: Exception, started: bool, payload: dict[str, object]) -> None:
        details: JsonObject = {"configuredTransport": self.transport}
        if not started:
            details["fallbackTransport"] = "sse"
        details.update(
            {
                "eventsEmitted": started,
                "phase": "after_message_stream_start" if started else "before_message_stream_start",
                "requestBytes": len(dumps(payload)),
            }
        )
        self.builder.output.setdefault("diagnostics", []).append(
            {
                "type": "provider_transport_failure",
                "timestamp": now_ms(),
                "error": {"name": type(error).__name__, "message": self.builder.redact(str(error))},
                "details": details,
            }
        )
