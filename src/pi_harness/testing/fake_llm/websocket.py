"""The Codex backend's WebSocket route as the fake server speaks it (RFC 6455, written out here).

``GET …/codex/responses`` with ``Upgrade: websocket`` is answered with ``101 Switching Protocols``
when the server allows WebSockets (``FakeLLMServer.websocket``), else with ``426 Upgrade
Required`` (a client then falls back to SSE). On an open connection every text message is a
request, ``{"type": "response.create", ...body}``, recorded as a ``RecordedRequest`` with method
``WEBSOCKET`` and the upgrade request's headers. Its answer is the scripted response's events,
one JSON text message per event, exactly the ``data`` of the SSE frames the HTTP route would send.

Like the service, the connection remembers the id of its last completed response: a request
whose ``previous_response_id`` is not that id gets an ``error`` event with the code
``previous_response_not_found``. A scripted ``http_error`` becomes an ``error`` event carrying
the error object (its ``type`` as the ``code``, e.g. ``websocket_connection_limit_reached``);
``drop_after`` drops the TCP connection after that many events, ``close_after`` (the
``stall_after`` field) sends a close frame with code 1011 instead of the rest.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import struct
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import orjson

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest, ScriptedResponse

if TYPE_CHECKING:
    from pi_harness.testing.fake_llm.server import WireProtocol

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"


def is_upgrade(method: str, headers: dict[str, str]) -> bool:
    return method == "GET" and headers.get("upgrade", "").lower() == "websocket"


def accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + _GUID).digest()).decode("ascii")


def encode_frame(opcode: int, payload: bytes) -> bytes:
    """A final, unmasked frame (a server never masks)."""
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, length)
    return head + payload


async def read_message(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[int, bytes] | None:
    """The next data message (opcode, payload), answering pings; ``None`` after a close frame."""
    parts: list[bytes] = []
    opcode = OP_TEXT
    while True:
        first, second = await reader.readexactly(2)
        final, frame_opcode = bool(first & 0x80), first & 0x0F
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await reader.readexactly(8))
        mask = await reader.readexactly(4) if second & 0x80 else b"\0\0\0\0"
        data = bytes(b ^ mask[i % 4] for i, b in enumerate(await reader.readexactly(length)))
        if frame_opcode == OP_CLOSE:
            writer.write(encode_frame(OP_CLOSE, data[:2]))
            await writer.drain()
            return None
        if frame_opcode == OP_PING:
            writer.write(encode_frame(OP_PONG, data))
            continue
        if frame_opcode == OP_PONG:
            continue
        if frame_opcode != OP_CONTINUATION:
            opcode = frame_opcode
        parts.append(data)
        if final:
            return opcode, b"".join(parts)


def _close_frame(code: int, reason: str) -> bytes:
    return encode_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8"))


def sse_payloads(frames: list[bytes]) -> list[bytes]:
    """The ``data`` of each SSE frame (the JSON of one event)."""
    out: list[bytes] = []
    for frame in frames:
        data = [line[5:].strip() for line in frame.split(b"\n") if line.startswith(b"data:")]
        if data:
            out.append(b"\n".join(data))
    return out


class WebSocketSession:
    """One upgraded connection: requests in, events out."""

    def __init__(
        self,
        protocol: WireProtocol,
        path: str,
        query: str,
        headers: dict[str, str],
        record: Callable[[RecordedRequest], None],
        next_response: Callable[[RecordedRequest], ScriptedResponse | None],
        count: Callable[[str], None],
    ) -> None:
        self.protocol = protocol
        self.path = path
        self.query = query
        self.headers = headers
        self.record = record
        self.next_response = next_response
        self.count = count  # "completed" or "cancelled": the server's stream counters
        self.last_response_id: str | None = None
        self.closed = asyncio.Event()  # the client closed or dropped the connection

    async def run(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        key = self.headers.get("sec-websocket-key", "")
        writer.write(
            (
                "HTTP/1.1 101 Switching Protocols\r\n"
                "Upgrade: websocket\r\n"
                "Connection: Upgrade\r\n"
                f"Sec-WebSocket-Accept: {accept_key(key)}\r\n\r\n"
            ).encode("latin-1")
        )
        await writer.drain()
        # Frames are read while an answer is being sent, so that a client closing mid-answer
        # (an abort) is seen between two events, as the real service sees it.
        inbox: asyncio.Queue[bytes | None] = asyncio.Queue()

        async def pump() -> None:
            try:
                while True:
                    message = await read_message(reader, writer)
                    if message is None:
                        break
                    inbox.put_nowait(message[1])
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                self.closed.set()
                inbox.put_nowait(None)

        pumping = asyncio.get_running_loop().create_task(pump())
        try:
            while True:
                payload = await inbox.get()
                if payload is None or not await self._answer(payload, writer):
                    return
        finally:
            pumping.cancel()

    async def _send(self, writer: asyncio.StreamWriter, event: JsonObject | bytes) -> None:
        data = event if isinstance(event, bytes) else orjson.dumps(event)
        writer.write(encode_frame(OP_TEXT, data))
        await writer.drain()

    async def _error(self, writer: asyncio.StreamWriter, error: HTTPErrorSpec, code: str | None = None) -> None:
        from pi_harness.testing.fake_llm.openai_responses import error_object

        body = error_object(error)
        if code is not None:
            body["code"] = code
        await self._send(writer, {"type": "error", "status": error.status, "error": body})

    async def _answer(self, payload: bytes, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; ``False`` when the connection was dropped or closed."""
        try:
            parsed: JsonValue = orjson.loads(payload)
        except orjson.JSONDecodeError:
            parsed = payload.decode("utf-8", errors="replace")
        request = RecordedRequest(
            "WEBSOCKET", self.path, self.query, self.headers, parsed, self.protocol.api, payload, time.monotonic()
        )
        self.record(request)
        body = request.json
        if body.get("type") != "response.create":
            await self._error(writer, HTTPErrorSpec(400, f"Unsupported message type: {body.get('type')!r}"))
            return True
        previous = body.get("previous_response_id")
        if previous is not None and previous != self.last_response_id:
            message = f"Previous response with id '{previous}' not found."
            await self._error(writer, HTTPErrorSpec(400, message), PREVIOUS_RESPONSE_NOT_FOUND)
            return True
        check = getattr(self.protocol, "check_request", None)
        refusal: HTTPErrorSpec | None = check(request) if check is not None else None
        response = self.next_response(request) if refusal is None else None
        if refusal is None and response is None:
            from pi_harness.testing.fake_llm.server import NO_RESPONSE_LEFT

            refusal = HTTPErrorSpec(500, NO_RESPONSE_LEFT)
        if refusal is not None or response is None:
            await self._error(writer, refusal or HTTPErrorSpec(500, "no response"))
            return True
        if response.delay_ms:
            await asyncio.sleep(response.delay_ms / 1000)
        if response.http_error is not None:
            await self._error(writer, response.http_error, response.http_error.type)
            return True
        events = sse_payloads(self.protocol.encode_stream(response, request))
        for index, event in enumerate(events):
            if response.drop_after is not None and index >= response.drop_after:
                writer.transport.abort()
                return False
            if response.stall_after is not None and index >= response.stall_after:
                writer.write(_close_frame(1011, "scripted close"))
                await writer.drain()
                return False
            if self.closed.is_set():
                self.count("cancelled")
                return False
            await self._send(writer, event)
            self._remember(event)
            if response.chunk_delay_ms:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.closed.wait(), response.chunk_delay_ms / 1000)
        self.count("completed")
        return True

    def _remember(self, event: bytes) -> None:
        data = orjson.loads(event)
        if isinstance(data, dict) and data.get("type") in ("response.completed", "response.done"):
            response = data.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self.last_response_id = response["id"]


async def refuse_upgrade(writer: asyncio.StreamWriter) -> None:
    body = b"WebSocket upgrades are turned off on this server"
    writer.write(
        b"HTTP/1.1 426 Upgrade Required\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    await writer.drain()
