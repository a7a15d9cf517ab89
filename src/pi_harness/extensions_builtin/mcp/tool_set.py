"""The tools MCP servers contribute to a session, kept in step with each server's tool list.

Every tool is registered as ``mcp__<server>__<tool>`` (``names.py``) with its exposure
(``exposure.py``) and the server's namespace (``mcp__<server>``, its description and instructions,
which ``tool_search`` ranks by): ``direct`` tools are activated on registration, ``codemode`` and
``deferred`` tools are registered inactive (a server with ``codemode`` tools switches the
``codemode`` tool on; ``tool_search`` activates the ones it finds, and they stay active when the
server's list changes), ``hidden`` tools are not registered. Tools cannot be unregistered, and the
first registration of a name is the one the session keeps, so each name is registered once with
an ``execute`` that runs the name's current definition: when a server withdraws a tool
(``notifications/tools/list_changed``) or is disabled, that definition answers that the tool is no
longer available, and the name leaves the active set.

The resource tools (``resources.py``) are registered once a server with resources connects, with
the widest exposure among the enabled, non-hidden servers that have resources.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionContext,
    ToolDefinition,
    ToolNamespace,
    ToolUpdateCallback,
)
from pi_harness.extensions_builtin.mcp.bridge import make_tool_definition, unavailable_definition
from pi_harness.extensions_builtin.mcp.exposure import Exposure, widest
from pi_harness.extensions_builtin.mcp.names import names_for_server, namespace
from pi_harness.extensions_builtin.mcp.resources import resource_tool_definitions

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection
CODEMODE_TOOL = "codemode"


class McpToolSet:
    def __init__(
        self,
        pi: ExtensionAPI,
        connections: Callable[[], list[ServerConnection]],
        log: Callable[[str | None, str], None],
        ready: Callable[[], Awaitable[None]],
    ) -> None:
        self._pi = pi
        self._connections = connections
        self._ready = ready
        self._log = log
        self.owners: dict[str, str] = {}  # model-facing name -> "<server>\0<tool>"
        self.server_tools: dict[str, set[str]] = {}  # server -> names it offers now
        self._definitions: dict[str, ToolDefinition] = {}  # the current definition of each name
        self.resource_exposure: Exposure | None = None
        self.auto_enable_codemode = True  # mcp.json's ``autoEnableCodemode``

    def update(self, connection: ServerConnection) -> None:
        """Register (again) the tools ``connection`` offers now, and withdraw the ones it dropped."""
        server = connection.name
        config = connection.config
        names = names_for_server(server, [tool.name for tool in connection.tools], self.owners)
        previous = self.server_tools.get(server, set())
        current: set[str] = set()
        direct: list[str] = []
        group = server_namespace(connection)
        codemode = False
        for tool in connection.tools:
            name = names[tool.name]
            exposure = config.exposure_of(tool.name)
            if exposure == "hidden":
                continue
            definition = make_tool_definition(connection, tool, name, lambda: self._reads_resources(server))
            self._register(replace(definition, exposure=exposure, namespace=group))
            current.add(name)
            if exposure == "direct":
                direct.append(name)
            codemode = codemode or exposure == "codemode"
        withdrawn = {name for name in previous - current if name in self._definitions}
        for name in withdrawn:
            reason = f'MCP tool "{name}" is no longer available from the server "{server}".'
            self._definitions[name] = unavailable_definition(self._definitions[name], reason)
        self.server_tools[server] = current
        # Indirect tools are not activated on registration; the ones tool_search loaded stay active.
        self._set_active(add=[n for n in direct if n not in previous], remove=withdrawn)
        if codemode and self.auto_enable_codemode:
            self._activate_codemode()
        self.sync_resource_tools()

    def withdraw(self, server: str) -> None:
        """The server went away (disabled): its tools answer that they are unavailable."""
        names = self.server_tools.pop(server, set())
        for name in names:
            reason = f'The MCP server "{server}" is disabled.'
            self._definitions[name] = unavailable_definition(self._definitions[name], reason)
        self._set_active(add=[], remove=names)
        self.sync_resource_tools()

    def _register(self, definition: ToolDefinition) -> None:
        name = definition.name
        known = name in self._definitions
        self._definitions[name] = definition
        if known:
            return

        async def execute(
            tool_call_id: str,
            params: JsonObject,
            signal: AbortSignal | None,
            on_update: ToolUpdateCallback | None,
            ctx: ExtensionContext | None = None,
        ) -> object:
            return await _call(self._definitions[name], tool_call_id, params, signal, on_update, ctx)

        self._pi.register_tool(replace(definition, execute=execute))

    def _reads_resources(self, server: str) -> bool:
        return any(c.name == server for c in self._resource_servers())

    def _resource_servers(self) -> list[ServerConnection]:
        return [
            c
            for c in self._connections()
            if c.has_resources and c.status == "connected" and c.config.enabled and c.config.exposure != "hidden"
        ]

    def sync_resource_tools(self) -> None:
        exposure = widest({c.config.exposure for c in self._resource_servers()})
        if exposure == self.resource_exposure or (self.resource_exposure is None and exposure == "hidden"):
            return
        first = self.resource_exposure is None
        self.resource_exposure = exposure
        definitions = resource_tool_definitions(self._resource_servers, self._ready)
        names = [d.name for d in definitions]
        if first:
            for definition in definitions:
                self._pi.register_tool(replace(definition, exposure=exposure))
        if exposure == "direct":
            self._set_active(add=names, remove=set())
        else:
            self._set_active(add=[], remove=set(names))

    def _activate_codemode(self) -> None:
        """As Pi: a server with ``codemode`` tools turns the ``codemode`` tool on, when one is registered."""
        try:
            registered = {str(t.get("name")) for t in self._pi.get_all_tools()}
        except Exception:  # not bound to a session
            return
        if CODEMODE_TOOL in registered:
            self._set_active(add=[CODEMODE_TOOL], remove=set())

    def _set_active(self, *, add: list[str], remove: set[str]) -> None:
        if not add and not remove:
            return
        try:
            active = [n for n in self._pi.get_active_tools() if n not in remove]
            active.extend(n for n in add if n not in active)
            self._pi.set_active_tools(active)
        except Exception as exc:  # no session to switch tools on (e.g. during shutdown)
            self._log(None, f"could not update the active MCP tools: {exc}")


def server_namespace(connection: ServerConnection) -> ToolNamespace:
    """``mcp__<server>`` (also found as ``<server>``) with its description and instructions."""
    description = (connection.config.description or "").strip() or None
    return ToolNamespace(
        namespace(connection.name),
        aliases=(connection.name,),
        description=description,
        instructions=connection.instructions,
    )


async def _call(
    definition: ToolDefinition,
    tool_call_id: str,
    params: JsonObject,
    signal: AbortSignal | None,
    on_update: ToolUpdateCallback | None,
    ctx: ExtensionContext | None,
) -> object:
    result = definition.execute(tool_call_id, params, signal, on_update, ctx)
    return await result if inspect.isawaitable(result) else result
