"""``builtin:mcp``: MCP servers from mcp.json as tools.

Written against the public extension API only. The factory registers handlers and nothing else;
``session_start`` reads the configuration and starts connecting in the background;
``before_agent_start`` makes the first prompt wait (10 s at most) for servers that expose direct
tools; ``session_shutdown`` disconnects every server and can run any number of times. Tools are
named ``<server>__<tool>`` (see ``names.py``). A ``/mcp`` command shows the server table.

The host decides whether ``.pi/mcp.json`` may be read: pass ``project_trusted`` (a bool or a
callable asked at ``session_start``) in ``McpOptions``. Without it, only the global file is read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionEvent,
    agent_dir,
)
from pi_harness.extensions_builtin.mcp.config import McpConfig, load_mcp_config
from pi_harness.extensions_builtin.mcp.log import LOG_FILE, McpLog
from pi_harness.extensions_builtin.mcp.manager import McpManager, format_statuses
from pi_harness.extensions_builtin.mcp.names import tool_name
from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings, RetryPolicy

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection

EXTENSION_NAME = "builtin:mcp"
FIRST_PROMPT_WAIT_S = 10.0
REQUEST_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class McpOptions:
    agent_dir: Path | None = None  # default: $PI_CODING_AGENT_DIR or ~/.pi/agent
    project_trusted: bool | Callable[[], bool] = False
    first_prompt_wait_s: float = FIRST_PROMPT_WAIT_S
    request_timeout_s: float = REQUEST_TIMEOUT_S
    connect_timeout_s: float | None = None  # spawn + initialize + first tools/list; None = request timeout
    http_retries: int = 2
    retry_base_delay_s: float = 0.5

    def resolved_agent_dir(self) -> Path:
        return self.agent_dir if self.agent_dir is not None else agent_dir()

    def is_project_trusted(self) -> bool:
        value = self.project_trusted
        return bool(value() if callable(value) else value)

    def connection_settings(self) -> ConnectionSettings:
        return ConnectionSettings(
            request_timeout_s=self.request_timeout_s,
            connect_timeout_s=self.connect_timeout_s,
            retry=RetryPolicy(retries=self.http_retries, base_delay_s=self.retry_base_delay_s),
        )


def create_mcp_extension(options: McpOptions | None = None) -> Callable[[ExtensionAPI], None]:
    opts = options or McpOptions()

    def extension(pi: ExtensionAPI) -> None:
        state = _McpState(pi, opts)
        pi.on("session_start", state.on_session_start)
        pi.on("before_agent_start", state.on_before_agent_start)
        pi.on("session_shutdown", state.on_session_shutdown)
        pi.register_command("mcp", state.on_command, description="Show MCP servers, their status and tool counts")

    return extension


class _McpState:
    """One extension instance (a fresh one after every reload or session replacement)."""

    def __init__(self, pi: ExtensionAPI, options: McpOptions) -> None:
        self.pi = pi
        self.options = options
        self.manager: McpManager | None = None
        self.config: McpConfig | None = None
        self.log = McpLog(options.resolved_agent_dir() / LOG_FILE)
        self.waited_first_prompt = False
        self._taken: set[str] = set()
        self._ctx: ExtensionContext | None = None

    async def on_session_start(self, _event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.manager is not None:
            return
        self._ctx = ctx
        config = load_mcp_config(
            self.options.resolved_agent_dir(), ctx.cwd, project_trusted=self.options.is_project_trusted()
        )
        self.config = config
        for problem in config.errors:
            self.log.write(None, f"config error: {problem}")
            self._notify(f"MCP: {problem}", "warning")
        for warning in config.warnings:
            self.log.write(None, f"config warning: {warning}")
        self.manager = McpManager(
            config,
            cwd=ctx.cwd,
            log=self.log,
            settings=self.options.connection_settings(),
            on_connected=self._register_tools,
            on_failed=self._report_failure,
        )
        self.manager.start()

    async def on_before_agent_start(self, _event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        if self.waited_first_prompt or self.manager is None:
            return
        self.waited_first_prompt = True
        pending = await self.manager.wait_for_direct_tools(self.options.first_prompt_wait_s)
        if pending:
            self.log.write(None, f"first prompt sent before these servers were ready: {', '.join(pending)}")

    async def on_session_shutdown(self, _event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        if self.manager is not None:
            await self.manager.close()

    async def on_command(self, _args: str, ctx: ExtensionCommandContext) -> None:
        if self.config is None or self.manager is None:
            ctx.ui.notify("MCP is not started yet.", "info")
            return
        ctx.ui.notify(format_statuses(self.config, self.manager.statuses()), "info")

    def _register_tools(self, connection: ServerConnection) -> None:
        from pi_harness.extensions_builtin.mcp.bridge import make_tool_definition

        inactive: list[str] = []
        for tool in connection.tools:
            name = tool_name(connection.name, tool.name, self._taken)
            self._taken.add(name)
            self.pi.register_tool(make_tool_definition(connection, tool, name))
            if not connection.config.is_direct(tool.name):
                inactive.append(name)
        if inactive:
            try:
                self.pi.set_active_tools([n for n in self.pi.get_active_tools() if n not in set(inactive)])
            except Exception as exc:  # no session to switch tools on (e.g. during shutdown)
                self.log.write(connection.name, f"could not keep non-direct tools inactive: {exc}")

    def _report_failure(self, connection: ServerConnection) -> None:
        self._notify(f'MCP server "{connection.name}" is not available: {connection.error}', "warning")

    def _notify(self, message: str, kind: str) -> None:
        try:
            if self._ctx is not None:
                self._ctx.ui.notify(message, kind)
        except Exception:
            pass


mcp_extension = create_mcp_extension()
