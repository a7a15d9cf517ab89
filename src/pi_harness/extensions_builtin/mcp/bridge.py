"""MCP tools as extension tools: one ``ToolDefinition`` per server tool.

The definition keeps the server's JSON Schema for the parameters (made an ``object`` schema if
the server left that out) and its ``outputSchema``; ``execute`` calls the tool once, streams
progress notifications as partial results and maps the answer with ``results.to_tool_result``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions import AgentToolResult, ExtensionContext, ToolDefinition, ToolUpdateCallback
from pi_harness.extensions_builtin.mcp.results import to_tool_result

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import McpTool, ServerConnection


def input_schema(tool: McpTool) -> JsonObject:
    schema = dict(tool.input_schema)
    if schema.get("type") != "object":
        schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def tool_description(tool: McpTool, server: str) -> str:
    """The server's description as it wrote it (as Pi declares it), else the title, else a line of ours."""
    return tool.description.strip() or tool.title or f"The {tool.name} tool of the MCP server {server}."


def make_tool_definition(
    connection: ServerConnection,
    tool: McpTool,
    name: str,
    readable_resources: Callable[[], bool] = lambda: False,
) -> ToolDefinition:
    server = connection.name

    async def execute(
        tool_call_id: str,
        params: JsonObject,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
        ctx: ExtensionContext | None = None,
    ) -> AgentToolResult:
        def progress(value: float, total: float | None, message: str | None) -> None:
            if on_update is None:
                return
            amount = f"{value:g}/{total:g}" if total is not None else f"{value:g}"
            text = message or f"Progress {amount}"
            on_update(
                {
                    "content": [{"type": "text", "text": text}],
                    "details": {"server": server, "tool": tool.name, "progress": value, "total": total},
                }
            )

        raw = await connection.call_tool(tool.name, dict(params or {}), signal=signal, on_progress=progress)
        return to_tool_result(raw, server=server, tool=tool.name, readable_resources=readable_resources())

    return ToolDefinition(
        name=name,
        label=f"{server}/{tool.name}",
        description=tool_description(tool, server),
        parameters=input_schema(tool),
        execute=execute,
        output_schema=tool.output_schema,
    )


def unavailable_definition(definition: ToolDefinition, reason: str) -> ToolDefinition:
    """The same tool, answering with ``reason``: tools cannot be unregistered, so a tool the server
    withdrew (or that became hidden) stays registered but unreachable."""

    async def execute(
        _tool_call_id: str,
        _params: JsonObject,
        _signal: AbortSignal | None,
        _on_update: ToolUpdateCallback | None,
        _ctx: ExtensionContext | None = None,
    ) -> AgentToolResult:
        raise RuntimeError(reason)

    return replace(definition, execute=execute)
