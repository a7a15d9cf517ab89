"""A real HTTP/1.1 server on 127.0.0.1 that speaks the LLM wire protocols from a script.

It runs its own event loop in a background thread, so sync tests, async tests and subprocesses
(the ``pi`` command under test) can all talk to it. Streaming responses use chunked transfer
encoding and keep-alive like the real services; every request is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import threading
import time
from collections import deque
from collections.abc import Iterable
from typing import Protocol, cast
from urllib.parse import urlsplit

import orjson

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.ai.types import Model
from pi_harness.testing.fake_llm.llama_server import LlamaServer
from pi_harness.testing.fake_llm.script import (
    HTTPErrorSpec,
    RecordedRequest,
    ResponseSource,
    ScriptedResponse,
)
from pi_harness.testing.fake_llm.websocket import WebSocketSession, is_upgrade, refuse_upgrade

NO_RESPONSE_LEFT = "fake_llm: no scripted response left"

# api id -> module of this package exposing ``PROTOCOL``; imported when a request needs it
PROTOCOL_MODULES: dict[str, str] = {
    "openai-completions": "pi_harness.testing.fake_llm.openai_completions",
    "openai-responses": "pi_harness.testing.fake_llm.openai_responses",
    "anthropic-messages": "pi_harness.testing.fake_llm.anthropic",
    "google-generative-ai": "pi_harness.testing.fake_llm.google",
    "azure-openai-responses": "pi_harness.testing.fake_llm.azure_openai_responses",
    "openai-codex-responses": "pi_harness.testing.fake_llm.openai_codex_responses",
    "mistral-conversations": "pi_harness.testing.fake_llm.mistral",
    "google-vertex": "pi_harness.testing.fake_llm.google_vertex",
    "bedrock-converse-stream": "pi_harness.testing.fake_llm.bedrock",
    "pi-messages": "pi_harness.testing.fake_llm.pi_messages",
}


def api_for_path(method: str, path: str) -> str | None:
    """Which wire protocol a request path belongs to.

    A path may name its protocol explicitly with a first segment ``/@<api>/`` (for example
    ``/@pi-messages/v1/messages``): some protocols share a route (Pi's messages and Anthropic's,
    Mistral's and OpenAI's, a gateway's ``…/openai/responses`` and Azure's), and a test that keeps a
    provider's own URL layout can still say which one it speaks.
    """
    if method != "POST":
        return None
    if path.startswith("/@"):
        named = path[2:].split("/", 1)[0]
        return named if named in PROTOCOL_MODULES else None
    if path.startswith("/model/") and path.endswith("/converse-stream"):
        return "bedrock-converse-stream"
    if path.endswith("/chat/completions"):
        # Mistral's route is the same as OpenAI's; the fake serves it under /mistral.
        return "mistral-conversations" if path.startswith("/mistral/") else "openai-completions"
    if path.endswith("/codex/responses"):
        return "openai-codex-responses"
    if path.endswith("/responses"):
        # Azure hangs the Responses route under /openai/ (``…/openai/v1/responses``).
        return "azure-openai-responses" if "/openai/" in path else "openai-responses"
    if path.endswith("/messages"):
        # Pi's own protocol posts to the same path; the fake serves it under /pi.
        return "pi-messages" if path.startswith("/pi/") else "anthropic-messages"
    if ":streamGenerateContent" in path or ":generateContent" in path:
        # Vertex names models under a publisher (``…/publishers/google/models/<id>``).
        return "google-vertex" if "/publishers/" in path else "google-generative-ai"
    return None


class WireProtocol(Protocol):
    """One provider API as the fake server speaks it."""

    api: str

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        """The complete SSE frames (``event:``/``data:`` lines plus the blank line) in order."""
        ...

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        """Status, extra headers and body of an HTTP error response."""
        ...

    # Optional: ``check_request(request) -> HTTPErrorSpec | None`` gives the error the real service
    # answers a request it refuses (missing credentials, bad route) before any scripted response
    # is used; ``None`` when the request is acceptable. ``stream_content_type`` names a stream's
    # ``Content-Type`` when it is not Server-Sent Events (Bedrock's binary event stream).


_protocol_cache: dict[str, WireProtocol] = {}


def protocol_for(api: str) -> WireProtocol:
    protocol = _protocol_cache.get(api)
    if protocol is None:
        protocol = importlib.import_module(PROTOCOL_MODULES[api]).PROTOCOL
        _protocol_cache[api] = protocol
    return protocol


class FakeLLMServer:
    """Scripted loopback LLM server; use as a (sync or async) context manager.

    ``base_url(api)`` gives the ``baseUrl`` a model of that API should use. Responses are taken
    from the queue in order (``push``); ``default`` answers when the queue is empty, otherwise the
    server replies with an HTTP 500 in the protocol's error format.

    Like llama-server it lists ``models`` at ``GET .../models`` and, when ``props`` is given,
    answers ``GET /props`` with it (404 otherwise). Those requests are recorded in ``probes``
    (``"GET /v1/models"``), apart from the LLM calls in ``requests``.
    """

    def __init__(
        self,
        responses: Iterable[ResponseSource] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        default: ResponseSource | None = None,
        models: list[str] | None = None,
        props: JsonObject | None = None,
        llama: LlamaServer | None = None,
        websocket: bool = True,
    ) -> None:
        self.host = host
        self.port = port
        self.default = default
        self.models = models or ["fake-model"]
        self.props = props
        # llama-server's own endpoints (health, props, router catalogue), when set.
        self.llama = llama
        # Whether the Codex route accepts WebSocket upgrades (``websocket.py``); off, it answers 426.
        self.websocket = websocket
        self.websocket_connections = 0  # upgrades accepted
        self.websocket_refusals = 0  # upgrades answered 426 (``websocket=False``)
        self.websocket_open = 0  # upgraded connections not closed yet
        self.requests: list[RecordedRequest] = []
        self.probes: list[str] = []
        # (start, end) in ``time.perf_counter()`` of each request the server handled, from its
        # request line to the last byte of the answer: what benchmarks subtract from wall time
        # to get the client's own share.
        self.busy: list[tuple[float, float]] = []
        self.cancelled_streams = 0  # streams whose client went away before the end
        self.completed_streams = 0
        self.token_requests: list[str] = []  # bodies of OAuth token requests (``POST /token``)
        self._queue: deque[ResponseSource] = deque(responses)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopped: asyncio.Event | None = None
        self._startup_error: BaseException | None = None

    # -- scripting ---------------------------------------------------------------------------

    def push(self, *responses: ResponseSource) -> None:
        with self._lock:
            self._queue.extend(responses)

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.probes.clear()
            self.busy.clear()

    @property
    def pending(self) -> int:
        return len(self._queue)

    def _next_response(self, request: RecordedRequest) -> ScriptedResponse | None:
        with self._lock:
            source = self._queue.popleft() if self._queue else self.default
        if source is None:
            return None
        return source(request) if callable(source) else source

    # -- addresses ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def base_url(self, api: str = "openai-completions") -> str:
        if api == "anthropic-messages":
            return self.url
        if api == "google-generative-ai":
            return f"{self.url}/v1beta"
        if api == "azure-openai-responses":
            return f"{self.url}/openai/v1"
        if api == "openai-codex-responses":
            return f"{self.url}/backend-api"
        if api == "mistral-conversations":
            return f"{self.url}/mistral"
        if api == "pi-messages":
            return f"{self.url}/pi"
        if api in ("google-vertex", "bedrock-converse-stream"):
            # Vertex: a collection root (the provider adds /v1/publishers/google/models/…);
            # Bedrock: a custom endpoint (the provider adds /model/<id>/converse-stream).
            return self.url
        return f"{self.url}/v1"

    def model(self, api: str = "openai-completions", model_id: str = "fake-model", **overrides: object) -> Model:
        """A model descriptor pointing at this server (a plain dict usable as ``Model``).

        ``overrides`` replace or add ``Model`` fields as given (``reasoning=True``, ``compat={...}``).
        """
        descriptor: dict[str, object] = {
            "id": model_id,
            "name": f"Fake {model_id}",
            "api": api,
            "provider": "fake",
            "baseUrl": self.base_url(api),
            "reasoning": False,
            "input": ["text", "image"],
            "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.1, "cacheWrite": 1.25},
            "contextWindow": 128_000,
            "maxTokens": 16_384,
        }
        descriptor.update(overrides)
        return cast(Model, descriptor)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="fake-llm", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._startup_error is not None:
            raise self._startup_error
        return self

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(10)
        self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> FakeLLMServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Run in the calling thread until interrupted (the command-line entry point)."""
        self.start()
        try:
            while self._thread is not None and self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # surfaced to start()
            self._startup_error = exc
            self._ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stopped = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopped.wait()
        self._server.close()
        for task in [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    # -- HTTP --------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line.strip():
                    break
                started = time.perf_counter()
                method, target, _version = request_line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await _read_body(reader, headers)
                keep_alive = await self._respond(method, target, headers, body, reader, writer)
                self.busy.append((started, time.perf_counter()))
                if not keep_alive or headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError, ValueError):
            pass  # client went away, or sent something that is not HTTP
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _respond(
        self,
        method: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        parts = urlsplit(target)
        path = parts.path
        if is_upgrade(method, headers) and path.endswith("/codex/responses"):
            await self._websocket(path, parts.query, headers, reader, writer)
            return False
        if method == "GET":
            self.probes.append(f"GET {path}")
        answer = self.llama.respond(method, path, parts.query, body) if self.llama is not None else None
        if answer is not None:
            if method == "POST":
                self.probes.append(f"POST {path}")
            await _write_simple(writer, *answer)
            return True
        if method == "GET" and path.rstrip("/").endswith("/models"):
            payload = {
                "object": "list",
                "data": [{"id": m, "object": "model", "owned_by": "fake"} for m in self.models],
            }
            await _write_simple(writer, 200, {"content-type": "application/json"}, orjson.dumps(payload))
            return True
        if method == "GET" and path == "/props" and self.props is not None:
            await _write_simple(writer, 200, {"content-type": "application/json"}, orjson.dumps(self.props))
            return True
        if method == "POST" and path == "/token":
            from pi_harness.testing.fake_llm.google_vertex import token_response

            self.token_requests.append(body.decode("utf-8", errors="replace"))
            status, token_body = token_response(body, len(self.token_requests))
            await _write_simple(writer, status, {"content-type": "application/json; charset=utf-8"}, token_body)
            return True
        api = api_for_path(method, path)
        protocol = protocol_for(api) if api is not None else None
        if protocol is None:
            await _write_simple(writer, 404, {"content-type": "text/plain"}, b"Not Found")
            return True
        try:
            parsed: JsonValue = orjson.loads(body) if body else None
        except orjson.JSONDecodeError:
            parsed = body.decode("utf-8", errors="replace")
        request = RecordedRequest(method, path, parts.query, headers, parsed, protocol.api, body, time.monotonic())
        self.requests.append(request)
        refused = self.llama.refuse_chat(parsed) if self.llama is not None else None
        if refused is not None:
            await _write_simple(writer, *refused)
            return True
        check = getattr(protocol, "check_request", None)
        refusal: HTTPErrorSpec | None = check(request) if check is not None else None
        if refusal is not None:
            status, extra, err_body = protocol.encode_error(refusal, request)
            await _write_simple(writer, status, {"content-type": "application/json", **extra}, err_body)
            return True
        response = self._next_response(request)
        if response is None:
            status, extra, err_body = protocol.encode_error(HTTPErrorSpec(500, NO_RESPONSE_LEFT), request)
            await _write_simple(writer, status, {"content-type": "application/json", **extra}, err_body)
            return True
        if response.delay_ms:
            await asyncio.sleep(response.delay_ms / 1000)
        if response.http_error is not None:
            status, extra, err_body = protocol.encode_error(response.http_error, request)
            extra = {"content-type": "application/json", **extra, **response.http_error.headers}
            await _write_simple(writer, status, extra, err_body)
            return True
        encode_json = getattr(protocol, "encode_json", None)
        whole = encode_json(response, request) if encode_json is not None else None
        if whole is not None:
            await _write_simple(writer, 200, {"content-type": "application/json"}, whole)
            self.completed_streams += 1
            return True
        frames = protocol.encode_stream(response, request)
        content_type = getattr(protocol, "stream_content_type", "text/event-stream; charset=utf-8")
        return await self._stream(frames, response, reader, writer, content_type)

    async def _websocket(
        self,
        path: str,
        query: str,
        headers: dict[str, str],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        if not self.websocket:
            self.websocket_refusals += 1
            await refuse_upgrade(writer)
            return
        self.websocket_connections += 1
        self.websocket_open += 1
        protocol = protocol_for("openai-codex-responses")
        session = WebSocketSession(
            protocol, path, query, headers, self.requests.append, self._next_response, self._count_stream
        )
        try:
            await session.run(reader, writer)
        finally:
            self.websocket_open -= 1

    def _count_stream(self, outcome: str) -> None:
        if outcome == "completed":
            self.completed_streams += 1
        else:
            self.cancelled_streams += 1

    async def _stream(
        self,
        frames: list[bytes],
        response: ScriptedResponse,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        content_type: str = "text/event-stream; charset=utf-8",
    ) -> bool:
        head = (
            "HTTP/1.1 200 OK\r\n"
            f"Content-Type: {content_type}\r\n"
            "Cache-Control: no-cache\r\n"
            "Transfer-Encoding: chunked\r\n"
            f"Date: {time.strftime('%a, %d %b %Y %H:%M:%S GMT', time.gmtime())}\r\n"
            "\r\n"
        )
        writer.write(head.encode("latin-1"))
        await writer.drain()
        completed = False
        try:
            for index, frame in enumerate(frames):
                if response.drop_after is not None and index >= response.drop_after:
                    writer.transport.abort()
                    return False
                if response.garbage is not None and index == response.garbage_after:
                    writer.write(b"%x\r\n%s\r\n" % (len(response.garbage), response.garbage))
                    await writer.drain()
                if response.stall_after is not None and index >= response.stall_after:
                    return await self._stall(reader)
                pieces = (
                    [frame[i : i + response.fragment_bytes] for i in range(0, len(frame), response.fragment_bytes)]
                    if response.fragment_bytes
                    else [frame]
                )
                for piece in pieces:
                    writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    await writer.drain()
                if await _client_gone(reader, response.chunk_delay_ms / 1000):
                    self.cancelled_streams += 1
                    return False
            if response.stall_after is not None:
                return await self._stall(reader)
            if response.drop_after is not None and response.drop_after >= len(frames):
                writer.transport.abort()
                return False
            # Counted before the terminator is written: ``write`` may send it at once, and the
            # client (another thread) may read it and look at the counter before this thread
            # runs again.
            self.completed_streams += 1
            completed = True
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return True
        except ConnectionError:
            if completed:
                self.completed_streams -= 1
            self.cancelled_streams += 1
            return False

    async def _stall(self, reader: asyncio.StreamReader) -> bool:
        """Send nothing more until the client hangs up (counted in ``cancelled_streams``)."""
        while not await _client_gone(reader, 3600.0):
            pass
        self.cancelled_streams += 1
        return False


async def _client_gone(reader: asyncio.StreamReader, wait_s: float) -> bool:
    """Wait up to ``wait_s`` and say whether the client hung up, without consuming its bytes.

    httpx never pipelines, so end-of-file on the request side means the client went away.
    """
    deadline = asyncio.get_running_loop().time() + wait_s
    while True:
        if reader.at_eof():
            return True
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            return False
        await asyncio.sleep(min(0.005, remaining))


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    body = await _read_raw_body(reader, headers)
    if headers.get("content-encoding", "").lower() == "zstd" and body:
        # The Codex backend takes zstd-compressed bodies (pi-harness and Pi send them).
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress(body)
    return body


async def _read_raw_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                break
            chunks.append(await reader.readexactly(size))
            await reader.readline()
        return b"".join(chunks)
    return b""


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    529: "Site Overloaded",
}


async def _write_simple(writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes) -> None:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    for name, value in headers.items():
        lines.append(f"{name}: {value}")
    lines.append(f"Content-Length: {len(body)}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()
