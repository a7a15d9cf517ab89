"""Writing a request's parts in one call (``pi_harness.ai.gathered_write``) over real loopback
connections: every byte arrives once and in order, also when the kernel takes only part of them,
behind data already queued, and through TLS (which must never see its socket written directly)."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest

from pi_harness.ai.gathered_write import write_parts
from pi_harness.testing.self_signed import self_signed_certificate


async def _received(parts: tuple[bytes, ...], *, queued: bytes = b"", tls: Path | None = None) -> bytes:
    """What a server reads from a connection on which ``queued`` was written (left waiting in
    the transport's buffer when large) and then ``parts`` with ``write_parts``."""
    got: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
    total = len(queued) + sum(len(part) for part in parts)
    server_context = client_context = None
    if tls is not None:
        cert_file, key_file = self_signed_certificate(tls)
        server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_context.load_cert_chain(cert_file, key_file)
        client_context = ssl.create_default_context(cafile=str(cert_file))

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            got.set_result(await reader.readexactly(total))
        except (asyncio.IncompleteReadError, ssl.SSLError, ConnectionError) as error:
            got.set_exception(error)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    try:
        host = "localhost" if tls is not None else "127.0.0.1"
        _reader, writer = await asyncio.open_connection(host, port, ssl=client_context)
        if queued:
            writer.write(queued)
        write_parts(writer, parts)
        await writer.drain()
        data = await asyncio.wait_for(got, 30)
        writer.close()
        return data
    finally:
        server.close()
        await server.wait_closed()


async def test_small_parts_arrive_whole_and_in_order() -> None:
    parts = (b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", b"", b'{"a":', b"", b"[1,2]}")
    assert await _received(parts) == b"".join(parts)


async def test_parts_larger_than_the_kernel_takes_at_once_arrive_whole() -> None:
    # 24 MB: more than a loopback socket buffers, so the one call sends only some of it and the
    # rest (a first part cut in the middle, then whole ones) waits in the transport.
    parts = (b"head\r\n\r\n", bytes(range(256)) * 40_000, b"x" * 7_000_003, bytes(range(255, -1, -1)) * 30_000)
    parts = (*parts, b"y" * (24_000_000 - sum(len(part) for part in parts)), b"end")
    assert await _received(parts) == b"".join(parts)


async def test_parts_behind_data_already_waiting_follow_it() -> None:
    queued = b"q" * 16_000_000  # still in the transport's buffer: the parts must not overtake it
    parts = (b"first", b"second", b"third")
    data = await _received(parts, queued=queued)
    assert data[: len(queued)] == queued
    assert data[len(queued) :] == b"firstsecondthird"


async def test_parts_over_tls_are_encrypted_by_the_transport(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    parts = (b"POST / HTTP/1.1\r\n\r\n", b"secret ", b"body")
    assert await _received(parts, tls=tmp_path) == b"POST / HTTP/1.1\r\n\r\nsecret body"
