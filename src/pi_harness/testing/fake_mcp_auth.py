"""A protected MCP server with its own fake authorization server, on one loopback port.

For end-to-end tests of MCP sign-in (part of the product, like ``fake_llm``). One uvicorn server in
a background thread serves:

* ``/mcp``: a streamable-HTTP MCP server (the official SDK) with one tool, ``whoami``, answering
  ``signed in as <client_id>``; without a valid bearer token it answers 401 with
  ``WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource/mcp"``;
* ``/.well-known/oauth-protected-resource[/mcp]`` (RFC 9728) naming the authorization server;
* ``/.well-known/oauth-authorization-server`` (RFC 8414; with ``advertised_authorization_server``
  the resource metadata names that server instead and the metadata is only at
  ``/custom-metadata``, for ``oauth.authServerMetadataUrl``), ``POST /register`` (RFC 7591),
  ``GET /authorize`` (302 back to the redirect URI with ``code`` and ``state``, or with
  ``error=access_denied`` while ``deny`` is set), ``POST /token`` for the ``authorization_code``
  grant (the PKCE S256 verifier is checked) and the ``refresh_token`` grant (rotating).

``revoke_access_tokens()`` makes every issued access token invalid, so a test sees a refresh
without waiting for an expiry. ``requests`` records ``"METHOD /path"`` of everything received;
``registrations`` and ``grants`` record what the client sent. ``visit(url)`` plays the browser:
it follows the authorization URL and then the redirect to the loopback callback.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


@dataclass
class _Code:
    client_id: str
    redirect_uri: str
    challenge: str
    scope: str | None


@dataclass
class _AuthState:
    clients: dict[str, dict[str, Any]] = field(default_factory=dict)
    codes: dict[str, _Code] = field(default_factory=dict)
    access: dict[str, str] = field(default_factory=dict)  # token -> client id
    refresh: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    registrations: list[dict[str, Any]] = field(default_factory=list)
    grants: list[dict[str, str]] = field(default_factory=list)


class FakeMcpAuthServer:
    def __init__(
        self,
        *,
        expires_in: int = 3600,
        scopes: tuple[str, ...] = ("tools",),
        advertised_authorization_server: str | None = None,
    ) -> None:
        self.expires_in = expires_in
        # A protected-resource document naming another (wrong) authorization server, as some servers
        # do; the right one's metadata is then only at ``/custom-metadata`` (issuer ``<base>/custom``).
        self.advertised_authorization_server = advertised_authorization_server
        self.scopes = scopes
        self.deny = False
        self._state = _AuthState()
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self.port = 0

    # -- what tests read -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base_url}/mcp"

    @property
    def requests(self) -> list[str]:
        with self._lock:
            return list(self._state.requests)

    @property
    def registrations(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._state.registrations)

    @property
    def grants(self) -> list[dict[str, str]]:
        with self._lock:
            return list(self._state.grants)

    def revoke_access_tokens(self) -> None:
        with self._lock:
            self._state.access.clear()

    def register_client(self, client_id: str, redirect_uri: str) -> None:
        """A client registered in advance (``oauth.clientId`` in mcp.json)."""
        with self._lock:
            self._state.clients[client_id] = {"client_id": client_id, "redirect_uris": [redirect_uri]}

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> FakeMcpAuthServer:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        import asyncio

        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        app = self._app()
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
        started = threading.Event()

        def run() -> None:
            async def serve() -> None:
                started.set()
                await self._server.serve(sockets=[sock])

            asyncio.run(serve())

        self._thread = threading.Thread(target=run, name="fake-mcp-auth", daemon=True)
        self._thread.start()
        started.wait(10)
        for _ in range(400):  # the socket is bound; wait until uvicorn answers
            if self._server.started:
                break
            threading.Event().wait(0.01)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)

    # -- the browser -----------------------------------------------------------------------------

    @staticmethod
    def authorize(authorization_url: str) -> str:
        """Open the authorization page but not the redirect: the URL the browser's address bar
        would show when the loopback callback is out of its reach (pasted into pi instead)."""
        import httpx2

        with httpx2.Client(follow_redirects=False, timeout=30.0) as client:
            return str(client.get(authorization_url).headers.get("location", ""))

    @staticmethod
    def visit(authorization_url: str) -> str:
        """Open ``authorization_url`` as a browser would and follow the redirect to the callback;
        returns the callback page's text."""
        import httpx2

        with httpx2.Client(follow_redirects=False, timeout=30.0) as client:
            answer = client.get(authorization_url)
            location = answer.headers.get("location")
            if answer.status_code != 302 or not location:
                return answer.text
            return client.get(location).text

    # -- the app ---------------------------------------------------------------------------------

    def _app(self) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        from mcp.server.mcpserver import Context, MCPServer

        server = MCPServer("fake-protected", log_level="ERROR")

        def whoami(ctx: Context) -> str:
            request = ctx.request_context.request
            header = request.headers.get("authorization", "") if request is not None else ""
            with self._lock:
                client = self._state.access.get(header.removeprefix("Bearer ").strip(), "?")
            return f"signed in as {client}"

        # Annotations are strings under ``from __future__``; the SDK needs the real Context class.
        whoami.__annotations__ = {"ctx": Context, "return": str}
        server.add_tool(whoami, description="Say which OAuth client the request was authorized for.")

        mcp_app = server.streamable_http_app()

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await mcp_app(scope, receive, send)
                return
            path = scope["path"]
            with self._lock:
                self._state.requests.append(f"{scope['method']} {path}")
            if path.startswith("/mcp"):
                token = _header(scope, b"authorization").removeprefix("Bearer ").strip()
                with self._lock:
                    valid = token in self._state.access
                if not valid:
                    metadata = f"{self.base_url}/.well-known/oauth-protected-resource/mcp"
                    challenge = f'Bearer error="invalid_token", resource_metadata="{metadata}"'
                    await _reply(send, 401, {"error": "invalid_token"}, [(b"www-authenticate", challenge.encode())])
                    return
                await mcp_app(scope, receive, send)
                return
            body = await _body(receive)
            status, payload, headers = self._oauth(scope["method"], path, scope.get("query_string", b""), body)
            await _reply(send, status, payload, headers)

        return app

    def _oauth(self, method: str, path: str, query: bytes, body: bytes) -> tuple[int, Any, list[tuple[bytes, bytes]]]:
        base = self.base_url
        if method == "GET" and path.startswith("/.well-known/oauth-protected-resource"):
            servers = [self.advertised_authorization_server or base]
            document = {"resource": self.url, "authorization_servers": servers, "scopes_supported": list(self.scopes)}
            return 200, document, []
        if method == "GET" and path.startswith("/.well-known/oauth-authorization-server"):
            if self.advertised_authorization_server is not None:
                return 404, {"error": "not_found"}, []
            return 200, self._metadata(), []
        if method == "GET" and path == "/custom-metadata":
            return 200, {**self._metadata(), "issuer": f"{base}/custom"}, []
        if method == "POST" and path == "/register":
            return self._register(json.loads(body or b"{}"))
        if method == "GET" and path == "/authorize":
            return self._authorize({k: v[0] for k, v in parse_qs(query.decode()).items()})
        if method == "POST" and path == "/token":
            return self._token({k: v[0] for k, v in parse_qs(body.decode()).items()})
        return 404, {"error": "not_found"}, []

    def _metadata(self) -> dict[str, Any]:
        base = self.base_url
        return {
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "registration_endpoint": f"{base}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            "scopes_supported": list(self.scopes),
        }

    def _register(self, request: dict[str, Any]) -> tuple[int, Any, list[tuple[bytes, bytes]]]:
        uris = request.get("redirect_uris")
        if not isinstance(uris, list) or not uris:
            return 400, {"error": "invalid_redirect_uri"}, []
        client_id = f"client-{next(self._counter)}"
        record = {
            "client_id": client_id,
            "client_id_issued_at": 1,
            "redirect_uris": uris,
            "client_name": request.get("client_name"),
            "grant_types": request.get("grant_types") or ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        with self._lock:
            self._state.registrations.append(request)
            self._state.clients[client_id] = record
        return 201, record, []

    def _authorize(self, params: dict[str, str]) -> tuple[int, Any, list[tuple[bytes, bytes]]]:
        with self._lock:
            client = self._state.clients.get(params.get("client_id", ""))
        redirect = params.get("redirect_uri", "")
        if client is None or redirect not in client["redirect_uris"]:
            return 400, {"error": "invalid_request", "error_description": "unknown client or redirect URI"}, []
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return 400, {"error": "invalid_request", "error_description": "PKCE S256 is required"}, []
        answer: dict[str, str] = {"state": params.get("state", "")}
        if self.deny:
            answer.update(error="access_denied", error_description="The user denied access")
        else:
            code = secrets.token_urlsafe(12)
            with self._lock:
                self._state.codes[code] = _Code(
                    client["client_id"], redirect, params["code_challenge"], params.get("scope")
                )
            answer["code"] = code
        location = f"{redirect}{'&' if urlsplit(redirect).query else '?'}{urlencode(answer)}"
        return 302, {}, [(b"location", location.encode())]

    def _token(self, form: dict[str, str]) -> tuple[int, Any, list[tuple[bytes, bytes]]]:
        with self._lock:
            self._state.grants.append(dict(form))
            grant = form.get("grant_type")
            if grant == "authorization_code":
                code = self._state.codes.pop(form.get("code", ""), None)
                if (
                    code is None
                    or code.client_id != form.get("client_id")
                    or code.redirect_uri != form.get("redirect_uri")
                ):
                    return 400, {"error": "invalid_grant"}, []
                if _s256(form.get("code_verifier", "")) != code.challenge:
                    return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}, []
                return 200, self._issue(code.client_id, code.scope), []
            if grant == "refresh_token":
                client_id = self._state.refresh.pop(form.get("refresh_token", ""), None)
                if client_id is None:
                    return 400, {"error": "invalid_grant"}, []
                return 200, self._issue(client_id, None), []
        return 400, {"error": "unsupported_grant_type"}, []

    def _issue(self, client_id: str, scope: str | None) -> dict[str, Any]:
        access, refresh = f"at-{secrets.token_hex(8)}", f"rt-{secrets.token_hex(8)}"
        self._state.access[access] = client_id
        self._state.refresh[refresh] = client_id
        tokens: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
        }
        if scope:
            tokens["scope"] = scope
        return tokens


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


async def _body(receive: Receive) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += bytes(message.get("body", b""))
        if not message.get("more_body"):
            return body


async def _reply(send: Send, status: int, payload: Any, headers: list[tuple[bytes, bytes]]) -> None:
    data = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": data})
