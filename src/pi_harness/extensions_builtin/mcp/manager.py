"""All MCP connections of one session: start, readiness for the first prompt, status, shutdown.

``start`` only creates tasks, so ``session_start`` returns at once. ``wait_for_direct_tools`` is the
readiness promise the first prompt awaits (capped by the caller): it waits only for servers whose
tools are meant to be active. ``close`` is idempotent and concurrent calls share one shutdown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.extensions_builtin.mcp.config import McpConfig
from pi_harness.extensions_builtin.mcp.log import McpLog, SdkLogCapture
from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection


@dataclass(frozen=True)
class ServerStatus:
    name: str
    transport: str
    status: str  # "disabled" | "pending" | "connecting" | "connected" | "failed" | "closed"
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
        from pi_harness.extensions_builtin.mcp.connection import ServerConnection

        self._sdk_log.open()
        for server in self.config.enabled:
            connection = ServerConnection(
                server,
                cwd=self._cwd,
                log=self._log,
                settings=self._settings,
                on_tools=self._on_tools,
                on_failed=self._on_failed,
            )
            self.connections[server.name] = connection
            connection.start()

    async def wait_for_direct_tools(self, timeout: float) -> list[str]:
        """Wait (at most ``timeout`` s) for servers that expose direct tools; returns those still pending."""
        waiting = [c for c in self.connections.values() if c.config.exposes_direct_tools]
        await _wait_settled(waiting, timeout)
        return [c.name for c in waiting if c.status in ("pending", "connecting")]

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


def format_statuses(config: McpConfig, statuses: list[ServerStatus]) -> str:
    """The server table shared by ``pi mcp list`` and the ``/mcp`` command."""
    lines: list[str] = []
    skipped = [
        f"{path} was not loaded: the project is not trusted (trust it when pi asks, or use --approve)"
        for path in config.untrusted_files
    ]
    if not config.servers and not config.errors:
        return "\n".join(["No MCP servers configured.", *skipped])
    if statuses:
        width = max(len(s.name) for s in statuses)
        for s in statuses:
            mark = {"connected": "✓", "disabled": "-"}.get(s.status, "✗")
            detail = f"{s.tool_count} tool{'s' if s.tool_count != 1 else ''}" if s.status == "connected" else ""
            if s.error:
                detail = s.error
            lines.append(f"{mark} {s.name.ljust(width)}  {s.transport:<5}  {s.status:<10}  {detail}".rstrip())
    for error in config.errors:
        lines.append(f"error: {error}")
    for warning in config.warnings:
        lines.append(f"warning: {warning}")
    lines.extend(skipped)
    return "\n".join(lines)
