"""The session's tools: built-ins, SDK custom tools and extension tools, and which are active.

Every registered tool is kept (so ``set_active_tools`` can switch optional ones on later, as Pi
advises); only the active ones are declared to the model. Extension tools are wrapped into
``AgentTool`` objects whose ``execute`` passes the extension a ``ctx``; an extension tool with a
built-in's name replaces the built-in. Extension tools are active when first seen (at startup,
after reload, or when registered later); built-ins follow the selection the session started with.

Every tool's ``execute`` runs with the id of its call in a context variable, which nested calls
(``ctx.execute_tool``) use to find their parent.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import cast

from pi_harness.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions.events import normalize_result
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ToolDefinition, schema_of
from pi_harness.coding.tools.declared import DeclaredTool

# The tool call whose ``execute`` is running in this task (``None`` outside tools).
CURRENT_TOOL_CALL: ContextVar[str | None] = ContextVar("pi_current_tool_call", default=None)


def tool_result_from(value: object) -> AgentToolResult:
    """An extension tool's return value as a result dict (``ToolResult``, dict, text or nothing)."""
    value = normalize_result(value)
    if value is None:
        return {"content": []}
    if isinstance(value, str):
        return {"content": [{"type": "text", "text": value}]}
    if isinstance(value, dict):
        result = dict(value)
        content = result.get("content")
        if isinstance(content, str):
            result["content"] = [{"type": "text", "text": content}]
        elif content is None:
            result["content"] = []
        return cast(AgentToolResult, result)
    raise TypeError(f"Tool returned {type(value).__name__} instead of a result")


def wrap_extension_tool(definition: ToolDefinition, runner: ExtensionRunner) -> AgentTool:
    """An ``AgentTool`` that calls ``definition.execute(id, params, signal, on_update, ctx)``."""

    async def execute(
        tool_call_id: str, params: JsonObject, signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        ctx = runner.create_context() if runner.host is not None else None
        outcome = definition.execute(tool_call_id, params, signal, on_update, ctx)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        return tool_result_from(outcome)

    return DeclaredTool(
        name=definition.name,
        label=definition.label or definition.name,
        description=definition.description,
        parameters=schema_of(definition.parameters),
        execute=execute,
        execution_mode=definition.execution_mode,
        prepare_arguments=definition.prepare_arguments,
        output_schema=definition.output_schema,
        prompt_snippet=definition.prompt_snippet,
        prompt_guidelines=definition.prompt_guidelines,
        constrained_sampling=definition.constrained_sampling,
    )


def with_call_context(tool: AgentTool) -> AgentTool:
    """The same tool, its ``execute`` running with ``CURRENT_TOOL_CALL`` set to its call id."""
    inner = tool.execute

    async def execute(
        tool_call_id: str, params: JsonObject, signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        token = CURRENT_TOOL_CALL.set(tool_call_id)
        try:
            return await inner(tool_call_id, params, signal, on_update)
        finally:
            CURRENT_TOOL_CALL.reset(token)

    return dataclasses.replace(tool, execute=execute)


class ToolRegistry:
    def __init__(
        self,
        *,
        builtin: Iterable[AgentTool],
        custom: Iterable[AgentTool],
        active: Iterable[str],
        runner: ExtensionRunner,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self._builtin = {tool.name: with_call_context(tool) for tool in builtin}
        self._custom = {tool.name: with_call_context(tool) for tool in custom}
        self._extension: dict[str, AgentTool] = {}
        self._extension_seen: set[str] = set()
        self._runner = runner
        self._on_change = on_change
        known = self._all()
        # Names asked for before extension tools were registered (``defaultTools``): a tool registered
        # inactive still starts active when named here.
        self._requested = {name.lstrip("+") for name in active}
        self._active: list[str] = [name for name in dict.fromkeys(active) if name in known]
        for name in self._custom:
            if name not in self._active:
                self._active.append(name)

    def _all(self) -> dict[str, AgentTool]:
        """Every registered tool by name; later sources override earlier ones of the same name."""
        return {**self._builtin, **self._custom, **self._extension}

    # -- reading ---------------------------------------------------------------------------------

    def get(self, name: str) -> AgentTool | None:
        return self._all().get(name)

    def active_names(self) -> list[str]:
        return list(self._active)

    def active_tools(self) -> list[AgentTool]:
        tools = self._all()
        return [tools[name] for name in self._active if name in tools]

    def all_tools(self) -> list[dict[str, object]]:
        """``getAllTools``: ``[{name, description, parameters}]`` of every registered tool."""
        return [
            {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
            for tool in self._all().values()
        ]

    # -- changing ----------------------------------------------------------------------------------

    def set_active(self, names: Iterable[str]) -> bool:
        """Activate exactly the known ``names`` (unknown ones are ignored); True when it changed."""
        known = self._all()
        names = list(names)
        self._requested.update(name for name in names if name not in known)  # registered later
        wanted = [name for name in dict.fromkeys(names) if name in known]
        if wanted == self._active:
            return False
        self._active = wanted
        self._changed()
        return True

    def refresh_extension_tools(self) -> None:
        """Re-wrap the runner's tools; tools seen for the first time become active."""
        wrapped: dict[str, AgentTool] = {}
        inactive: set[str] = set()
        for definition, _path in self._runner.tool_definitions():
            if not definition.default_active and definition.name not in self._requested:
                inactive.add(definition.name)
            wrapped[definition.name] = with_call_context(wrap_extension_tool(definition, self._runner))
        new = [name for name in wrapped if name not in self._extension_seen]
        self._extension = wrapped
        self._extension_seen.update(new)
        for name in new:
            if name not in self._active and name not in inactive:
                self._active.append(name)
        self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()


__all__ = ["CURRENT_TOOL_CALL", "ToolRegistry", "tool_result_from", "with_call_context", "wrap_extension_tool"]
