"""Signing in to an OAuth MCP server: the loopback callback and the browser step.

``sign_in`` listens on ``127.0.0.1`` (the port of ``oauth.callbackPort`` / ``callbackUrl``, else
the port of the client registered before so that registration stays valid, else a free one),
connects with a ``BrowserStep`` so the SDK's flow may send the user to the authorization page,
and waits for the redirect. The connection that results is the signed-in one: its tools are the
answer to "(N tools)". A stored client whose redirect URI differs from this sign-in's is dropped
with its tokens, as Pi does, so registration runs again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from pi_harness.extensions_builtin.mcp.auth_store import McpAuthFile
from pi_harness.extensions_builtin.mcp.config import McpServerConfig
from pi_harness.extensions_builtin.mcp.oauth import BrowserStep, callback_settings, oauth_settings

if TYPE_CHECKING:
    from mcp.shared.auth import AuthorizationCodeResult

    from pi_harness.extensions_builtin.mcp.connection import ServerConnection

SUCCESS_PAGE = "Signed in to the MCP server. You can close this page."
FAILURE_PAGE = "The sign-in did not complete. You can close this page."


class SignInCancelled(Exception):
    """The user did not finish in time, or cancelled."""


class SignInFailed(Exception):
    """The authorization server or the callback reported an error."""


@dataclass
class _Callback:
    path: str
    result: asyncio.Future[dict[str, str]]
    server: asyncio.AbstractServer | None = None
    port: int = 0
    paths: list[str] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.split(" ")
            target = urlsplit(parts[1] if len(parts) > 1 else "/")
            if target.path != self.path:
                await _answer(writer, 404, "Not found")
                return
            params = {key: values[0] for key, values in parse_qs(target.query).items()}
            ok = "code" in params and "error" not in params
            await _answer(writer, 200, SUCCESS_PAGE if ok else FAILURE_PAGE)
            if not self.result.done():
                self.result.set_result(params)
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(OSError):
                writer.close()


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = text.encode()
    head = f"HTTP/1.1 {status} {'OK' if status == 200 else 'Not Found'}\r\ncontent-type: text/plain; charset=utf-8"
    writer.write(f"{head}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body)
    await writer.drain()


async def _listen(callback: _Callback, host: str, port: int | None, required: bool) -> None:
    try:
        callback.server = await asyncio.start_server(callback.handle, host, port or 0)
    except OSError:
        if required or port is None:
            raise
        callback.server = await asyncio.start_server(callback.handle, host, 0)
    callback.port = callback.server.sockets[0].getsockname()[1]


def response_from_redirect_url(text: str, state: str | None, redirect: str) -> dict[str, str]:
    """The parameters of a redirect URL pasted from the browser's address bar, checked as Pi checks
    them (same origin and path as this sign-in's redirect URI, its ``state``, a ``code``)."""
    pasted, expected = urlsplit(text.strip()), urlsplit(redirect)
    if not pasted.scheme or not pasted.netloc:
        raise SignInFailed("Expected the full redirect URL from the browser address bar")
    if (pasted.scheme, pasted.netloc.lower(), pasted.path) != (expected.scheme, expected.netloc.lower(), expected.path):
        raise SignInFailed("The redirect URL does not match this sign-in's redirect URI")
    params = {key: values[0] for key, values in parse_qs(pasted.query).items()}
    if "error" in params:
        raise SignInFailed(params.get("error_description") or params["error"])
    if state is not None and params.get("state") != state:
        raise SignInFailed("The redirect URL belongs to a different sign-in")
    if "code" not in params:
        raise SignInFailed("The redirect URL does not contain an authorization code")
    return params


def _registered_redirect(state: dict[str, object]) -> str | None:
    client = state.get("clientInformation")
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    return uris[0] if isinstance(uris, list) and uris and isinstance(uris[0], str) else None


async def sign_in(
    config: McpServerConfig,
    agent_directory: Path,
    connect: Callable[[BrowserStep], ServerConnection],
    show_url: Callable[[str], None],
    timeout_s: float,
    paste: Callable[[], Awaitable[str | None]] | None = None,
) -> ServerConnection:
    """Run the browser flow and return the connected connection (the caller closes it).

    ``paste`` (a terminal) may answer instead of the browser with the URL it was redirected to;
    an empty answer cancels. Raises ``SignInCancelled`` when ``timeout_s`` passes first (or the
    user cancels), ``SignInFailed`` when the authorization server answers with an error, and the
    connection's error otherwise."""
    assert config.url is not None
    settings = oauth_settings(config)
    host, redirect_host, port, path, fixed = callback_settings(settings)
    store = McpAuthFile(agent_directory)
    stored = store.load(config.name, config.url) or {}
    registered = _registered_redirect(stored)
    preferred = port if port is not None else (urlsplit(registered).port if registered else None)
    loop = asyncio.get_running_loop()
    callback = _Callback(path, loop.create_future())
    await _listen(callback, host, preferred, required=port is not None)
    redirect = fixed or f"http://{redirect_host}:{callback.port}{path}"
    if stored:
        keep = isinstance(settings.get("clientId"), str) or registered == redirect
        drop = ("oauthState",) if keep else ("oauthState", "clientInformation", "tokens", "tokensExpireAt", "discovery")
        store.merge(config.name, config.url, {}, drop=drop)
    failure: list[BaseException] = []
    tasks: list[asyncio.Task[None]] = []  # the terminal prompt, cancelled when the sign-in ends
    sent_state: list[str | None] = [None]

    async def show(url: str) -> None:
        sent_state[0] = parse_qs(urlsplit(url).query).get("state", [None])[0]
        show_url(url)
        if paste is not None:
            tasks.append(loop.create_task(from_terminal()))

    async def from_terminal() -> None:
        assert paste is not None
        text = await paste()
        if callback.result.done():
            return
        if not text or not text.strip():
            failure.append(SignInCancelled())
            callback.result.set_result({"error": "cancelled"})
            return
        try:
            callback.result.set_result(response_from_redirect_url(text, sent_state[0], redirect))
        except SignInFailed as exc:
            failure.append(exc)
            callback.result.set_result({"error": str(exc)})

    async def wait() -> AuthorizationCodeResult:
        from mcp.shared.auth import AuthorizationCodeResult

        params = await callback.result
        if failure:
            raise failure[0]
        if "error" in params:
            error = SignInFailed(params.get("error_description") or params["error"])
            failure.append(error)
            raise error
        if "code" not in params:
            error = SignInFailed("The callback did not include an authorization code")
            failure.append(error)
            raise error
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    connection = connect(BrowserStep(redirect_url=redirect, show=show, wait=wait))
    try:
        connection.start()
        if not await connection.wait_settled(timeout_s):
            await connection.close()
            raise SignInCancelled()
    finally:
        for task in tasks:
            task.cancel()
        assert callback.server is not None
        callback.server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(callback.server.wait_closed(), 2)
    if failure:
        await connection.close()
        raise failure[0]
    return connection
