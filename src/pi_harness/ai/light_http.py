"""A small HTTP/1.1 client for the provider stream requests: ``h11`` over asyncio streams.

Why: importing ``httpx2`` and building its first client (``httpcore2``, ``anyio``,
``importlib.metadata``, ``email``, ``urllib.request``) costs 50-100 ms, a third of the time from
``pi -p`` to the first request. Streaming one POST needs much less: a connection per host kept
alive between turns, the request written by ``h11``, the response read chunk by chunk.

It is used only where it does exactly what the ``httpx2`` client would (``usable_for``): a plain
``http``/``https`` URL and no proxy in the environment. Everything else (``HTTP(S)_PROXY``,
``ALL_PROXY``) still goes through ``httpx2``, which implements proxies and ``NO_PROXY``. Timeouts
are the same four (connect, read per chunk, write), errors are ``TransportError`` subclasses
whose names match ``httpx2``'s, so messages read alike, and cancelling the reading task (abort)
closes the connection.
"""

from __future__ import annotations

import asyncio
import functools
import os
import zlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import urlsplit

import h11

from pi_harness.ai.read_deadline import ReadDeadline

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ssl

    from pi_harness.ai.body_encoding import EncodedBody

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
READ_SIZE = 65536
DISCONNECTED = "Server disconnected without sending a response."


class TransportError(Exception):
    """The request could not be sent or its response could not be read."""

    # Set when a kept-alive connection failed before any response arrived: ``post`` retries
    # such a request once on a new connection (the server closed the idle one).
    before_response = False


class ConnectError(TransportError):
    pass


class ReadError(TransportError):
    pass


class WriteError(TransportError):
    pass


class RemoteProtocolError(TransportError):
    """The server broke HTTP/1.1 or hung up in the middle of a message."""


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class ReadTimeout(TimeoutException):
    pass


class WriteTimeout(TimeoutException):
    pass


def usable_for(url: str) -> bool:
    """Whether a request to ``url`` can go through this client: a direct connection (no proxy
    variable set at all) to an ``http(s)`` URL that needs no normalising (ASCII, no spaces, no
    user info)."""
    if any(os.environ.get(name) for name in PROXY_VARIABLES):
        return False
    return _plain_url(url)


@functools.lru_cache(maxsize=64)  # every request asks, for the same few URLs
def _plain_url(url: str) -> bool:
    if not url.isascii() or any(c in url for c in " \t\r\n"):
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc


@dataclass(frozen=True)
class Timeouts:
    connect: float | None
    read: float | None
    write: float | None


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    authority: str  # the Host header
    path: str  # with the query

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)


@functools.lru_cache(maxsize=64)
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    default = 443 if parts.scheme == "https" else 80
    port = parts.port or default
    host = parts.hostname or ""
    shown = f"[{host}]" if ":" in host else host
    authority = shown if port == default else f"{shown}:{port}"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(parts.scheme, host, port, authority, path)


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = h11.Connection(h11.CLIENT)
        self.used = False  # has carried a request before (a keep-alive reuse)
        self.read_deadline = ReadDeadline()  # the read timeout of every chunk, one timer

    def reusable(self) -> bool:
        return (
            self.protocol.our_state is h11.IDLE
            and self.protocol.their_state is h11.IDLE
            and not self.writer.is_closing()
            and not self.reader.at_eof()
        )

    def close(self) -> None:
        self.read_deadline.close()
        self.writer.close()

    async def write(self, parts: tuple[bytes, ...], timeout: float | None) -> None:
        # Part by part: the transport sends each at once when it can, so a body of megabytes is
        # not copied behind its header first (nor joined from its parts, ``EncodedBody``).
        for part in parts:
            if part:
                self.writer.write(part)
        try:
            async with asyncio.timeout(timeout):
                await self.writer.drain()
        except TimeoutError:
            raise WriteTimeout("timed out writing the request") from None
        except OSError as exc:
            raise WriteError(str(exc) or type(exc).__name__) from exc

    async def next_event(self, timeout: float | None) -> object:
        while True:
            try:
                event = self.protocol.next_event()
            except h11.RemoteProtocolError as exc:
                raise RemoteProtocolError(str(exc)) from exc
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await self.read_deadline.run(self.reader.read(READ_SIZE), timeout)
            except TimeoutError:
                raise ReadTimeout("timed out waiting for the server") from None
            except OSError as exc:
                raise ReadError(str(exc) or type(exc).__name__) from exc
            try:
                self.protocol.receive_data(data)
            except h11.RemoteProtocolError as exc:
                raise RemoteProtocolError(str(exc)) from exc


