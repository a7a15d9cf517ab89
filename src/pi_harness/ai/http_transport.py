"""Which HTTP client carries a provider request, and the errors either may raise.

Provider stream requests go through ``light_http`` (``h11`` over asyncio streams) when it does
exactly what ``httpx2`` would (a direct connection, see ``light_http.usable_for``); through a
pooled ``httpx2`` client otherwise (proxies) and for the other requests of the providers. One
client of each kind per event loop, so connections are kept alive across the turns of a session.
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from collections.abc import AsyncIterator, ItemsView, Mapping
from typing import TYPE_CHECKING, Protocol

from pi_harness import early_exchange
from pi_harness.ai import light_http, tls

if TYPE_CHECKING:
    import httpx2

    from pi_harness.ai.body_encoding import EncodedBody

CONNECT_TIMEOUT_S = 30.0
WRITE_TIMEOUT_S = 60.0
POOL_TIMEOUT_S = 60.0


class _Headers(Protocol):
    def items(self) -> ItemsView[str, str]: ...


class StreamingResponse(Protocol):
    """What ``post_stream`` yields: an ``httpx2.Response`` or a ``light_http.LightResponse``."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> _Headers: ...

    async def aread(self) -> bytes: ...

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...

    async def aclose(self) -> None: ...


# Per event loop: the httpx2 client for plain-HTTP endpoints (False) and the one that speaks TLS (True).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[bool, httpx2.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)
_light_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, light_http.LightClient] = (
    weakref.WeakKeyDictionary()
)


def user_agent() -> str:
    from pi_harness.__about__ import __version__

    return f"pi-harness/{__version__}"


def get_client(url: str = "https:") -> httpx2.AsyncClient:
    """The shared ``httpx2`` client of the running event loop for requests to ``url``.
    Plain-HTTP endpoints get a client without the certificate store, whose loading is most of a
    client's cost (``pi_harness.ai.tls``)."""
    import httpx2

    loop = asyncio.get_running_loop()
    secure = tls.needs_tls(url)
    clients = _clients.setdefault(loop, {})
    client = clients.get(secure)
    if client is None or client.is_closed:
        timeout = httpx2.Timeout(connect=CONNECT_TIMEOUT_S, read=None, write=WRITE_TIMEOUT_S, pool=POOL_TIMEOUT_S)
        context = tls.verified_context() if secure else tls.unused_context()
        client = httpx2.AsyncClient(timeout=timeout, verify=context, headers={"User-Agent": user_agent()})
        clients[secure] = client
    return client


def _light_client() -> light_http.LightClient:
    loop = asyncio.get_running_loop()
    client = _light_clients.get(loop)
    if client is None:
        # The TLS context is taken on the first https connection (maybe prewarmed by then).
        client = _light_clients[loop] = light_http.LightClient(None, user_agent())
    return client


def preconnect(url: str) -> None:
    """Open the connection of a request to ``url`` that is about to be sent, while the rest of
    startup finishes (only on the direct path; needs a running event loop)."""
    if light_http.usable_for(url):
        _light_client().preconnect(url, CONNECT_TIMEOUT_S)


async def send_post(
    url: str, headers: Mapping[str, str], body: bytes | EncodedBody, *, read_timeout_s: float | None
) -> StreamingResponse:
    """POST and return the response once its status line and headers arrived (body unread)."""
    if light_http.usable_for(url):
        timeouts = light_http.Timeouts(connect=CONNECT_TIMEOUT_S, read=read_timeout_s, write=WRITE_TIMEOUT_S)
        return await _light_client().post(url, headers, body, timeouts)
    if early_exchange.rehearsing():
        early_exchange.refuse_rehearsal()
        raise light_http.ConnectError(early_exchange.NOT_REHEARSED)
    import httpx2

    client = get_client(url)
    timeout = httpx2.Timeout(connect=CONNECT_TIMEOUT_S, read=read_timeout_s, write=WRITE_TIMEOUT_S, pool=POOL_TIMEOUT_S)
    content = body if isinstance(body, bytes) else bytes(body)
    request = client.build_request("POST", url, headers=dict(headers), content=content, timeout=timeout)
    return await client.send(request, stream=True)


def transport_errors() -> tuple[type[Exception], ...]:
    """The exception classes of a failed send or read, for ``except``: ``httpx2``'s only once it
    is imported (before that, nothing can raise them)."""
    httpx2 = sys.modules.get("httpx2")
    if httpx2 is None:
        return (light_http.TransportError,)
    return (light_http.TransportError, httpx2.TransportError)


def is_timeout(exc: BaseException) -> bool:
    httpx2 = sys.modules.get("httpx2")
    return isinstance(exc, light_http.TimeoutException) or (
        httpx2 is not None and isinstance(exc, httpx2.TimeoutException)
    )


def is_remote_protocol_error(exc: BaseException) -> bool:
    httpx2 = sys.modules.get("httpx2")
    return isinstance(exc, light_http.RemoteProtocolError) or (
        httpx2 is not None and isinstance(exc, httpx2.RemoteProtocolError)
    )
