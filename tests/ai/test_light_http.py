"""The small HTTP/1.1 client of provider requests (``pi_harness.ai.light_http``) against raw
loopback servers: what it sends, chunked and gzip bodies, a kept-alive connection the server
closed, TLS through ``SSL_CERT_FILE``, and the fall back to ``httpx2`` when a proxy is set."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from pi_harness.ai import http_transport, light_http, tls
from pi_harness.ai.http import ProviderHTTPError, post_stream
from pi_harness.ai.options import StreamOptions
from pi_harness.testing.self_signed import self_signed_certificate

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    line, *fields = head.split("\r\n")[:-2]
    headers = {name.lower(): value.strip() for name, _, value in (f.partition(":") for f in fields)}
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return line, headers, body


@asynccontextmanager
async def raw_server(handle: Handler, context: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    try:
        yield int(server.sockets[0].getsockname()[1])
    finally:
        server.close()
        await server.wait_closed()


async def body_of(url: str, headers: dict[str, str] | None = None, body: bytes = b"{}") -> bytes:
    async with post_stream(url, headers=headers or {}, body=body, options=StreamOptions()) as response:
        return b"".join([chunk async for chunk in response.aiter_bytes()])


def ok(body: bytes, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n%s" % (len(body), extra, body)


async def test_sends_the_request_with_default_and_given_headers() -> None:
    seen: list[tuple[str, dict[str, str], bytes]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(ok(b"fine"))
        await writer.drain()
        writer.close()

    async with raw_server(handle) as port:
        answer = await body_of(
            f"http://127.0.0.1:{port}/v1/chat/completions?x=1", {"Accept": "text/event-stream", "X-Key": "k"}, b"[1]"
        )
    assert answer == b"fine"
    line, headers, body = seen[0]
    assert line == "POST /v1/chat/completions?x=1 HTTP/1.1"
    assert headers["host"] == f"127.0.0.1:{port}"
    assert headers["accept"] == "text/event-stream"  # the caller's value replaces the default
    assert headers["x-key"] == "k"
    assert headers["content-length"] == "3" and body == b"[1]"
    assert headers["user-agent"].startswith("pi-harness/")


async def test_chunked_and_gzip_bodies_are_decoded() -> None:
    packed = gzip.compress(b"data: hello\n\n" * 50)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n")
        for start in range(0, len(packed), 7):
            piece = packed[start : start + 7]
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    async with raw_server(handle) as port:
        assert await body_of(f"http://127.0.0.1:{port}/") == b"data: hello\n\n" * 50


async def test_error_status_with_repeated_headers() -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        body = b'{"error": {"message": "no such model"}}'
        writer.write(b"HTTP/1.1 404 Not Found\r\nx-a: 1\r\nX-A: 2\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    async with raw_server(handle) as port:
        with pytest.raises(ProviderHTTPError) as info:
            await body_of(f"http://127.0.0.1:{port}/")
    assert str(info.value) == "404 no such model"
    assert info.value.headers["x-a"] == "1, 2"


async def test_a_kept_alive_connection_closed_by_the_server_is_replaced() -> None:
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(ok(b"answer %d" % connections))  # keep-alive offered...
        await writer.drain()
        writer.close()  # ...but the connection is closed right away

    async with raw_server(handle) as port:
        url = f"http://127.0.0.1:{port}/"
        assert await body_of(url) == b"answer 1"
        await asyncio.sleep(0.05)  # the close reaches the idle connection (or not: both must work)
        assert await body_of(url) == b"answer 2"
    assert connections == 2


async def test_a_reused_connection_dropped_before_the_answer_is_retried_once_on_a_new_one() -> None:
    """The keep-alive race: the server drops the idle connection as the next request arrives."""
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        number = connections
        await read_request(reader)
        writer.write(ok(b"answer %d" % number))
        await writer.drain()
        if number == 1:
            await read_request(reader)  # the second request, on the kept-alive connection
        writer.close()

    async with raw_server(handle) as port:
        url = f"http://127.0.0.1:{port}/"
        assert await body_of(url) == b"answer 1"
        assert await body_of(url) == b"answer 2"
    assert connections == 2


async def test_keep_alive_reuses_the_connection() -> None:
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        for _ in range(3):
            await read_request(reader)
            writer.write(ok(b"again"))
            await writer.drain()
        writer.close()

    async with raw_server(handle) as port:
        for _ in range(3):
            assert await body_of(f"http://127.0.0.1:{port}/") == b"again"
    assert connections == 1


async def test_a_request_that_asks_to_close_is_not_followed_on_its_connection() -> None:
    requests_per_connection: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        requests_per_connection.append(0)
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:  # a server that keeps the connection open however it was asked
                await read_request(reader)
                requests_per_connection[-1] += 1
                writer.write(ok(b"once"))
                await writer.drain()

    async with raw_server(handle) as port:
        for _ in range(2):
            assert await body_of(f"http://127.0.0.1:{port}/", {"Connection": "close"}) == b"once"
    assert requests_per_connection == [1, 1]


async def test_a_body_cut_short_is_a_retryable_connection_error() -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial")
        await writer.drain()
        writer.close()

    async with raw_server(handle) as port:
        with pytest.raises(ConnectionError) as info:
            await body_of(f"http://127.0.0.1:{port}/")
    assert str(info.value).startswith("Connection error:")
    assert str(info.value).endswith("(terminated)")


async def test_https_verifies_against_ssl_cert_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cryptography")
    cert_file, key_file = self_signed_certificate(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert_file, key_file)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
        except (asyncio.IncompleteReadError, ssl.SSLError, ConnectionError):
            return  # the client refused the certificate
        writer.write(ok(b"secure"))
        await writer.drain()
        writer.close()

    monkeypatch.setattr(tls, "_context", None)
    monkeypatch.setattr(tls, "_builder", None)
    async with raw_server(handle, server_context) as port:
        # Not trusted yet: the system store does not know this certificate.
        with pytest.raises(ConnectionError, match=r"^Connection error:.*CERTIFICATE_VERIFY_FAILED"):
            await body_of(f"https://localhost:{port}/")
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
        monkeypatch.setattr(tls, "_context", None)
        http_transport._light_clients.clear()  # its client kept the first context
        assert await body_of(f"https://localhost:{port}/") == b"secure"


async def test_a_proxy_in_the_environment_sends_the_request_through_it(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, dict[str, str], bytes]] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(ok(b"via proxy"))
        await writer.drain()
        writer.close()

    async with raw_server(proxy) as port:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        assert not light_http.usable_for("http://models.invalid/v1")
        assert await body_of("http://models.invalid/v1/chat") == b"via proxy"
    assert seen[0][0] == "POST http://models.invalid/v1/chat HTTP/1.1"


def test_usable_only_for_plain_direct_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in light_http.PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert light_http.usable_for("https://api.example.com/v1/messages")
    assert light_http.usable_for("http://[::1]:8080/v1")
    assert not light_http.usable_for("https://user:pw@api.example.com/v1")
    assert not light_http.usable_for("https://api.exämple.com/v1")
    assert not light_http.usable_for("ftp://example.com/")
    assert not light_http.usable_for("http://example.com:99999/")
    monkeypatch.setenv("https_proxy", "http://proxy.invalid:3128")
    assert not light_http.usable_for("https://api.example.com/v1/messages")


async def test_a_request_takes_the_connection_opened_ahead() -> None:
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(ok(b"warm"))
        await writer.drain()
        writer.close()

    async with raw_server(handle) as port:
        http_transport.preconnect(f"http://127.0.0.1:{port}/v1")
        http_transport.preconnect(f"http://127.0.0.1:{port}/v1")  # one is enough
        assert await body_of(f"http://127.0.0.1:{port}/v1/chat/completions") == b"warm"
    assert connections == 1


async def test_a_failed_connection_ahead_leaves_the_error_to_the_request() -> None:
    async with raw_server(lambda _r, w: asyncio.sleep(0)) as port:
        pass  # closed again: nothing listens on the port now
    http_transport.preconnect(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ConnectionError, match=r"^Connection error:"):
        await body_of(f"http://127.0.0.1:{port}/v1/chat/completions")
