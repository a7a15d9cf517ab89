"""OAuth for remote MCP servers, on the ``mcp`` SDK's ``OAuthClientProvider``.

The SDK does the protocol: protected-resource metadata (RFC 9728), authorization-server metadata
with its issuer check (RFC 8414), dynamic client registration (RFC 7591), PKCE S256 and the token
and refresh grants. This module adds what Pi 1.4.0 does around it:

* credentials live in ``mcp-auth.json`` in Pi's layout (``auth_store``), including the discovered
  metadata, so a refresh in a later process reaches the right token endpoint;
* the stored ``tokensExpireAt`` counts: a token that expires within 30 s is refreshed before it is
  sent, and a 401 to a token that was believed valid is answered with one refresh first;
* a connection never opens a browser: where the SDK would start the authorization redirect, a
  connection raises ``SignInRequired`` and shows "needs sign-in"; only ``signin.sign_in`` passes
  handlers that run the browser step.

A server uses OAuth when it is an HTTP server without an ``Authorization`` header (as in Pi).
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_harness.extensions_builtin.mcp.auth_store import McpAuthFile, expires_at_ms
from pi_harness.extensions_builtin.mcp.config import McpServerConfig

if TYPE_CHECKING:
    import httpx2
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

CLIENT_NAME = "pi"
CALLBACK_HOST = "127.0.0.1"
CALLBACK_PATH = "/callback"
REFRESH_SKEW_S = 30.0
# Pi's published Client ID Metadata Document, for ``clientRegistration: "cimd"``.
CLIENT_METADATA_URL = "https://pi.dev/oauth/client.json"
CIMD_UNSUPPORTED = (
    "The authorization server does not support Client ID Metadata Documents for public clients; "
    'remove oauth.clientRegistration "cimd"'
)


class OAuthMetadataError(Exception):
    """The configured authorization-server metadata could not be read."""


class SignInRequired(Exception):
    """The server wants a sign-in the connection may not start on its own."""

    def __init__(self) -> None:
        super().__init__("sign-in required")


def oauth_settings(config: McpServerConfig) -> dict[str, Any]:
    value = config.oauth
    return dict(value) if isinstance(value, dict) else {}


@dataclass
class BrowserStep:
    """The interactive half of a sign-in: where the browser is sent and how its answer arrives."""

    redirect_url: str
    show: Callable[[str], Awaitable[None]]
    wait: Callable[[], Awaitable[AuthorizationCodeResult]]


class ServerTokenStorage:
    """The SDK's ``TokenStorage`` over one server's entry in ``mcp-auth.json``."""

    def __init__(self, file: McpAuthFile, config: McpServerConfig, redirect_url: str) -> None:
        assert config.url is not None
        self.file = file
        self.name = config.name
        self.url = config.url
        self.settings = oauth_settings(config)
        self.redirect_url = redirect_url

    def state(self) -> dict[str, Any]:
        return self.file.load(self.name, self.url) or {}

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        tokens = self.state().get("tokens")
        if not isinstance(tokens, dict) or not isinstance(tokens.get("access_token"), str):
            return None
        known = {key: tokens[key] for key in ("access_token", "expires_in", "scope", "refresh_token") if key in tokens}
        return OAuthToken.model_validate(known)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        value = tokens.model_dump(mode="json", exclude_none=True)
        expires = expires_at_ms(tokens.expires_in)
        if expires is None:
            self.file.merge(self.name, self.url, {"tokens": value}, drop=("tokensExpireAt",))
        else:
            self.file.merge(self.name, self.url, {"tokens": value, "tokensExpireAt": expires})

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        client_id = self.settings.get("clientId")
        if isinstance(client_id, str):
            secret = self.settings.get("clientSecret")
            fields: dict[str, Any] = {"client_id": client_id, "redirect_uris": [self.redirect_url]}
            if isinstance(secret, str) and secret:
                from pi_harness.extensions_builtin.mcp.values import resolve_value

                fields["client_secret"] = resolve_value(secret, f'MCP server "{self.name}" oauth.clientSecret')
                fields["token_endpoint_auth_method"] = "client_secret_post"
            else:
                fields["token_endpoint_auth_method"] = "none"
            return OAuthClientInformationFull.model_validate(fields)
        stored = self.state().get("clientInformation")
        if not isinstance(stored, dict) or not isinstance(stored.get("client_id"), str):
            return None
        return OAuthClientInformationFull.model_validate(stored)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if isinstance(self.settings.get("clientId"), str):
            return  # a configured client is never stored
        value = client_info.model_dump(mode="json", exclude_none=True)
        self.file.merge(self.name, self.url, {"clientInformation": value})


def _provider_class() -> type[Any]:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

    class PiOAuthProvider(OAuthClientProvider):
        """The SDK provider with Pi's stored expiry, stored discovery and refresh-on-401."""

        storage_view: ServerTokenStorage
        interactive: bool = False
        # ``oauth.authServerMetadataUrl``: used instead of discovery and trusted as configured.
        metadata_url: str | None = None
        configured_issuer: str | None = None

        def _select_authorization_server(self, advertised: list[str]) -> str:
            if self.configured_issuer is not None:
                return self.configured_issuer
            return str(super()._select_authorization_server(advertised))

        def _expected_issuer(self) -> str:
            if self.configured_issuer is not None:
                return self.configured_issuer
            return str(super()._expected_issuer())

        def _configured_metadata_request(self, outgoing: httpx2.Request) -> httpx2.Request:
            """Discovery of the authorization server's metadata fetches the configured document."""
            if self.metadata_url is None or outgoing.method != "GET":
                return outgoing
            path = outgoing.url.path
            if "/.well-known/oauth-authorization-server" in path or "/.well-known/openid-configuration" in path:
                import httpx2

                return httpx2.Request("GET", self.metadata_url, headers=dict(outgoing.headers))
            return outgoing

        async def _initialize(self) -> None:
            await super()._initialize()
            state = self.storage_view.state()
            expires = state.get("tokensExpireAt")
            if isinstance(expires, (int, float)) and self.context.current_tokens is not None:
                self.context.token_expiry_time = expires / 1000 - REFRESH_SKEW_S
            discovery = state.get("discovery")
            if isinstance(discovery, dict) and self.context.oauth_metadata is None:
                try:
                    metadata = discovery.get("authorizationServerMetadata")
                    if isinstance(metadata, dict):
                        self.context.oauth_metadata = OAuthMetadata.model_validate(metadata)
                    resource = discovery.get("resourceMetadata")
                    if isinstance(resource, dict):
                        self.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(resource)
                    server = discovery.get("authorizationServerUrl")
                    if isinstance(server, str):
                        self.context.auth_server_url = server
                except ValueError:
                    pass  # stale or foreign metadata: discovery runs again on the next 401

        def _save_discovery(self) -> None:
            metadata = self.context.oauth_metadata
            if metadata is None:
                return
            discovery: dict[str, Any] = {
                "authorizationServerUrl": self.context.auth_server_url or str(metadata.issuer),
                "authorizationServerMetadata": metadata.model_dump(mode="json", exclude_none=True),
            }
            resource = self.context.protected_resource_metadata
            if resource is not None:
                discovery["resourceMetadata"] = resource.model_dump(mode="json", exclude_none=True)
            view = self.storage_view
            view.file.merge(view.name, view.url, {"discovery": discovery})

        async def _handle_token_response(self, response: httpx2.Response) -> None:
            await super()._handle_token_response(response)
            self._save_discovery()

        async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
            ok = bool(await super()._handle_refresh_response(response))
            if ok:
                self._save_discovery()
            return ok

        async def _perform_authorization_code_grant(self) -> tuple[str, str]:
            # The SDK replaces the scope with the advertised one; Pi adds it to the configured scope.
            configured = self.storage_view.settings.get("scope")
            if isinstance(configured, str):
                self.context.client_metadata.scope = merge_scopes(configured, self.context.client_metadata.scope)
            result: tuple[str, str] = await super()._perform_authorization_code_grant()
            return result

        def _is_registration(self, outgoing: httpx2.Request) -> bool:
            if outgoing.method != "POST":
                return False
            metadata = self.context.oauth_metadata
            endpoint = metadata.registration_endpoint if metadata is not None else None
            target = str(outgoing.url)
            return target == str(endpoint) if endpoint is not None else target.endswith("/register")

        async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            # The SDK answers any 401 with the whole authorization flow. Pi first spends the refresh
            # token on a rejected access token; only when that fails does the user sign in again.
            refreshed = False
            flow = super()._auth_flow(request)
            try:
                outgoing = self._configured_metadata_request(await flow.__anext__())
                while True:
                    response = yield outgoing
                    if (
                        outgoing is request
                        and response.status_code == 401
                        and self.metadata_url is not None
                        and self.configured_issuer is None
                    ):
                        # Discovery is about to run: read the configured document's issuer first.
                        import httpx2

                        answer = yield httpx2.Request("GET", self.metadata_url, headers={"accept": "application/json"})
                        await answer.aread()
                        if answer.status_code != 200:
                            raise OAuthMetadataError(f"oauth.authServerMetadataUrl answered HTTP {answer.status_code}")
                        self.configured_issuer = str(OAuthMetadata.model_validate_json(answer.content).issuer)
                    tokens = self.context.current_tokens
                    if (
                        outgoing is request
                        and response.status_code == 401
                        and not refreshed
                        and tokens is not None
                        and tokens.refresh_token
                        and self.context.client_info is not None
                    ):
                        refreshed = True
                        await flow.aclose()
                        self.context.token_expiry_time = time.time() - 1
                        flow = super()._auth_flow(request)
                        outgoing = self._configured_metadata_request(await flow.__anext__())
                        continue
                    outgoing = self._configured_metadata_request(await flow.asend(response))
                    if not self.interactive and self._is_registration(outgoing):
                        # Only a sign-in registers a client (its redirect URI is known then).
                        raise SignInRequired()
                    if self.storage_view.settings.get("clientRegistration") == "cimd" and self._is_registration(
                        outgoing
                    ):
                        # The SDK falls back to registration; Pi's "cimd" does not.
                        raise OAuthMetadataError(CIMD_UNSUPPORTED)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

    return PiOAuthProvider


