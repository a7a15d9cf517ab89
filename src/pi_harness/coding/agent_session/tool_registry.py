"""The session's tools: built-ins, SDK custom tools and extension tools, and which are active.

Every registered tool is kept (so ``set_active_tools`` can switch optional ones on later, as Pi
advises); only the active ones are declared to the model. Extension tools are wrapped into
``AgentTool`` objects whose ``execute`` passes the extension a ``ctx``; an extension tool with a
built-in's name replaces the built-in. Extension tools are active when first seen (at startup,
after reload, or when registered later) if their exposure is ``direct`` or ``model-only`` and they
do not ask otherwise (``default_active=False``); ``codemode`` and ``deferred`` tools wait for
``set_active_tools`` (``tool_search`` loads them), ``hidden`` ones are never active. Built-ins follow
the selection the session started with. Names in that selection that are not registered yet (a
resumed branch's MCP tools, whose server is still connecting) are pending: they become active when
they register, until a change of the active set drops a tool (a new loadout replaces the restored one).

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
from pi_harness.coding.agent_session.tool_filter import NO_FILTER, ToolFilter
from pi_harness.coding.extensions.events import normalize_result
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ToolDefinition, ToolExposure, ToolLoadout, schema_of
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
        self._definitions: dict[str, ToolDefinition] = {}  # the extension tools' definitions
        self._runner = runner
        self._on_change = on_change
        self._filter = NO_FILTER
        known = self._all()
        wanted = list(dict.fromkeys(active))
        self._active: list[str] = [name for name in wanted if name in known]
        self._pending: list[str] = [name for name in wanted if name not in known]
        for name in self._custom:
            if name not in self._active:
                self._active.append(name)

    def _all(self) -> dict[str, AgentTool]:
        """Every registered tool by name; later sources override earlier ones of the same name.
        Tools the ``--tools``/``--exclude-tools`` filter leaves out are not registered."""
        tools = {**self._builtin, **self._custom, **self._extension}
        if self._filter is NO_FILTER:
            return tools
        return {name: tool for name, tool in tools.items() if self._filter.registers(name)}

    def _activatable(self, name: str) -> bool:
        if not self._filter.has_allowlist:
            return True
        return self._filter.activatable(name, self.exposure_of(name), "tool_search" in self._all())

    # -- reading ---------------------------------------------------------------------------------

    def get(self, name: str) -> AgentTool | None:
        return self._all().get(name)

    def active_names(self) -> list[str]:
        return list(self._active)

    def active_tools(self) -> list[AgentTool]:
        tools = self._all()
        if not self._filter.has_allowlist:  # every registered tool is activatable (asked 4x a turn)
            return [tools[name] for name in self._active if name in tools]
        return [tools[name] for name in self._active if name in tools and self._activatable(name)]

    def declared_tools(self, *, report: bool = True) -> list[AgentTool]:
        """The active tools as requests declare them: active tools with ``prepare_loadout`` may
        change descriptions and leave declarations out (still active and callable). A raising
        hook is reported (event ``prepare_loadout``) and changes nothing."""
        tools = self.active_tools()
        if not self._runner.has_loadout_hooks(self._active):
            # The usual case, asked twice per request: no active tool has a hook (a built-in
            # extension's inactive tool may), so no definitions list to build.
            return tools
        hooks = [
            (definition, path)
            for definition, path in self._runner.tool_definitions()
            if definition.prepare_loadout is not None and definition.name in self._active
        ]
        if not hooks:
            return tools
        loadout = ToolLoadout(
            declared=tuple(tools),
            callable=tuple(self.callable_tools()),
            registered=tuple(self._all().values()),
            get_exposure=self.exposure_of,
            get_namespace=lambda name: d.namespace if (d := self._definitions.get(name)) is not None else None,
            get_prompt_guidelines=lambda name: list(t.prompt_guidelines or []) if (t := self.get(name)) else [],
        )
        descriptions: dict[str, str] = {}
        hidden: set[str] = set()
        for definition, path in hooks:
            assert definition.prepare_loadout is not None
            try:
                changes = normalize_result(definition.prepare_loadout(loadout))
            except Exception as error:
                if report:
                    self._runner.report(path, "prepare_loadout", error)
                continue
            if not isinstance(changes, dict):
                continue
            described = changes.get("descriptions")
            if isinstance(described, dict):
                descriptions.update((str(k), v) for k, v in described.items() if isinstance(v, str))
            names = changes.get("hiddenDeclarations")
            if isinstance(names, list | tuple):
                hidden.update(str(n) for n in names)
        return [
            dataclasses.replace(tool, description=descriptions[tool.name]) if tool.name in descriptions else tool
            for tool in tools
            if tool.name not in hidden
        ]

    def hidden_declarations(self) -> set[str]:
        """Active tools whose declarations ``prepare_loadout`` hooks leave out of requests (for the
        system prompt; a failing hook is reported once per request, by ``declared_tools``)."""
        if not self._runner.has_loadout_hooks():
            return set()
        declared = {tool.name for tool in self.declared_tools(report=False)}
        return {name for name in self._active if name not in declared}

    def exposure_of(self, name: str) -> ToolExposure:
        definition = self._definitions.get(name) if name in self._extension else None
        exposure = definition.exposure if definition is not None else None
        return exposure or "direct"

    def callable_tools(self) -> list[AgentTool]:
        """What ``ctx.execute_tool`` reaches: ``codemode`` and ``deferred`` tools always, ``direct``
        ones while active (``model-only`` and ``hidden`` never)."""
        active = set(self._active)
        return [
            tool
            for name, tool in self._all().items()
            if self.exposure_of(name) in ("codemode", "deferred")
            or (self.exposure_of(name) == "direct" and name in active)
        ]

    def all_tools(self) -> list[dict[str, object]]:
        """``getAllTools``: ``[{name, description, parameters, exposure, namespace?, reachesTools?}]``."""
        return [self._tool_info(tool) for tool in self._all().values()]

    def _tool_info(self, tool: AgentTool) -> dict[str, object]:
        info: dict[str, object] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "exposure": self.exposure_of(tool.name),
        }
        definition = self._definitions.get(tool.name) if tool.name in self._extension else None
        if definition is not None and definition.namespace is not None:
            info["namespace"] = definition.namespace.to_dict()
        if definition is not None and definition.annotations is not None:
            info["annotations"] = definition.annotations_dict()
        if definition is not None and definition.reaches_tools is not None:
            info["reachesTools"] = definition.reaches_tools
        if tool.prompt_guidelines:
            info["promptGuidelines"] = list(tool.prompt_guidelines)
        return info

    def _activated_on_registration(self, name: str) -> bool:
        definition = self._definitions.get(name)
        declarable = self.exposure_of(name) in ("direct", "model-only")
        if self._filter.has_allowlist:
            # As Pi: naming or matching a tool activates it even when it is not active by default,
            # and tools the allowlist does not match (MCP tools it keeps) are not activated.
            return declarable and self._filter.matches(name)
        return declarable and (definition is None or definition.default_active is not False)

    # -- changing ----------------------------------------------------------------------------------

    def set_active(self, names: Iterable[str]) -> bool:
        """Activate exactly the known ``names`` (unknown ones are ignored); True when it changed."""
        known = self._all()
        wanted = [
            name
            for name in dict.fromkeys(names)
            if name in known and self.exposure_of(name) != "hidden" and self._activatable(name)
        ]
        if wanted == self._active:
            return False
        if any(name not in wanted for name in self._active):
            self._pending = []
        self._active = wanted
        self._changed()
        return True

    def refresh_extension_tools(self) -> None:
        """Re-wrap the runner's tools; tools seen for the first time become active."""
        wrapped: dict[str, AgentTool] = {}
        definitions: dict[str, ToolDefinition] = {}
        for definition, _path in self._runner.tool_definitions():
            wrapped[definition.name] = with_call_context(wrap_extension_tool(definition, self._runner))
            definitions[definition.name] = definition
        new = [name for name in wrapped if name not in self._extension_seen]
        self._extension = wrapped
        self._definitions = definitions
        self._extension_seen.update(new)
        for name in new:
            if name not in self._active and self._activated_on_registration(name):
                self._active.append(name)
        self._activate_pending()
        self._changed()

    def _activate_pending(self) -> None:
        known = self._all()
        for name in [n for n in self._pending if n in known]:
            self._pending.remove(name)
            if name not in self._active and self.exposure_of(name) != "hidden" and self._activatable(name):
                self._active.append(name)

    def set_filter(self, tool_filter: ToolFilter) -> None:
        """Apply ``--tools``/``--exclude-tools``: unregister what the filter leaves out and activate
        the registered tools the allowlist matches (declarable ones)."""
        self._filter = tool_filter
        known = self._all()
        self._active = [name for name in self._active if name in known and self._activatable(name)]
        self._pending = [name for name in self._pending if tool_filter.registers(name)]
        if tool_filter.has_allowlist:
            for name in known:
                if name not in self._active and self._filter.matches(name) and self._declarable(name):
                    self._active.append(name)
        self._changed()

    @property
    def tool_filter(self) -> ToolFilter:
        return self._filter

    def _declarable(self, name: str) -> bool:
        return self.exposure_of(name) in ("direct", "model-only")

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()


__all__ = ["CURRENT_TOOL_CALL", "ToolRegistry", "tool_result_from", "with_call_context", "wrap_extension_tool"]