# Request lines and header lists h11 has checked once, encoded: a session's requests repeat the
# same headers, and h11's checks (a regular expression per name and per value) are a good part of
# building a request. Only ``Content-Length`` differs, and h11 still checks that one.
_CHECKED: dict[tuple[str, tuple[tuple[str, str], ...]], list[tuple[bytes, bytes]]] = {}
_MAX_CHECKED = 64


def _post_request(path: str, items: list[tuple[str, str]], length: int) -> h11.Request:
    key = (path, tuple(items))
    checked = _CHECKED.get(key)
    content_length = str(length)
    if checked is None:
        request = h11.Request(method="POST", target=path, headers=[*items, ("Content-Length", content_length)])
        if len(_CHECKED) >= _MAX_CHECKED:
            _CHECKED.clear()
        # As h11 encodes them (ASCII, which the check above has just accepted).
        _CHECKED[key] = [(name.encode("ascii"), value.encode("ascii")) for name, value in items]
        return request
    headers = [*checked, (b"Content-Length", content_length.encode("ascii"))]
    return h11.Request(method=b"POST", target=path.encode("ascii"), headers=headers, _parsed=True)


def _decoder(headers: Mapping[str, str]) -> zlib._Decompress | None:
    encoding = headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding == "gzip":
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise RemoteProtocolError(f"unsupported content-encoding: {encoding}")


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


