"""The network filter: an HTTP proxy on a Unix socket that only reaches allowed domains.

Sandboxed commands have no network of their own (a private network namespace). Inside the
sandbox, ``bridge.py`` listens on ``127.0.0.1:<port>`` and forwards every connection to this
proxy's Unix socket, and ``HTTP_PROXY``/``HTTPS_PROXY`` point there. The proxy understands
``CONNECT host:port`` (HTTPS and any tunnelled protocol) and plain ``GET http://host/...``
requests, and answers ``403`` for hosts that are denied or not allowed.

Domain rules: ``*`` allows everything, ``*.example.com`` matches subdomains of example.com (not
example.com itself), anything else must match exactly; a denied match wins over an allowed one.
Programs that ignore the proxy variables simply have no network.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from urllib.parse import urlsplit

MAX_HEAD_BYTES = 64 * 1024
_MAX_SOCKET_PATH = 100  # below the 108 bytes of sun_path, with room for the terminating NUL
CONNECT_TIMEOUT_SECONDS = 15.0
HOP_BY_HOP = {"connection", "proxy-connection", "keep-alive", "proxy-authorization"}


def normalize_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def _matches(host: str, pattern: str) -> bool:
    pattern = normalize_host(pattern)
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def host_allowed(host: str, allowed: list[str], denied: list[str]) -> bool:
    name = normalize_host(host)
    if any(_matches(name, pattern) for pattern in denied):
        return False
    return any(_matches(name, pattern) for pattern in allowed)


def _split_host_port(authority: str, default_port: int) -> tuple[str, int]:
    if authority.startswith("["):  # [::1]:443
        host, _, rest = authority[1:].partition("]")
        port = rest.lstrip(":")
    else:
        host, _, port = authority.rpartition(":") if authority.count(":") == 1 else (authority, "", "")
    return host, int(port) if port.isdigit() else default_port


def _response(status: str, text: str) -> bytes:
    body = text.encode("utf-8")
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            if writer.can_write_eof():
                writer.write_eof()


class DomainFilterProxy:
    def __init__(self, allowed: list[str], denied: list[str]) -> None:
        self.allowed = list(allowed)
        self.denied = list(denied)
        self.blocked: list[str] = []  # hosts refused so far, newest last (shown by /sandbox)
        self.directory: str | None = None
        self._server: asyncio.AbstractServer | None = None

    @property
    def socket_path(self) -> str:
        if self.directory is None:
            raise RuntimeError("proxy not started")
        return os.path.join(self.directory, "proxy.sock")

    async def start(self) -> None:
        if self._server is not None:
            return
        self.directory = tempfile.mkdtemp(prefix="pi-sandbox-")
        if len(os.fsencode(self.socket_path)) > _MAX_SOCKET_PATH:
            # A long $TMPDIR would not fit a Unix socket address (sun_path is 108 bytes): use /tmp.
            os.rmdir(self.directory)
            self.directory = tempfile.mkdtemp(prefix="pi-sandbox-", dir="/tmp")
        self._server = await asyncio.start_unix_server(self._handle, self.socket_path, limit=MAX_HEAD_BYTES)

    async def stop(self) -> None:
        """Idempotent: stops listening and removes the socket directory."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream: asyncio.StreamWriter | None = None
        try:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                return
            request_line, *headers = head.decode("latin-1").split("\r\n")
            parts = request_line.split(" ")
            if len(parts) != 3:
                writer.write(_response("400 Bad Request", "Malformed request\n"))
                return
            method, target, version = parts
            if method.upper() == "CONNECT":
                host, port = _split_host_port(target, 443)
                forward: bytes | None = None
            else:
                url = urlsplit(target)
                if url.scheme != "http" or not url.hostname:
                    writer.write(_response("400 Bad Request", "Only absolute http:// URLs and CONNECT are proxied\n"))
                    return
                host, port = url.hostname, url.port or 80
                path = (url.path or "/") + (f"?{url.query}" if url.query else "")
                kept = [h for h in headers if h and h.split(":", 1)[0].strip().lower() not in HOP_BY_HOP]
                forward = ("\r\n".join([f"{method} {path} {version}", *kept, "Connection: close"]) + "\r\n\r\n").encode(
                    "latin-1"
                )
            if not host_allowed(host, self.allowed, self.denied):
                self.blocked.append(host)
                writer.write(
                    _response("403 Forbidden", f"Blocked by the pi sandbox: {host} is not an allowed domain\n")
                )
                return
            try:
                upstream_reader, connected = await asyncio.wait_for(
                    asyncio.open_connection(host, port), CONNECT_TIMEOUT_SECONDS
                )
            except (OSError, TimeoutError) as error:
                writer.write(_response("502 Bad Gateway", f"Cannot reach {host}:{port}: {error}\n"))
                return
            upstream = connected
            if forward is None:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                connected.write(forward)
            await asyncio.gather(_pipe(reader, connected), _pipe(upstream_reader, writer))
        except (ConnectionError, OSError):
            pass
        finally:
            for stream in (upstream, writer):
                if stream is not None:
                    with contextlib.suppress(Exception):
                        stream.close()
