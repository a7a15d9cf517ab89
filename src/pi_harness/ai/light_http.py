"""A small HTTP/1.1 client for the provider stream requests, over asyncio streams.

Why: importing ``httpx2`` and building its first client (``httpcore2``, ``anyio``,
``importlib.metadata``, ``email``, ``urllib.request``) costs 50-100 ms, a third of the time from
``pi -p`` to the first request. Streaming one POST needs much less: a connection per host kept
alive between turns, the request head checked and written by ``h11`` (once per set of headers,
then reused), the response framed by ``http1_response`` and read as it arrives.

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
import socket
import zlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h11

from pi_harness import early_exchange
from pi_harness.ai.environ import any_env
from pi_harness.ai.gathered_write import write_parts
from pi_harness.ai.http1_response import Head, ResponseError, ResponseParser
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


def _before_response(error: TransportError) -> TransportError:
    error.before_response = True
    return error


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
    if any_env(PROXY_VARIABLES):
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
        self.used = False  # has carried a request before (a keep-alive reuse)
        self.last_request = False  # the request asked the server to close (``Connection: close``)
        # The response of the request in flight (``None``: no request yet).
        self.response: ResponseParser | None = None
        self.read_deadline = ReadDeadline()  # the read timeout of every chunk, one timer

    def reusable(self) -> bool:
        response = self.response
        return (
            (response is None or (response.done and response.keep_alive))
            and not self.last_request
            and not self.writer.is_closing()
            and not self.reader.at_eof()
        )

    def close(self) -> None:
        self.read_deadline.close()
        self.writer.close()

    async def write(self, parts: tuple[bytes, ...], timeout: float | None) -> None:
        # All parts in one system call when the kernel takes them (``gathered_write``): a body of
        # megabytes is not copied behind its header first (nor joined from its parts).
        self.response = ResponseParser()
        writer = self.writer
        write_parts(writer, parts)
        transport = writer.transport
        if not transport.get_write_buffer_size() and not transport.is_closing():
            return  # all of it is with the kernel already: nothing to wait for
        try:
            async with asyncio.timeout(timeout):
                await self.writer.drain()
        except TimeoutError:
            raise WriteTimeout("timed out writing the request") from None
        except OSError as exc:
            raise WriteError(str(exc) or type(exc).__name__) from exc

    async def receive(self, timeout: float | None) -> ResponseParser:
        """Read what the server sent next into the response (its end too: ``feed_eof``)."""
        response = self.response
        assert response is not None
        try:
            data = await self.read_deadline.run(self.reader.read(READ_SIZE), timeout)
        except TimeoutError:
            raise ReadTimeout("timed out waiting for the server") from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        if data:
            response.feed(data)
        else:
            response.feed_eof()
        return response

    async def read_head(self, timeout: float | None) -> Head:
        response = self.response
        assert response is not None
        try:
            while True:
                head = response.read_head()
                if head is not None:
                    return head
                await self.receive(timeout)
        except ResponseError as exc:
            # Hung up before the status line: say so as httpx2 does.
            raise RemoteProtocolError(DISCONNECTED if response.ended else str(exc)) from exc


# Request heads h11 has checked once, encoded up to their ``Content-Length``: a session's
# requests repeat the same headers, and h11's checks (a regular expression per name and per
# value) are a good part of building a request. Only ``Content-Length`` differs.
_CHECKED: dict[tuple[str, tuple[tuple[str, str], ...]], bytes] = {}
_MAX_CHECKED = 64
_LENGTH_LINE = b"Content-Length: 0\r\n\r\n"


def _post_head(path: str, items: list[tuple[str, str]], length: int) -> bytes:
    key = (path, tuple(items))
    prefix = _CHECKED.get(key)
    if prefix is None:
        request = h11.Request(method="POST", target=path, headers=[*items, ("Content-Length", "0")])
        encoded = h11.Connection(h11.CLIENT).send(request)
        assert encoded is not None and encoded.endswith(_LENGTH_LINE)
        if len(_CHECKED) >= _MAX_CHECKED:
            _CHECKED.clear()
        prefix = _CHECKED[key] = encoded[: -len(_LENGTH_LINE)]
    return b"%sContent-Length: %d\r\n\r\n" % (prefix, length)


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
    _closed: bool = False
    _started: bool = field(default=False)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        if self._started:
            raise RuntimeError("the response body was already read")
        self._started = True
        decoder = _decoder(self.headers)
        connection = self._connection
        response = connection.response
        assert response is not None
        try:
            while True:
                # Everything that arrived in one read goes on at once, however many chunks.
                chunk = response.body()
                if decoder is not None and chunk:
                    chunk = decoder.decompress(chunk)
                if chunk:
                    yield chunk
                if response.done:
                    if decoder is not None:
                        tail = decoder.flush()
                        if tail:
                            yield tail
                    return
                await connection.receive(self._read_timeout)
        except ResponseError as exc:
            raise RemoteProtocolError(str(exc)) from exc

    @property
    def complete(self) -> bool:
        """The whole body has been received (what is left to iterate needs no more reading)."""
        response = self._connection.response
        return response is not None and response.done

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Give the connection back when the body was read to its end, else close it."""
        if self._closed:
            return
        self._closed = True
        connection = self._connection
        if connection.reusable():  # the whole response was read, and the server keeps it open
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
        self, target: _Target, headers: Mapping[str, str], body: bytes | EncodedBody
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
        head = _post_head(target.path, items, len(body))
        return (head, body) if isinstance(body, bytes) else (head, *body.parts)

    def preconnect(self, url: str, timeout: float | None) -> None:
        """Start opening a connection (DNS, TCP, TLS) to ``url``'s host for the next request, which
        waits for it instead of opening its own; a failure here is left to that request."""
        target = _target(url)
        if target.key in self._pending or self._idle.get(target.key) or early_exchange.waiting_for(target.key):
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
        if early_exchange.rehearsing():
            early_exchange.rehearsed(target.key, b"".join(self._request_bytes(target, headers, body)))
            raise _before_response(ConnectError(early_exchange.REHEARSED))
        if early_exchange.wants_first_request():
            parts = self._request_bytes(target, headers, body)
            early = early_exchange.take(target.key, b"".join(parts))
            if early is not None:
                try:
                    return await self._exchange(await self._adopt(early), target, headers, body, timeouts, sent=True)
                except (ConnectError, ReadError, WriteError, RemoteProtocolError) as exc:
                    if not exc.before_response:  # as for a kept-alive connection: once more anew
                        raise
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

    async def _adopt(self, early: early_exchange.EarlyRequest) -> _Connection:
        """The connection of a request sent before the session loaded (``early_exchange``)."""
        raw = early.sock
        try:
            sock = socket.socket(raw.family, raw.type, raw.proto, fileno=raw.detach())
        except OSError as exc:
            raw.close()
            raise _before_response(ConnectError(str(exc) or type(exc).__name__)) from exc
        try:
            reader, writer = await asyncio.open_connection(sock=sock, limit=READ_SIZE * 4)
        except OSError as exc:
            sock.close()
            raise _before_response(ConnectError(str(exc) or type(exc).__name__)) from exc
        connection = _Connection(reader, writer)
        connection.used = True  # like a kept-alive one: a failure before any answer tries anew
        return connection

    async def _exchange(
        self,
        connection: _Connection,
        target: _Target,
        headers: Mapping[str, str],
        body: bytes | EncodedBody,
        timeouts: Timeouts,
        *,
        sent: bool = False,
    ) -> LightResponse:
        """Write the request (unless it is ``sent`` already, an adopted early request) and read the
        head of its response."""
        reused = connection.used
        connection.used = True
        connection.last_request = any(
            name.lower() == "connection" and "close" in value.lower() for name, value in headers.items()
        )
        try:
            if sent:
                connection.response = ResponseParser()
            else:
                await connection.write(self._request_bytes(target, headers, body), timeouts.write)
            head = await connection.read_head(timeouts.read)
        except RemoteProtocolError as exc:
            connection.close()
            exc.before_response = reused
            raise
        except TransportError as exc:
            connection.close()
            exc.before_response = reused and not isinstance(exc, TimeoutException)
            raise
        except BaseException:
            connection.close()
            raise
        merged: dict[str, str] = {}
        for name, value in head.headers:
            key, text = _text(name).lower(), _text(value)
            merged[key] = f"{merged[key]}, {text}" if key in merged else text
        return LightResponse(head.status, merged, connection, self, target.key, timeouts.read)
