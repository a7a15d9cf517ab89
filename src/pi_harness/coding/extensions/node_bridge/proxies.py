"""Python stand-ins for what a JavaScript extension registers, added through its ``pi``.

Each ``reg`` message becomes the same registration a Python extension would make, so the
runner's combination and failure rules apply unchanged: a handler's error (raised here as
``NodeExtensionError``) is reported, or blocks for ``tool_call``/``user_bash``; a tool's error
becomes an ``isError`` result, as does the sidecar dying while the tool runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from pi_harness.agent.types import AgentToolResult, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent
from pi_harness.coding.extensions.node_bridge.protocol import (
    SIDECAR_DIED,
    Bridge,
    BridgedExtension,
    Message,
    SidecarDied,
    as_tool_result,
)
from pi_harness.coding.extensions.types import ToolDefinition


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def register(bridge: Bridge, record: BridgedExtension, message: Message) -> None:
    kind = str(message.get("kind"))
    name = str(message.get("name") or message.get("hid") or message.get("key") or "")
    key = (kind, name)
    if key in record.registered and kind not in ("provider", "unregisterProvider"):
        return  # a restarted sidecar registering again what we already have
    record.registered.add(key)
    api = record.api
    if kind == "handler":
        event = str(message.get("event"))
        try:
            api.on(event, _handler(bridge, record, message.get("hid")))
        except ValueError:
            bridge.notice(f"{record.path}: the event {event!r} is not emitted by pi-harness; its handler never runs")
    elif kind == "tool":
        api.register_tool(_tool(bridge, record, message))
    elif kind == "command":
        api.register_command(name, _command(bridge, record, name), description=_text(message.get("description")))
    elif kind == "shortcut":
        api.register_shortcut(name, _shortcut(bridge, record, name), description=_text(message.get("description")))
    elif kind == "flag":
        flag_type: Literal["boolean", "string"] = "string" if message.get("type") == "string" else "boolean"
        default = message.get("default")
        api.register_flag(
            name,
            type=flag_type,
            default=default if isinstance(default, bool | str) else None,
            description=_text(message.get("description")),
        )
        record.flags.append(name.lstrip("-"))
    elif kind == "provider":
        config = message.get("config")
        api.register_provider(name, config if isinstance(config, dict) else {})
    elif kind == "unregisterProvider":
        api.unregister_provider(name)


def _handler(
    bridge: Bridge, record: BridgedExtension, hid: object
) -> Callable[[ExtensionEvent, ExtensionContext | None], Awaitable[object]]:
    async def handler(event: ExtensionEvent, ctx: ExtensionContext | None) -> object:
        answer = await bridge.request(record, {"t": "event", "hid": hid, "event": event.to_dict()}, ctx)
        changed = answer.get("event")
        if isinstance(changed, dict):
            # The handler changed the event in place (Pi's in-place mutation events).
            for field, value in changed.items():
                if field != "type":
                    event[field] = value
        return answer.get("value")

    return handler


def _tool(bridge: Bridge, record: BridgedExtension, message: Message) -> ToolDefinition:
    name = str(message.get("name"))

    async def execute(
        tool_call_id: str,
        params: JsonObject,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
        ctx: ExtensionContext | None,
    ) -> AgentToolResult:
        request: Message = {"t": "tool", "name": name, "toolCallId": tool_call_id, "params": params}
        try:
            answer = await bridge.request(record, request, ctx, signal=signal, on_update=on_update)
        except SidecarDied:
            return {"content": [{"type": "text", "text": SIDECAR_DIED}], "isError": True}
        value = answer.get("value")
        if isinstance(value, str):
            return {"content": [{"type": "text", "text": value}]}
        if not isinstance(value, dict):
            return {"content": []}
        return as_tool_result(value)

    parameters = message.get("parameters")
    guidelines = message.get("promptGuidelines")
    mode = message.get("executionMode")
    return ToolDefinition(
        name=name,
        description=str(message.get("description") or ""),
        parameters=parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}},
        execute=execute,
        label=_text(message.get("label")),
        prompt_snippet=_text(message.get("promptSnippet")),
        prompt_guidelines=[str(g) for g in guidelines] if isinstance(guidelines, list) else None,
        execution_mode="parallel" if mode == "parallel" else "sequential" if mode == "sequential" else None,
    )


def _command(
    bridge: Bridge, record: BridgedExtension, name: str
) -> Callable[[str, ExtensionCommandContext], Awaitable[None]]:
    async def handler(args: str, ctx: ExtensionCommandContext) -> None:
        await bridge.request(record, {"t": "command", "name": name, "args": args}, ctx)

    return handler


def _shortcut(bridge: Bridge, record: BridgedExtension, key: str) -> Callable[[ExtensionContext], Awaitable[None]]:
    async def handler(ctx: ExtensionContext) -> None:
        await bridge.request(record, {"t": "shortcut", "key": key}, ctx)

    return handler
