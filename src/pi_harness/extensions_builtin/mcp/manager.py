"""All MCP connections of one session: start, readiness for the first prompt, status, shutdown.

``start`` only creates tasks, so ``session_start`` returns at once. ``wait_for_direct_tools`` is the
readiness promise the first prompt awaits (capped by the caller): it waits only for servers whose
tools are meant to be active. ``close`` is idempotent and concurrent calls share one shutdown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pi_harness.extensions_builtin.mcp.config import McpConfig, McpServerConfig
from pi_harness.extensions_builtin.mcp.log import McpLog, SdkLogCapture
from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection
    from pi_harness.extensions_builtin.mcp.oauth import BrowserStep


@dataclass(frozen=True)
class ServerStatus:
    name: str
    transport: str
    status: str  # "disabled" | "pending" | "connecting" | "connected" | "failed" | "needs-auth" | "closed"
    tool_count: int
    error: str | None
    source: str


class McpManager:
    def __init__(
        self,
        config: McpConfig,
        *,
        cwd: str,
        log: McpLog,
        settings: ConnectionSettings,
        on_tools: Callable[[ServerConnection], None] | None = None,
        on_failed: Callable[[ServerConnection], None] | None = None,
    ) -> None:
        self.config = config
        self.connections: dict[str, ServerConnection] = {}
        self._cwd = cwd
        self._log = log
        self._settings = settings
        self._on_tools = on_tools
        self._on_failed = on_failed
        self._sdk_log = SdkLogCapture(log)
        self._shutdown: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start connecting every enabled server in the background (imports the SDK if needed)."""
        if self._shutdown is not None or self.connections or not self.config.enabled:
            return

        self._sdk_log.open()
        for server in self.config.enabled:
            connection = self._connection(server)
            self.connections[server.name] = connection
            connection.start()

    async def wait_for_direct_tools(self, timeout: float) -> list[str]:
        """Wait (at most ``timeout`` s) for servers that expose direct tools; returns those still pending."""
        waiting = [c for c in self.connections.values() if c.config.exposes_direct_tools]
        await _wait_settled(waiting, timeout)
        return [c.name for c in waiting if c.status in ("pending", "connecting")]

    def _connection(self, server: McpServerConfig) -> ServerConnection:
        from pi_harness.extensions_builtin.mcp.connection import ServerConnection

        return ServerConnection(
            server,
            cwd=self._cwd,
            log=self._log,
            settings=self._settings,
            on_tools=self._on_tools,
            on_failed=self._on_failed,
        )

    def sign_in_connection(self, server: McpServerConfig, browser: BrowserStep) -> ServerConnection:
        """A connection of its own for a sign-in: it may run the browser step, and registers no tools."""
        from pi_harness.extensions_builtin.mcp.connection import ServerConnection

        return ServerConnection(server, cwd=self._cwd, log=self._log, settings=self._settings, browser=browser)

    async def set_enabled(self, name: str, enabled: bool) -> None:
        """Connect or disconnect ``name`` in this session (the caller saves the change)."""
        server = replace(self.config.servers[name], enabled=enabled)
        self.config.servers[name] = server
        connection = self.connections.pop(name, None)
        if connection is not None:
            await connection.close()
        if enabled:
            self._sdk_log.open()
            connection = self._connection(server)
            self.connections[name] = connection
            connection.start()
            await connection.wait_settled()

    async def wait_all(self, timeout: float | None = None) -> None:
        await _wait_settled(list(self.connections.values()), timeout)

    async def close(self) -> None:
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._close_all())
        await asyncio.shield(self._shutdown)

    async def _close_all(self) -> None:
        try:
            await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)
        finally:
            self._sdk_log.close()

    def statuses(self) -> list[ServerStatus]:
        out: list[ServerStatus] = []
        for server in self.config.servers.values():
            connection = self.connections.get(server.name)
            if connection is None:
                status = "disabled" if server.disabled else "pending"
                out.append(ServerStatus(server.name, server.transport, status, 0, None, server.source))
                continue
            out.append(
                ServerStatus(
                    server.name,
                    server.transport,
                    connection.status,
                    len(connection.tools),
                    connection.error,
                    server.source,
                )
            )
        return out


async def _wait_settled(connections: list[ServerConnection], timeout: float | None) -> None:
    if not connections:
        return
    waiters = [asyncio.ensure_future(c.wait_settled()) for c in connections]
    try:
        await asyncio.wait(waiters, timeout=timeout)
    finally:
        for waiter in waiters:
            waiter.cancel()


def format_statuses(config: McpConfig, statuses: list[ServerStatus], agent_directory: Path) -> str:
    """The ``/mcp`` report outside the TUI, in Pi's shape: ``<name>: <state>[, N tools] (<exposure>)``."""
    lines: list[str] = []
    if not config.servers and not config.errors:
        lines.append(f"No MCP servers configured. Add them to {agent_directory / 'mcp.json'} or .pi/mcp.json.")
    for status in statuses:
        server = config.servers[status.name]
        if status.status == "needs-auth":
            lines.append(f"{status.name}: needs sign-in, run /mcp login {status.name} ({server.exposure})")
            continue
        state = {"pending": "starting", "failed": "failed", "closed": "closed"}.get(status.status, status.status)
        if status.status == "failed" and status.error == "Connection closed":
            state = "disconnected, reconnects on next call"
        tools = f", {status.tool_count} tools" if status.status == "connected" else ""
        lines.append(f"{status.name}: {state}{tools} ({server.exposure})")
        if status.error and status.status != "connected":
            lines.append("    " + status.error.replace("\n", "\n    "))
    lines.extend(f"config error: {error}" for error in config.errors)
    lines.extend(
        f"{path} was not loaded: the project is not trusted (trust it when pi asks, or use --approve)"
        for path in config.untrusted_files
    )
    return "\n".join(lines)
