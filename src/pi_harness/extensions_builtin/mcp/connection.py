"""One MCP server connection, built on the official ``mcp`` SDK (imported only from here).

The SDK's sessions and transports are anyio task groups bound to the task that entered them, so
every connection runs in a task of its own: it spawns the server (stdio) or opens the HTTP
client, initialises, lists the tools, reports itself connected and then waits until ``close()``.
Tool calls from other tasks go through the session's request streams.

Every request has the server's ``timeout`` (seconds, 60 by default), which a progress
notification resets. Aborting a tool call cancels the request, and the SDK then tells the server
with ``notifications/cancelled``. Tool calls are never retried. The session's working directory is
offered as the one root (``roots/list``); ``notifications/tools/list_changed`` lists the tools
again and hands them to ``on_tools``. ``env`` and ``headers`` values are resolved here, at connect
time, so a missing variable fails this server alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar, cast

import anyio
import httpx2
from pydantic import BaseModel

from pi_harness.optional_deps import missing_dependency

try:
    from mcp import types as mcp_types
    from mcp.client.session import ClientRequestContext, ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.dispatcher import ProgressFnT as RequestProgress
    from mcp.shared.exceptions import MCPError
except ModuleNotFoundError as error:  # a base dependency, but installs can be partial
    raise missing_dependency(error, "mcp", "MCP support", extra="mcp") from None

from pi_harness.ai.abort import AbortError, AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions import HARNESS_VERSION
from pi_harness.extensions_builtin.mcp.config import McpServerConfig
from pi_harness.extensions_builtin.mcp.http_retry import RetryingTransport
from pi_harness.extensions_builtin.mcp.log import McpLog
from pi_harness.extensions_builtin.mcp.oauth import BrowserStep, create_auth, needs_sign_in
from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings
from pi_harness.extensions_builtin.mcp.stderr import StderrRelay
from pi_harness.extensions_builtin.mcp.values import UnresolvedValue, resolve_map

ConnectionStatus = Literal["pending", "connecting", "connected", "failed", "needs-auth", "closed"]
ProgressHandler = Callable[[float, float | None, str | None], None]
T = TypeVar("T")

CONNECTION_CLOSED = -32000
METHOD_NOT_FOUND = -32601
MAX_PAGES = 100


class McpRequestTimeout(Exception):
    pass


class McpNotConnected(Exception):
    pass


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    # JSON Schemas as the server sent them (the SDK parsed them from JSON).
    input_schema: JsonObject
    output_schema: JsonObject | None = None
    title: str | None = None


def describe_error(exc: BaseException) -> str:
    """A one-line message for an exception (the first leaf of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    if isinstance(exc, httpx2.ConnectError):
        return f"cannot connect: {exc}"
    if isinstance(exc, UnresolvedValue):
        return str(exc)
    if isinstance(exc, MCPError):
        return "Connection closed" if exc.code == CONNECTION_CLOSED else exc.message
    return str(exc) or type(exc).__name__


class ServerConnection:
    def __init__(
        self,
        config: McpServerConfig,
        *,
        cwd: str,
        log: McpLog,
        settings: ConnectionSettings,
        on_tools: Callable[[ServerConnection], None] | None = None,
        on_failed: Callable[[ServerConnection], None] | None = None,
        browser: BrowserStep | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.status: ConnectionStatus = "pending"
        self.error: str | None = None
        self.tools: list[McpTool] = []
        self.server_label: str | None = None
        self.instructions: str | None = None
        self.has_resources = False
        self._cwd = cwd
        self._log = log
        self._settings = settings
        self._on_tools = on_tools
        self._on_failed = on_failed
        self._browser = browser  # only a sign-in passes one: connections never open a browser
        self.tokens_at_sign_in: object = None  # the stored tokens when the server asked for a sign-in
        self._http_transport: RetryingTransport | None = None
        self._session: ClientSession | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    @property
    def timeout_s(self) -> float:
        return self.config.timeout_s

    @property
    def connect_timeout_s(self) -> float:
        """Spawning and initialising may take longer than one request: a short per-server
        ``timeout`` never shortens it below the connect allowance, when one is set."""
        return max(self._settings.connect_timeout_s or 0.0, self.config.timeout_s)

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None and not self._closing:
            self.status = "connecting"
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.name}")

    async def wait_settled(self, timeout: float | None = None) -> bool:
        """Wait until connected or failed; False when ``timeout`` ran out first."""
        if self._settled.is_set():
            return True
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        """Disconnect and stop the server; safe to call any number of times."""
        self._closing = True
        self._stop.set()
        task = self._task
        if task is None:
            self.status = "closed"
            self._settled.set()
            return
        if self.status != "connected" and not task.done():
            task.cancel()  # still connecting: the transports clean up under cancellation
        try:
            # The SDK bounds its own stdio shutdown (stdin close, SIGTERM, SIGKILL) to a few seconds.
            await asyncio.wait_for(asyncio.shield(task), 15)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        except (asyncio.CancelledError, Exception):
            if not task.done():
                raise
        self.status = "closed"

    async def reconnect(self) -> None:
        """Disconnect (if connected) and connect again; returns once connected or failed."""
        await self.close()
        self._closing = False
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        self._task = None
        self._session = None
        self.error = None
        self.status = "pending"
        self.start()
        await self.wait_settled()

    @property
    def dropped(self) -> bool:
        """The server went away under a connected session: the next call reconnects (as in Pi)."""
        return self.status == "failed" and self.error == "Connection closed" and not self._closing

    async def _session_for_call(self) -> ClientSession:
        if self.dropped:
            self._log.write(self.name, "reconnecting for a call")
            await self.reconnect()
        return self._require_session()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        self._log.write(self.name, f"connecting ({self._describe_target()})")
        relay: StderrRelay | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                if self.config.transport == "stdio":
                    params = self._stdio_params()
                    relay = StderrRelay(self._log, self.name)
                    read, write = await stack.enter_async_context(stdio_client(params, relay.errlog))
                    relay.spawned()
                else:
                    headers = resolve_map(self.config.headers, f'MCP server "{self.name}"', "header")
                    client = await stack.enter_async_context(self._http_client(headers, self._auth()))
                    assert self.config.url is not None
                    read, write = await stack.enter_async_context(
                        streamable_http_client(self.config.url, http_client=client)
                    )
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        logging_callback=self._on_server_log,
                        list_roots_callback=self._list_roots,
                        message_handler=self._on_message,
                        client_info=mcp_types.Implementation(name="pi-harness", version=HARNESS_VERSION),
                    )
                )
                init = await self._bounded(lambda _progress: session.initialize(), timeout=self.connect_timeout_s)
                self.server_label = f"{init.server_info.name} {init.server_info.version}".strip()
                self.instructions = (init.instructions or "").strip() or None
                capabilities = init.capabilities
                self.has_resources = capabilities.resources is not None
                # Servers without the tools capability (resources or prompts only) do not answer tools/list.
                self.tools = await self._list_tools(session) if capabilities.tools is not None else []
                self._session = session
                self.status = "connected"
                elapsed = int((loop.time() - started) * 1000)
                self._log.write(self.name, f"connected to {self.server_label}: {len(self.tools)} tools ({elapsed} ms)")
                self._settled.set()
                self._hand_over_tools()
                await self._stop.wait()
                self._session = None
                self._log.write(self.name, "disconnecting")
        except asyncio.CancelledError:
            self._fail("cancelled")
            raise
        except Exception as exc:
            if self.config.uses_oauth and needs_sign_in(exc) and not self._closing:
                self.status = "needs-auth"
                self.error = None
                self.tokens_at_sign_in = self.stored_tokens()
                self._log.write(self.name, "needs sign-in")
            else:
                self._fail(self._describe(exc))
            if self._on_failed is not None and not self._closing:
                try:
                    self._on_failed(self)
                except Exception:
                    pass
        finally:
            self._session = None
            if relay is not None:
                await relay.close()
            if self._closing:
                self.status = "closed"
                self._log.write(self.name, "closed")
            self._settled.set()

    def _hand_over_tools(self) -> None:
        if self._on_tools is not None:
            try:
                self._on_tools(self)
            except Exception as exc:
                self._log.write(self.name, f"registering tools failed: {describe_error(exc)}")

    async def _list_roots(self, context: ClientRequestContext) -> mcp_types.ListRootsResult:
        root = Path(self._cwd)
        entry = mcp_types.Root.model_validate({"uri": root.as_uri(), "name": root.name})
        return mcp_types.ListRootsResult(roots=[entry])

    async def _on_message(self, message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            # Not awaited here: the handler runs on the session's read loop, which must keep going
            # for the tools/list answer to arrive.
            asyncio.get_running_loop().create_task(self._refresh_tools())

    async def _refresh_tools(self) -> None:
        session = self._session
        if session is None or self._closing:
            return
        try:
            tools = await self._list_tools(session)
        except Exception as exc:
            self._log.write(self.name, f"failed to refresh tools: {describe_error(exc)}")
            return
        if self._session is not session or self._closing:
            return
        self.tools = tools
        self._log.write(self.name, f"tool list changed: {len(tools)} tools")
        self._hand_over_tools()

    def _fail(self, message: str) -> None:
        if self._closing:
            return  # an ordinary shutdown: ``_run`` marks the connection closed
        self.error = message
        self.status = "failed"
        self._log.write(self.name, f"failed: {message}")

    # -- transports ------------------------------------------------------------------------------

    def _describe_target(self) -> str:
        if self.config.transport == "stdio":
            return " ".join([self.config.command or "", *self.config.args]).strip()
        return f"streamable HTTP {self.config.url}"

    def _stdio_params(self) -> StdioServerParameters:
        assert self.config.command is not None
        cwd = os.path.join(self._cwd, self.config.cwd) if self.config.cwd else self._cwd
        env = resolve_map(self.config.env, f'MCP server "{self.name}"', "env")
        return StdioServerParameters(command=self.config.command, args=list(self.config.args), env=env or None, cwd=cwd)

    def stored_tokens(self) -> object:
        """The tokens ``mcp-auth.json`` holds for this server now (a sign-in elsewhere changes them)."""
        if self._settings.auth_dir is None or self.config.url is None:
            return None
        from pi_harness.extensions_builtin.mcp.auth_store import McpAuthFile

        try:
            return McpAuthFile(self._settings.auth_dir).tokens(self.name, self.config.url)
        except (OSError, ValueError):
            return None

    def _auth(self) -> httpx2.Auth | None:
        if not self.config.uses_oauth or self._settings.auth_dir is None:
            return None
        return create_auth(self.config, self._settings.auth_dir, self._browser)

    def _http_client(self, headers: dict[str, str], auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
        def on_retry(method: str, status: int, attempt: int, delay: float) -> None:
            what = f"HTTP {status}" if status else "network error"
            self._log.write(self.name, f"{what} for {method}; retry {attempt} in {delay:.2f} s")

        transport = RetryingTransport(httpx2.AsyncHTTPTransport(), self._settings.retry, on_retry)
        self._http_transport = transport
        return httpx2.AsyncClient(
            headers=headers,
            auth=auth,
            timeout=httpx2.Timeout(30.0, read=300.0),
            transport=transport,
        )

    async def _on_server_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        source = f" {params.logger}" if params.logger else ""
        self._log.write(self.name, f"log {params.level}{source}: {params.data}")

    def _describe(self, exc: BaseException) -> str:
        """``describe_error`` plus the HTTP status behind the SDK's generic HTTP error message."""
        message = describe_error(exc)
        failure = self._http_transport.take_failure() if self._http_transport is not None else None
        return f"{message} ({failure})" if failure else message

    # -- requests --------------------------------------------------------------------------------

    async def _bounded(
        self,
        request: Callable[[RequestProgress | None], Awaitable[T]],
        *,
        signal: AbortSignal | None = None,
        on_progress: ProgressHandler | None = None,
        timeout: float | None = None,
    ) -> T:
        """Run one request under the per-request timeout; progress pushes the deadline back.

        ``request`` starts the request with the progress callback to hand the SDK (None when
        the caller does not follow progress)."""
        timeout = timeout or self.timeout_s
        aborted = False
        result: T | None = None
        finished = False
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + timeout

            def abort(_reason: object) -> None:
                nonlocal aborted
                aborted = True
                scope.cancel()

            async def progress(progress: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + timeout
                if on_progress is not None:
                    on_progress(progress, total, message)

            if signal is not None:
                signal.add_listener(abort)
            try:
                result = await request(progress if on_progress is not None else None)
                finished = True
            finally:
                if signal is not None:
                    signal.remove_listener(abort)
        if not finished:
            if aborted:
                raise AbortError()
            raise McpRequestTimeout(f"MCP request to {self.name} timed out after {_seconds(timeout)} without progress")
        return cast(T, result)  # finished: ``result`` holds what the request returned

    async def _list_tools(self, session: ClientSession) -> list[McpTool]:
        async def list_page(params: mcp_types.PaginatedRequestParams | None) -> mcp_types.ListToolsResult:
            return await self._bounded(
                lambda _progress: session.list_tools(params=params), timeout=self.connect_timeout_s
            )

        tools: list[McpTool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await list_page(mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools.extend(_tool_info(tool) for tool in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, object],
        *,
        signal: AbortSignal | None = None,
        on_progress: ProgressHandler | None = None,
    ) -> dict[str, object]:
        """Call a tool once (never retried); returns the result as a camelCase JSON dict."""
        session = await self._session_for_call()
        try:
            result = await self._bounded(
                lambda progress: session.call_tool(name, arguments, progress_callback=progress),
                signal=signal,
                on_progress=on_progress or _ignore_progress,
            )
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                self.status = "failed"
                self.error = "Connection closed"
                self._log.write(self.name, "connection closed")
            raise RuntimeError(f'MCP server "{self.name}" returned an error for {name}: {self._describe(exc)}') from exc
        dumped: dict[str, object] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    def _require_session(self) -> ClientSession:
        session = self._session
        if session is None or self.status != "connected":
            reason = f": {self.error}" if self.error else f" (status: {self.status})"
            raise McpNotConnected(f'MCP server "{self.name}" is not connected{reason}')
        return session

    # -- resources (read-only: the HTTP transport may retry them) ----------------------------------

    async def resources_page(
        self, cursor: str | None, *, templates: bool = False, signal: AbortSignal | None = None
    ) -> tuple[list[JsonObject], str | None]:
        """One page of ``resources/list`` (or ``resources/templates/list``) as JSON dicts."""
        session = await self._session_for_call()
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        if templates:
            try:
                listed = await self._bounded(lambda _p: session.list_resource_templates(params=params), signal=signal)
            except MCPError as exc:
                if exc.code == METHOD_NOT_FOUND:  # no templates at all
                    return [], None
                raise
            return [_dump(item) for item in listed.resource_templates], listed.next_cursor
        page = await self._bounded(lambda _p: session.list_resources(params=params), signal=signal)
        return [_dump(item) for item in page.resources], page.next_cursor

    async def all_resources(self, *, templates: bool = False, signal: AbortSignal | None = None) -> list[JsonObject]:
        items: list[JsonObject] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page, cursor = await self.resources_page(cursor, templates=templates, signal=signal)
            items.extend(page)
            if not cursor:
                break
        return items

    async def read_resource(self, uri: str, *, signal: AbortSignal | None = None) -> list[JsonObject]:
        """The ``contents`` of ``resources/read`` as JSON dicts."""
        session = await self._session_for_call()
        result = await self._bounded(lambda _p: session.read_resource(uri), signal=signal)
        return [_dump(item) for item in result.contents]


def _dump(model: BaseModel) -> JsonObject:
    dumped: JsonObject = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def _ignore_progress(_value: float, _total: float | None, _message: str | None) -> None:
    return None


def _tool_info(tool: mcp_types.Tool) -> McpTool:
    return McpTool(
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema or {}),
        output_schema=dict(tool.output_schema) if tool.output_schema else None,
        title=tool.title or (tool.annotations.title if tool.annotations else None),
    )


def _seconds(value: float) -> str:
    return f"{value:g} s"
