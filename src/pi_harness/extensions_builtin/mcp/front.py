"""The ``builtin:mcp`` factory: the MCP client loads only once there is something for it to do.

Most sessions have no mcp.json and no extension that registers a server; for them the client
(``extension.py`` with its manager, tool set and bridge) would be imported and started only to
find nothing, before the first request of every run. The factory registers the same handlers
and ``/mcp`` command as the client, in the same order, but ``session_start`` first looks whether
any mcp.json exists (the global one, the project's whether trusted or not) or another extension
registered servers. If so, the client starts there as it always did. If not, the session is
*idle*: each handler does what the started client does with an empty configuration (the
``mcp_servers`` prompt section is removed, nothing else happens), and the client is started, on
the configuration it would have had at ``session_start``, the first time something needs it:
servers registered later (``mcp_servers_change``), or ``/mcp`` and its completions.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.coding.extensions import MCP_FILE, ExtensionAPI, project_dir
from pi_harness.extensions_builtin.mcp.options import McpOptions

if TYPE_CHECKING:
    from pi_harness.coding.extensions import ExtensionCommandContext, ExtensionContext, ExtensionEvent
    from pi_harness.extensions_builtin.mcp.extension import _McpState

COMMAND_DESCRIPTION = "MCP servers: status; sign in or out, reconnect, enable or disable, change exposure"
SERVERS_SECTION = "mcp_servers"  # prompt_section.MCP_SERVERS_SECTION, without importing it


@dataclass
class _Idle:
    """A ``session_start`` that found nothing to connect: what the client needs to start later."""

    ctx: ExtensionContext
    project_trusted: bool
    prompted: bool = False  # a prompt went out already (the client would not wait for servers again)


def create_mcp_extension(options: McpOptions | None = None) -> Callable[[ExtensionAPI], None]:
    opts = options or McpOptions()

    def extension(pi: ExtensionAPI) -> None:
        front = _Front(pi, opts)
        pi.on("session_start", front.on_session_start)
        pi.on("before_agent_start", front.on_before_agent_start)
        pi.on("session_shutdown", front.on_session_shutdown)
        pi.on("mcp_servers_change", front.on_servers_change)
        pi.register_command(
            "mcp", front.on_command, description=COMMAND_DESCRIPTION, get_argument_completions=front.complete
        )

    return extension


class _Front:
    """One extension instance: the client once needed, else what an empty one would do."""

    def __init__(self, pi: ExtensionAPI, options: McpOptions) -> None:
        self.pi = pi
        self.options = options
        self.client: _McpState | None = None
        self.idle: _Idle | None = None

    def _client(self) -> _McpState:
        """The client, started on the idle session's configuration when the session is idle."""
        if self.client is None:
            from pi_harness.extensions_builtin.mcp.config import McpConfig
            from pi_harness.extensions_builtin.mcp.extension import _McpState

            client = _McpState(self.pi, self.options)
            if self.idle is not None:
                # What load_mcp_config gave at session_start: no file was there.
                config = McpConfig()
                if self.idle.project_trusted:
                    config.project_file = project_dir(self.idle.ctx.cwd) / MCP_FILE
                client.start(config, self.idle.ctx, [])
                client.waited_first_prompt = self.idle.prompted
                self.idle = None
            self.client = client
            # Only a client has calls to wait for: without one, every tool call of the session
            # would go through the extension runner for nothing.
            self.pi.on("tool_call", self.on_tool_call)
        return self.client

    def _nothing_configured(self, cwd: str) -> bool:
        paths = (self.options.resolved_agent_dir() / MCP_FILE, project_dir(cwd) / MCP_FILE)
        return not any(os.path.exists(path) for path in paths) and not self.pi.get_mcp_servers()

    async def on_session_start(self, event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.client is None and self.idle is None and self._nothing_configured(ctx.cwd):
            self.idle = _Idle(ctx, self.options.is_project_trusted())
            return
        if self.idle is None:
            await self._client().on_session_start(event, ctx)

    async def on_before_agent_start(self, event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.idle is not None:
            self.idle.prompted = True
            sections = event.get("sections")
            if isinstance(sections, dict):
                sections.pop(SERVERS_SECTION, None)
            return
        if self.client is not None:
            await self.client.on_before_agent_start(event, ctx)

    async def on_session_shutdown(self, event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.client is not None:
            await self.client.on_session_shutdown(event, ctx)

    async def on_tool_call(self, event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.client is not None:
            await self.client.on_tool_call(event, ctx)

    async def on_servers_change(self, event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.client is not None or self.idle is not None:
            await self._client().on_servers_change(event, ctx)

    async def on_command(self, args: str, ctx: ExtensionCommandContext) -> None:
        await self._client().on_command(args, ctx)

    def complete(self, prefix: str) -> list[dict[str, str]] | None:
        return self._client().complete(prefix)
