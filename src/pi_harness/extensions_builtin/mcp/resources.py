"""The resource tools Pi 1.4.0 registers: ``list_mcp_resources``, ``list_mcp_resource_templates``
and ``read_mcp_resource``, each taking the ``server`` name, with Pi's parameters and JSON shapes.

Listings are JSON text (and the same object as ``structuredContent``)::

    {"server": "docs", "resources": [{"server": "docs", "uri": "...", "name": "..."}], "nextCursor": "..."}

With ``server`` one page is listed and ``cursor`` continues it; without, every page of every server
(servers that fail are named in ``errors``). MCP App resources (``ui://`` URIs, ``profile=mcp-app``
HTML) are left out, and so are ``_meta`` and icons. A read returns text as text, images as images
and other binary contents as a short note (``results.py``); ``structuredContent`` holds
``{server, uri, contents}``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.types import UserContent
from pi_harness.coding.extensions import AgentToolResult, ExtensionContext, ToolDefinition, ToolUpdateCallback
from pi_harness.extensions_builtin.mcp.output_limit import limit_content
from pi_harness.extensions_builtin.mcp.results import convert_blocks, limit_text

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection

LIST_RESOURCES = "list_mcp_resources"
LIST_TEMPLATES = "list_mcp_resource_templates"
READ_RESOURCE = "read_mcp_resource"
RESOURCE_TOOLS = (LIST_RESOURCES, LIST_TEMPLATES, READ_RESOURCE)

_APP_PROFILE = re.compile(r';\s*profile\s*=\s*"?mcp-app"?', re.IGNORECASE)

_LIST_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "server": {"type": "string", "description": "Which MCP server to list; leave out for all of them."},
        "cursor": {"type": "string", "description": "The nextCursor of the previous page of the same server."},
    },
    "additionalProperties": False,
}
_READ_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "server": {"type": "string", "description": "The server's name, as in the listing's server field."},
        "uri": {"type": "string", "description": "The URI of the resource, as listed."},
    },
    "required": ["server", "uri"],
    "additionalProperties": False,
}

Servers = Callable[[], Sequence["ServerConnection"]]
Execute = Callable[
    [str, JsonObject, AbortSignal | None, ToolUpdateCallback | None, ExtensionContext | None],
    Awaitable[AgentToolResult],
]


def _is_app(item: JsonObject) -> bool:
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return uri.startswith("ui://") or bool(_APP_PROFILE.search(str(item.get("mimeType") or "")))


def _listed(server: str, item: JsonObject) -> JsonObject:
    kept: JsonObject = {"server": server}
    kept.update({k: v for k, v in item.items() if k not in ("_meta", "icons")})
    return kept


def _argument(params: JsonObject, key: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value.strip() or None


def _find(servers: Servers, name: str) -> ServerConnection:
    available = list(servers())
    for connection in available:
        if connection.name == name:
            return connection
    names = ", ".join(c.name for c in available)
    raise ValueError(f'MCP server "{name}" has no resources' + (f". Servers with resources: {names}" if names else ""))


def _json_result(tool: str, server: str | None, payload: JsonObject) -> AgentToolResult:
    text, full_output = limit_text(dumps_str(payload))
    details: JsonObject = {"server": server or "", "tool": tool}
    if full_output:
        details["fullOutputPath"] = full_output
    return {"content": [{"type": "text", "text": text}], "details": details, "structuredContent": payload}


async def _list(servers: Servers, params: JsonObject, signal: AbortSignal | None, *, templates: bool) -> JsonObject:
    key = "resourceTemplates" if templates else "resources"
    name, cursor = _argument(params, "server"), _argument(params, "cursor")
    if name is not None:
        connection = _find(servers, name)
        items, next_cursor = await connection.resources_page(cursor, templates=templates, signal=signal)
        page: JsonObject = {"server": connection.name, key: [_listed(name, i) for i in items if not _is_app(i)]}
        if next_cursor is not None:
            page["nextCursor"] = next_cursor
        return page
    if cursor is not None:
        raise ValueError("cursor can only be used when a server is specified")
    listed: list[JsonValue] = []
    errors: list[JsonValue] = []
    for connection in sorted(servers(), key=lambda c: c.name):
        try:
            items = await connection.all_resources(templates=templates, signal=signal)
        except Exception as exc:
            from pi_harness.extensions_builtin.mcp.connection import describe_error

            errors.append({"server": connection.name, "error": describe_error(exc)})
            continue
        listed.extend(_listed(connection.name, i) for i in items if not _is_app(i))
    payload: JsonObject = {key: listed}
    if errors:
        payload["errors"] = errors
    return payload


def resource_tool_definitions(servers: Servers, ready: Callable[[], Awaitable[None]]) -> list[ToolDefinition]:
    """The three tools; ``servers`` returns, at call time, the connections they reach, after
    ``ready`` waited for the servers still connecting (the tools reach all of them, as in Pi)."""

    def lister(tool: str, templates: bool) -> Execute:
        async def execute(
            _id: str,
            params: JsonObject,
            signal: AbortSignal | None,
            _update: ToolUpdateCallback | None,
            _ctx: ExtensionContext | None = None,
        ) -> AgentToolResult:
            await ready()
            payload = await _list(servers, dict(params or {}), signal, templates=templates)
            return _json_result(tool, _argument(dict(params or {}), "server"), payload)

        return execute

    async def read(
        _id: str,
        params: JsonObject,
        signal: AbortSignal | None,
        _update: ToolUpdateCallback | None,
        _ctx: ExtensionContext | None = None,
    ) -> AgentToolResult:
        args = dict(params or {})
        await ready()
        name, uri = _argument(args, "server"), _argument(args, "uri")
        if name is None:
            raise ValueError("server must be provided")
        if uri is None:
            raise ValueError("uri must be provided")
        connection = _find(servers, name)
        contents = await connection.read_resource(uri, signal=signal)
        blocks: list[JsonObject] = []
        for item in contents:
            if len(contents) > 1:
                blocks.append({"type": "text", "text": f"{item.get('uri', '')}:"})
            blocks.append({"type": "resource", "resource": item})
        converted: list[UserContent] = convert_blocks(blocks) or [
            {"type": "text", "text": f"The resource {uri} has no contents."}
        ]
        content, full_output, _cut = limit_content(converted)
        kept: list[JsonValue] = [{k: v for k, v in item.items() if k != "_meta"} for item in contents]
        return {
            "content": content,
            "details": {"server": connection.name, "tool": READ_RESOURCE}
            | ({"fullOutputPath": full_output} if full_output else {}),
            "structuredContent": {"server": connection.name, "uri": uri, "contents": kept},
        }

    return [
        ToolDefinition(
            name=LIST_RESOURCES,
            label=LIST_RESOURCES,
            description=(
                "List the resources (files, records, schemas and other context) that connected MCP servers "
                "offer, as JSON. Read one with read_mcp_resource."
            ),
            parameters=_LIST_PARAMETERS,
            execute=lister(LIST_RESOURCES, False),
        ),
        ToolDefinition(
            name=LIST_TEMPLATES,
            label=LIST_TEMPLATES,
            description=(
                "List the URI templates of parameterised resources that connected MCP servers offer, as JSON. "
                "Fill in a template and read the URI with read_mcp_resource."
            ),
            parameters=_LIST_PARAMETERS,
            execute=lister(LIST_TEMPLATES, True),
        ),
        ToolDefinition(
            name=READ_RESOURCE,
            label=READ_RESOURCE,
            description="Read one resource of an MCP server, by the server's name and the resource's URI.",
            parameters=_READ_PARAMETERS,
            execute=read,
        ),
    ]