def merge_scopes(*scopes: str | None) -> str | None:
    """The scopes of every list, each once, in first-seen order."""
    merged: list[str] = []
    for scope in scopes:
        for item in (scope or "").split():
            if item not in merged:
                merged.append(item)
    return " ".join(merged) or None


def callback_settings(settings: dict[str, Any]) -> tuple[str, str, int | None, str, str | None]:
    """(listen host, redirect host, port, path, fixed redirect URL) as Pi derives them."""
    from urllib.parse import urlsplit, urlunsplit

    configured = settings.get("callbackUrl")
    url = configured if isinstance(configured, str) else f"http://{CALLBACK_HOST}{CALLBACK_PATH}"
    parts = urlsplit(url)
    address = (parts.hostname or CALLBACK_HOST).strip("[]")
    redirect_host = parts.netloc.rsplit(":", 1)[0] if parts.port else parts.netloc
    setting_port = settings.get("callbackPort")
    port = parts.port if parts.port else setting_port if isinstance(setting_port, int) else None
    fixed: str | None = None
    if parts.port:
        fixed = url  # sent exactly as written: servers compare it as a string
    elif port is not None:
        fixed = urlunsplit((parts.scheme, f"{redirect_host}:{port}", parts.path, "", ""))
    host = CALLBACK_HOST if address == "localhost" else address
    return host, redirect_host, port, parts.path or "/", fixed