@dataclass
class LightResponse:
    """A streamed response: ``status_code``, ``headers`` (lower-case names, repeated ones joined
    with ``", "``), ``aiter_bytes()`` (decoded), ``aread()`` and ``aclose()``."""

    status_code: int
    headers: dict[str, str]
    _connection: _Connection
    _client: LightClient
    _key: tuple[str, str, int]
    _read_timeout: float | None
    _done: bool = False
    _closed: bool = False
    _started: bool = field(default=False)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        if self._started:
            raise RuntimeError("the response body was already read")
        self._started = True
        decoder = _decoder(self.headers)
        while True:
            event = await self._connection.next_event(self._read_timeout)
            if isinstance(event, h11.Data):
                chunk = bytes(event.data)
                if decoder is not None:
                    chunk = decoder.decompress(chunk)
                if chunk:
                    yield chunk
            elif isinstance(event, h11.EndOfMessage):
                self._done = True
                if decoder is not None:
                    tail = decoder.flush()
                    if tail:
                        yield tail
                return
            elif event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                raise RemoteProtocolError("the server closed the connection before the response ended")

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Give the connection back when the body was read to its end, else close it."""
        if self._closed:
            return
        self._closed = True
        connection = self._connection
        if self._done and connection.protocol.our_state is h11.DONE and connection.protocol.their_state is h11.DONE:
            connection.protocol.start_next_cycle()
            if connection.reusable():
                self._client.release(self._key, connection)
                return
        connection.close()


class LightClient:
    """Keep-alive connections per host for one event loop."""

    def __init__(self, ssl_context: ssl.SSLContext | None, user_agent: str) -> None:
        self._ssl_context = ssl_context
        self._user_agent = user_agent
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        # Connections opened ahead of the first request (``preconnect``), not yet used.
        self._pending: dict[tuple[str, str, int], asyncio.Task[_Connection]] = {}

    def release(self, key: tuple[str, str, int], connection: _Connection) -> None:
        self._idle.setdefault(key, []).append(connection)

    def _pooled(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key, [])
        while idle:
            connection = idle.pop()
            if connection.reusable():
                return connection
            connection.close()
        return None

    async def _connect(self, target: _Target, timeout: float | None) -> _Connection:
        context = None
        if target.scheme == "https":
            context = self._ssl_context
            if context is None:
                from pi_harness.ai import tls

                context = self._ssl_context = tls.verified_context()
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    target.host,
                    target.port,
                    ssl=context,
                    server_hostname=target.host if context is not None else None,
                    limit=READ_SIZE * 4,
                )
        except TimeoutError:
            raise ConnectTimeout(f"timed out connecting to {target.authority}") from None
        except OSError as exc:
            raise ConnectError(str(exc) or type(exc).__name__) from exc
        return _Connection(reader, writer)

    def _request_bytes(
        self, connection: _Connection, target: _Target, headers: Mapping[str, str], body: bytes | EncodedBody
    ) -> tuple[bytes, ...]:
        defaults = {
            "Host": target.authority,
            "Accept": "*/*",
            "Accept-Encoding": "gzip, deflate",
            "Connection": "keep-alive",
            "User-Agent": self._user_agent,
        }
        given = {name.lower() for name in headers}
        items = [(name, value) for name, value in defaults.items() if name.lower() not in given]
        items += [(name, value) for name, value in headers.items() if name.lower() not in ("content-length", "host")]
        if "host" in given:
            items.insert(0, ("Host", next(v for k, v in headers.items() if k.lower() == "host")))
        request = _post_request(target.path, items, len(body))
        protocol = connection.protocol
        head = protocol.send(request)
        if isinstance(body, bytes):
            return head, protocol.send(h11.Data(data=body)), protocol.send(h11.EndOfMessage())
        # h11 counts the parts' length against Content-Length and passes the body through as it is.
        protocol.send_with_data_passthrough(h11.Data(data=cast(bytes, body)))  # h11 only takes its len()
        return (head, *body.parts, protocol.send(h11.EndOfMessage()))

    def preconnect(self, url: str, timeout: float | None) -> None:
        """Start opening a connection (DNS, TCP, TLS) to ``url``'s host for the next request, which
        waits for it instead of opening its own; a failure here is left to that request."""
        target = _target(url)
        if target.key in self._pending or self._idle.get(target.key):
            return
        task = asyncio.get_running_loop().create_task(self._connect(target, timeout))
        # Retrieved here so that a failed attempt nobody awaits is not reported at exit.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._pending[target.key] = task

    async def _preconnected(self, key: tuple[str, str, int]) -> _Connection | None:
        task = self._pending.pop(key, None)
        if task is None:
            return None
        try:
            return await task
        except TransportError:
            return None  # the request connects again and reports its own failure

    async def post(
        self, url: str, headers: Mapping[str, str], body: bytes | EncodedBody, timeouts: Timeouts
    ) -> LightResponse:
        """Send a POST and return once the response's status and headers arrived."""
        target = _target(url)
        connection = self._pooled(target.key) or await self._preconnected(target.key)
        if connection is not None:
            try:
                return await self._exchange(connection, target, headers, body, timeouts)
            except (ReadError, WriteError, RemoteProtocolError) as exc:
                # A kept-alive connection the server closed while it sat idle: try a new one.
                if not exc.before_response:
                    raise
        connection = await self._connect(target, timeouts.connect)
        return await self._exchange(connection, target, headers, body, timeouts)

    async def _exchange(
        self,
        connection: _Connection,
        target: _Target,
        headers: Mapping[str, str],
        body: bytes | EncodedBody,
        timeouts: Timeouts,
    ) -> LightResponse:
        reused = connection.used
        connection.used = True
        try:
            await connection.write(self._request_bytes(connection, target, headers, body), timeouts.write)
            while True:
                event = await connection.next_event(timeouts.read)
                if isinstance(event, h11.Response):
                    break
                if isinstance(event, h11.InformationalResponse):
                    continue
                raise RemoteProtocolError(DISCONNECTED)
        except RemoteProtocolError as exc:
            connection.close()
            exc.before_response = reused
            if connection.protocol.their_state is not h11.SEND_RESPONSE:
                raise
            # Hung up before the status line: say so as httpx2 does.
            error = RemoteProtocolError(DISCONNECTED)
            error.before_response = reused
            raise error from exc
        except TransportError as exc:
            connection.close()
            exc.before_response = reused and not isinstance(exc, TimeoutException)
            raise
        except BaseException:
            connection.close()
            raise
        merged: dict[str, str] = {}
        for name, value in event.headers:
            key, text = _text(bytes(name)).lower(), _text(bytes(value))
            merged[key] = f"{merged[key]}, {text}" if key in merged else text
        return LightResponse(event.status_code, merged, connection, self, target.key, timeouts.read)
