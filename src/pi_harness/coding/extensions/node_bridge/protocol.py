"""Errors and records shared by the bridge's parts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol, cast

from pi_harness.agent.types import AgentToolResult, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import UserContent
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext


class NodeExtensionError(Exception):
    """An error raised by the JavaScript side (its message and stack)."""

    def __init__(self, message: str, stack: str | None = None) -> None:
        super().__init__(message)
        self.js_stack = stack


class SidecarDied(Exception):
    """The Node process ended while a request was waiting for its answer."""


SIDECAR_DIED = "The Node extension host stopped while this was running; it restarts on the next use"


@dataclass
class BridgedExtension:
    """One TypeScript/JavaScript extension: its id in the sidecar and what it registered."""

    id: str
    path: str
    api: ExtensionAPI
    registered: set[tuple[str, str]] = field(default_factory=set)
    flags: list[str] = field(default_factory=list)


def as_tool_result(value: dict[str, object]) -> AgentToolResult:
    """A tool result (or partial update) from the JSON the extension returned."""
    content = value.get("content")
    result: AgentToolResult = {"content": cast("list[UserContent]", content) if isinstance(content, list) else []}
    if value.get("details") is not None:
        result["details"] = value["details"]
    if value.get("isError"):
        result["isError"] = True
    if value.get("terminate"):
        result["terminate"] = True
    return result


Message = dict[str, object]


class Bridge(Protocol):
    """What the proxies and the host calls need of ``NodeBridge`` (kept apart from it so that
    neither imports the bridge)."""

    @property
    def extensions(self) -> dict[str, BridgedExtension]: ...

    async def request(
        self,
        record: BridgedExtension,
        message: Message,
        ctx: ExtensionContext | None,
        *,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> Message: ...

    def notice(self, text: str) -> None: ...
    def context_for(self, request_id: object) -> ExtensionContext | None: ...
    def reply(self, request_id: object, ok: bool, value: object = None, error: str | None = None) -> None: ...
    def track(self, request_id: int, task: asyncio.Task[None]) -> None: ...