def create_auth(config: McpServerConfig, agent_directory: Path, browser: BrowserStep | None = None) -> httpx2.Auth:
    """The ``httpx2.Auth`` for one connection: with ``browser`` it may run the authorization code
    flow; without, the flow stops with ``SignInRequired`` where the browser would open."""
    from mcp.shared.auth import OAuthClientMetadata

    assert config.url is not None
    settings = oauth_settings(config)
    stored_redirect = _stored_redirect(agent_directory, config)
    redirect = browser.redirect_url if browser else (callback_settings(settings)[4] or stored_redirect)
    storage = ServerTokenStorage(McpAuthFile(agent_directory), config, redirect)
    has_secret = isinstance(settings.get("clientSecret"), str) and bool(settings.get("clientSecret"))
    metadata = OAuthClientMetadata.model_validate(
        {
            "redirect_uris": [redirect],
            "client_name": settings.get("clientName") or CLIENT_NAME,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_post" if has_secret else "none",
            **({"scope": settings["scope"]} if isinstance(settings.get("scope"), str) else {}),
        }
    )

    async def refuse(_url: str) -> None:
        raise SignInRequired()

    async def never() -> AuthorizationCodeResult:
        raise SignInRequired()

    provider = _provider_class()(
        server_url=config.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.show if browser else refuse,
        callback_handler=browser.wait if browser else never,
        client_metadata_url=CLIENT_METADATA_URL if settings.get("clientRegistration") == "cimd" else None,
    )
    provider.storage_view = storage
    provider.interactive = browser is not None
    metadata_url = settings.get("authServerMetadataUrl")
    provider.metadata_url = metadata_url if isinstance(metadata_url, str) else None
    auth: httpx2.Auth = provider  # the class is made lazily (no SDK import at load), so it is Any
    return auth


def _stored_redirect(agent_directory: Path, config: McpServerConfig) -> str:
    assert config.url is not None
    state = McpAuthFile(agent_directory).load(config.name, config.url) or {}
    client = state.get("clientInformation")
    uris = client.get("redirect_uris") if isinstance(client, dict) else None
    if isinstance(uris, list) and uris and isinstance(uris[0], str):
        return uris[0]
    return f"http://{CALLBACK_HOST}{CALLBACK_PATH}"


def needs_sign_in(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it wraps or groups) is ``SignInRequired``."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, SignInRequired):
            return True
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)
    return False
