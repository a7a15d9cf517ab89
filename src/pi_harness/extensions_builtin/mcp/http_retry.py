"""HTTP transport for streamable-HTTP MCP servers: retry transient statuses, never tool calls.

Network errors and statuses 408, 429 and 5xx other than 501 are retried twice (after 0.25 s and
1 s, as Pi does), or after the delay the server asks for (``Retry-After``, capped). A ``tools/call``
POST is never retried: the server may already have run the tool, and running it twice could
repeat a side effect.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx2

from pi_harness.ai.jsonutil import loads
from pi_harness.extensions_builtin.mcp.policy import RetryPolicy

NEVER_RETRIED_METHODS = frozenset({"tools/call"})


def is_transient_status(status: int) -> bool:
    return status in (408, 429) or (500 <= status <= 599 and status != 501)


def jsonrpc_method(request: httpx2.Request) -> str | None:
    """The JSON-RPC method a POST carries (``None`` for other requests or unreadable bodies)."""
    if request.method != "POST":
        return None
    try:
        payload = loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    if isinstance(payload, dict):
        method = payload.get("method")
        return method if isinstance(method, str) else None
    return None


class RetryingTransport(httpx2.AsyncBaseTransport):
    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        policy: RetryPolicy,
        on_retry: Callable[[str, int, int, float], None] | None = None,
    ) -> None:
        self._inner = inner
        self._policy = policy
        self._on_retry = on_retry
        self.last_failure: str | None = None  # "HTTP 503 for tools/list", for error messages

    def take_failure(self) -> str | None:
        failure, self.last_failure = self.last_failure, None
        return failure

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        method = jsonrpc_method(request)
        # A POST whose JSON-RPC method cannot be read (a batch, a streamed body) might be a tool
        # call, so only POSTs known to be something else are retried.
        retriable = request.method != "POST" or (method is not None and method not in NEVER_RETRIED_METHODS)
        attempt = 0
        while True:
            try:
                response = await self._inner.handle_async_request(request)
            except (httpx2.ConnectError, httpx2.RemoteProtocolError) as exc:
                if not retriable or attempt >= self._policy.retries:
                    raise
                delay = self._policy.delay(attempt, {})
                attempt += 1
                if self._on_retry is not None:
                    self._on_retry(method or request.method, 0, attempt, delay)
                self.last_failure = f"{type(exc).__name__} for {method or request.method}"
                await asyncio.sleep(delay)
                continue
            if response.status_code >= 400:
                self.last_failure = f"HTTP {response.status_code} for {method or request.method}"
            if not retriable or attempt >= self._policy.retries or not is_transient_status(response.status_code):
                return response
            delay = self._policy.delay(attempt, response.headers)
            await response.aclose()
            attempt += 1
            if self._on_retry is not None:
                self._on_retry(method or request.method, response.status_code, attempt, delay)
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        await self._inner.aclose()
