"""The one-shot loopback server that receives the browser's redirect after sign-in.

It listens on a free port of the loopback interface, on a random path so that a stray request
cannot complete the sign-in, and resolves ``code`` with the ``code`` query parameter of the first
request to that path (or fails it with the ``error`` the provider sent back).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from urllib.parse import parse_qs, urlsplit

from pi_harness.coding.auth_flows.errors import LoginError

_PAGE = "<!doctype html><html><head><meta charset='utf-8'><title>pi</title></head><body><p>{text}</p></body></html>"


class CallbackServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.path = f"/oauth/callback/{secrets.token_hex(12)}"
        self.port = 0
        self._server: asyncio.Server | None = None
        self.code: asyncio.Future[str] | None = None

    @property
    def redirect_uri(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{self.path}"

    async def start(self) -> CallbackServer:
        self.code = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self.code is not None and not self.code.done():
            self.code.cancel()

    async def __aenter__(self) -> CallbackServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
            parts = request_line.split(" ")
            target = urlsplit(parts[1] if len(parts) > 1 else "/")
            status, text = self._resolve(target.path, parse_qs(target.query))
            body = _PAGE.format(text=text).encode("utf-8")
            writer.write(
                f"HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode("latin-1")
                + body
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _resolve(self, path: str, query: dict[str, list[str]]) -> tuple[str, str]:
        if path != self.path or self.code is None:
            return "404 Not Found", "Not found."
        if self.code.done():
            return "200 OK", "This sign-in has already been handled. You can close this tab."
        code = (query.get("code") or [""])[0]
        if code:
            self.code.set_result(code)
            return "200 OK", "Signed in. You can close this tab and return to pi."
        error = (query.get("error_description") or query.get("error") or ["no authorization code"])[0]
        self.code.set_exception(LoginError(f"Sign-in failed: {error}"))
        return "400 Bad Request", "Sign-in failed. Return to pi for details."
