"""``builtin:mcp``: MCP servers from mcp.json as tools.

Written against the public extension API only. The factory (``front.py``) registers the handlers
of ``_McpState`` (and starts this module only when there is something to connect);
``session_start`` reads the configuration and starts connecting in the background;
``before_agent_start`` makes the first prompt wait (10 s at most) for servers that have ``direct``
tools; ``session_shutdown`` disconnects every server and can run any number of times. Tools are
named ``mcp__<server>__<tool>`` (``names.py``) and kept in step with each server's tool list by
``tool_set.py``. ``/mcp`` reports the servers and reconnects, enables or disables one
(``slash_command.py``).

``codemode`` (the default) and ``deferred`` tools are registered inactive: ``codemode`` scripts
(``builtin:codemode``) call them, and a server with ``codemode`` tools switches the ``codemode``
tool on (``tool_set.py``); ``tool_search`` (``builtin:tool-search``) is activated for ``deferred``
tools at session start (``discovery.py``) and loads the ones it finds. A call that may reach MCP
tools (``tool_search``, or a ``codemode`` script naming them) first waits for the servers
(``on_tool_call``). Without a ``codemode`` or ``tool_search`` tool the session is warned once that
they cannot be called. The ``mcp_servers`` system prompt section Pi writes for such servers (their
description or the first line of their instructions) is added only when a tool of either name is
registered.

The host decides whether ``.pi/mcp.json`` may be read: pass ``project_trusted`` (a bool or a
callable asked at ``session_start``) in ``McpOptions``. Without it, only the global file is read.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionEvent,
)
from pi_harness.extensions_builtin.mcp.config import McpConfig, load_mcp_config
from pi_harness.extensions_builtin.mcp.discovery import activate_tool_search, active_reaching_tools, reached_servers
from pi_harness.extensions_builtin.mcp.log import LOG_FILE, McpLog
from pi_harness.extensions_builtin.mcp.manager import McpManager
from pi_harness.extensions_builtin.mcp.options import EXTENSION_NAME, McpOptions
from pi_harness.extensions_builtin.mcp.prompt_section import MCP_SERVERS_SECTION, REACHING_TOOLS, servers_section
from pi_harness.extensions_builtin.mcp.registered import apply_change, merge_registered
from pi_harness.extensions_builtin.mcp.tool_set import McpToolSet

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection

__all__ = ["EXTENSION_NAME", "McpOptions"]

CODEMODE_REACH = re.compile(r"mcp__|mcp_resource|\b(searchTools|describeNamespace|describeTool|ALL_TOOLS)\b")


class _McpState:
    """One extension instance (a fresh one after every reload or session replacement)."""

    def __init__(self, pi: ExtensionAPI, options: McpOptions) -> None:
        self.pi = pi
        self.options = options
        self.manager: McpManager | None = None
        self.config: McpConfig | None = None
        self.log = McpLog(options.resolved_agent_dir() / LOG_FILE)
        self.waited_first_prompt = False
        self.tools = McpToolSet(pi, self._connections, self.log.write, self._servers_ready)
        self._ctx: ExtensionContext | None = None
        self._startup_report: asyncio.Future[None] | None = None
        self._registered: set[str] = set()  # servers other extensions registered, now configured

    async def _servers_ready(self) -> None:
        if self.manager is not None:
            await self.manager.wait_all()

    def _connections(self) -> list[ServerConnection]:
        return list(self.manager.connections.values()) if self.manager is not None else []

    async def on_session_start(self, _event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if self.manager is not None:
            return
        config = load_mcp_config(
            self.options.resolved_agent_dir(), ctx.cwd, project_trusted=self.options.is_project_trusted()
        )
        self.start(config, ctx, self.pi.get_mcp_servers())

    def start(self, config: McpConfig, ctx: ExtensionContext, registered: list[dict[str, object]]) -> None:
        """Session start with this configuration and these servers of other extensions."""
        self._ctx = ctx
        self._registered = merge_registered(config, registered)
        self.config = config
        self.tools.auto_enable_codemode = config.auto_enable_codemode
        for problem in config.errors:
            self.log.write(None, f"config error: {problem}")
        for warning in config.warnings:
            self.log.write(None, f"config warning: {warning}")
        self.manager = McpManager(
            config,
            cwd=ctx.cwd,
            log=self.log,
            settings=self.options.connection_settings(),
            on_tools=self.tools.update,
        )
        activate_tool_search(self.pi, config)
        self._warn_unreachable(config)
        self.manager.start()
        # One report of everything that needs the user, once the startup connections settled.
        self._startup_report = asyncio.ensure_future(self._report_startup(self.manager))

    async def _report_startup(self, manager: McpManager) -> None:
        await manager.wait_all()
        lines = [f"config: {problem}" for problem in manager.config.errors]
        for status in manager.statuses():
            if status.status == "failed":
                first = (status.error or "unknown error").split("\n", 1)[0]
                lines.append(f"{status.name}: failed: {first}")
            elif status.status == "needs-auth":
                lines.append(f"{status.name}: needs sign-in")
        if lines:
            body = "\n".join(f"  {line}" for line in lines)
            self._notify(f"MCP servers need attention:\n{body}\nRun /mcp to fix.", "warning")

    def _reaching_tools(self) -> set[str]:
        try:
            return {str(t.get("name")) for t in self.pi.get_all_tools()} & REACHING_TOOLS
        except Exception:  # not bound to a session
            return set()

    def _warn_unreachable(self, config: McpConfig) -> None:
        indirect = [s.name for s in config.enabled if s.has_indirect_tools]
        if not indirect or active_reaching_tools(self.pi):
            return
        self.log.write(None, f"codemode/deferred tools registered inactive: {', '.join(indirect)}")
        self._notify(
            "MCP: tools with codemode or deferred exposure (the default is codemode) need an active codemode "
            "or tool_search tool, which this session does not have; they are registered but inactive. "
            f'Set "exposure": "direct" to declare them to the model ({", ".join(indirect)}).',
            "warning",
        )

    async def on_servers_change(self, event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        servers = event.get("servers")
        if self.manager is None or not isinstance(servers, list):
            return  # before session_start: it reads them
        listed = [s for s in servers if isinstance(s, dict)]
        self._registered = await apply_change(self.manager, listed, self._registered)

    async def on_before_agent_start(self, event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        if self.manager is None:
            return
        if not self.waited_first_prompt:
            self.waited_first_prompt = True
            pending = await self.manager.wait_for_direct_tools(self.options.first_prompt_wait_s)
            if pending:
                self.log.write(None, f"first prompt sent before these servers were ready: {', '.join(pending)}")
                self._notify("MCP servers are still connecting; their tools are added once they connect.", "info")
        await self._reconnect_signed_in()
        sections = event.get("sections")
        if isinstance(sections, dict):
            section = servers_section(self._connections()) if self._reaching_tools() else None
            if section:
                sections[MCP_SERVERS_SECTION] = section
            else:
                sections.pop(MCP_SERVERS_SECTION, None)

    async def _reconnect_signed_in(self) -> None:
        """Servers waiting for a sign-in reconnect once credentials were stored since, for example by
        ``pi mcp login`` run from the shell: the session uses them on its next turn."""
        if self.manager is None:
            return
        waiting = [c for c in self.manager.connections.values() if c.status == "needs-auth"]
        signed_in = [c for c in waiting if c.stored_tokens() != c.tokens_at_sign_in]
        if signed_in:
            self.log.write(None, f"reconnecting after a sign-in: {', '.join(c.name for c in signed_in)}")
            await asyncio.gather(*(c.reconnect() for c in signed_in), return_exceptions=True)

    async def on_tool_call(self, event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        """A call that may reach MCP tools waits for the servers it reaches (``reachesTools``): all of
        them for ``tool_search`` or a codemode script that searches, else the ones a script names.
        A ``codemode`` tool without ``reachesTools`` (an extension's) waits for all when its script
        mentions MCP tools or searches them."""
        if self.manager is None:
            return
        tool_name, data = event.get("toolName"), event.get("input")
        try:
            tools = self.pi.get_all_tools()
        except Exception:  # not bound to a session
            return
        names = list(self.manager.connections)
        reached = reached_servers(tools, tool_name, data, names)
        declares_reach = any(t.get("name") == tool_name and callable(t.get("reachesTools")) for t in tools)
        code = data.get("code") if tool_name == "codemode" and isinstance(data, dict) else None
        if not declares_reach and isinstance(code, str) and CODEMODE_REACH.search(code):
            reached = names
        if reached:
            await asyncio.gather(*(self.manager.connections[name].wait_settled() for name in reached))

    async def on_session_shutdown(self, _event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        if self._startup_report is not None:
            self._startup_report.cancel()
        if self.manager is not None:
            await self.manager.close()

    def complete(self, prefix: str) -> list[dict[str, str]] | None:
        from pi_harness.extensions_builtin.mcp.slash_command import completions

        return completions(prefix, list(self.config.servers) if self.config is not None else [])

    async def on_command(self, args: str, ctx: ExtensionCommandContext) -> None:
        if self.config is None or self.manager is None:
            ctx.ui.notify("MCP is not started yet.", "info")
            return
        from pi_harness.extensions_builtin.mcp.slash_command import manage, run_mcp_command

        def tools_changed(server: str, enabled: bool) -> None:
            if not enabled:
                self.tools.withdraw(server)
                return
            connection = self.manager.connections.get(server) if self.manager is not None else None
            if connection is not None and connection.status == "connected":
                self.tools.update(connection)  # registered again under the server's new exposure

        def notify(line: str) -> None:
            ctx.ui.notify(line, "info")

        config, manager, directory = self.config, self.manager, self.options.resolved_agent_dir()
        if not args.strip() and ctx.has_ui and ctx.mode == "tui":
            outcome = await manage(
                ctx.ui,
                config=config,
                manager=manager,
                agent_directory=directory,
                tools_changed=tools_changed,
                notify=notify,
                open_url=self.options.open_url,
            )
        else:
            outcome = await run_mcp_command(
                args,
                config=config,
                manager=manager,
                agent_directory=directory,
                tools_changed=tools_changed,
                notify=notify,
                open_url=self.options.open_url,
            )
        if outcome is not None:
            ctx.ui.notify(*outcome)

    def _notify(self, message: str, kind: str) -> None:
        try:
            if self._ctx is not None:
                self._ctx.ui.notify(message, kind)
        except Exception:
            pass
