"""``builtin:codemode``: the ``codemode`` tool (docs/codemode.md).

Registered inactive (``default_active=False``): ``"+codemode"`` in ``defaultTools`` or ``--tools``
turns it on, and ``builtin:mcp`` turns it on when a server with ``codemode`` exposure connects.
Scripts can call the active tools and the registered MCP tools (``mcp__*`` and the resource
tools) whose exposure is ``codemode`` or ``deferred``, which MCP leaves inactive; a ``direct`` MCP
tool that is not active (``--tools`` without it) is out of reach, as in Pi. Each call
goes through ``ctx.execute_tool``, so hooks and permission gates apply to it.

``store()`` values are rebuilt from the ``codemode-store`` custom entries of the current branch;
a successful script that wrote values appends one entry ``{set, delete}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions import (
    AgentToolResult,
    ExtensionAPI,
    ExtensionContext,
    ExtensionEvent,
    ToolDefinition,
    ToolLoadout,
    ToolUpdateCallback,
)
from pi_harness.extensions_builtin.codemode.declarations import identifier
from pi_harness.extensions_builtin.codemode.description import describe, output_schema, script_note
from pi_harness.extensions_builtin.codemode.discovery import DEFAULT_LIMIT, describe_namespace, describe_tool, search

EXTENSION_NAME = "builtin:codemode"
TOOL_NAME = "codemode"
STORE_ENTRY = "codemode-store"
RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})
PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {"code": {"type": "string", "description": "Raw JavaScript source."}},
    "required": ["code"],
}
MCP_RESULT: JsonObject = {
    "type": "object",
    "properties": {
        "content": {"type": "array", "items": {"type": "object"}},
        "structuredContent": {"type": "object"},
        "isError": {"type": "boolean"},
    },
    "required": ["content"],
}


@dataclass(frozen=True)
class CodemodeOptions:
    # The ``codemode`` settings section (``mode``, ``inline_budget``), read at each use.
    settings: Callable[[], object] | None = None

    def mode(self) -> str:
        section = self.settings() if self.settings is not None else None
        return "only" if getattr(section, "mode", "on") == "only" else "on"

    def inline_budget(self) -> int:
        section = self.settings() if self.settings is not None else None
        budget = getattr(section, "inline_budget", 3000)
        return budget if isinstance(budget, int) and budget >= 0 else 3000


def create_codemode_extension(options: CodemodeOptions | None = None) -> Callable[[ExtensionAPI], None]:
    opts = options or CodemodeOptions()

    def extension(pi: ExtensionAPI) -> None:
        state = _Codemode(pi, opts)
        pi.register_tool(state.definition)
        pi.on("before_agent_start", state.on_before_agent_start)

    return extension


def _text_of(result: Mapping[str, object]) -> str:
    content = result.get("content")
    parts = content if isinstance(content, list) else []
    return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping) and p.get("type") == "text")


# A script that searches or lists tools may reach any of them.
DISCOVERY_GLOBALS = re.compile(r"\b(searchTools|describeNamespace|describeTool|ALL_TOOLS)\b")


def script_reach(arguments: JsonObject) -> str | list[str]:
    """``reachesTools``: ``"all"`` for a script that discovers tools, else the words of its source,
    among which the names of the tools it calls (``mcp__<server>__<tool>``)."""
    code = arguments.get("code")
    if not isinstance(code, str):
        return []
    return "all" if DISCOVERY_GLOBALS.search(code) else re.findall(r"\w+", code)


class _Codemode:
    def __init__(self, pi: ExtensionAPI, options: CodemodeOptions) -> None:
        self.pi = pi
        self.options = options
        self.definition = ToolDefinition(
            name=TOOL_NAME,
            label=TOOL_NAME,
            description=describe([], None),
            parameters=PARAMETERS,
            execute=self.execute,
            prompt_snippet="Run JavaScript that calls other tools",
            prompt_guidelines=[
                "Use codemode to run independent tool calls together (Promise.allSettled), chain them, or "
                "cut large output down, instead of making many separate calls."
            ],
            default_active=False,
            reaches_tools=script_reach,
            prepare_loadout=self.prepare_loadout,
        )

    def prepare_loadout(self, loadout: ToolLoadout) -> dict[str, object]:
        """``on``: each declared tool that scripts can call says so in its description. ``only``:
        those tools' own declarations leave the request; scripts still call them."""
        reachable = {str(t["name"]): t for t in self.callable_tools()}
        callable_names = {tool.name for tool in loadout.callable} & set(reachable)
        both = [tool for tool in loadout.declared if tool.name != TOOL_NAME and tool.name in callable_names]
        if self.options.mode() == "only":
            hidden = [tool.name for tool in both if loadout.get_exposure(tool.name) == "direct"]
            return {"descriptions": {}, "hiddenDeclarations": hidden}
        notes = {
            tool.name: script_note(tool.description, tool.name, output_schema(reachable[tool.name])) for tool in both
        }
        return {"descriptions": notes, "hiddenDeclarations": []}

    # -- what a script may reach ----------------------------------------------------------------

    def callable_tools(self) -> list[dict[str, object]]:
        try:
            active = set(self.pi.get_active_tools())
            registered = self.pi.get_all_tools()
        except Exception:  # not bound to a session
            return []
        out: list[dict[str, object]] = []
        for tool in registered:
            name = str(tool.get("name"))
            if name == TOOL_NAME:
                continue
            mcp = name.startswith("mcp__") or name in RESOURCE_TOOLS
            # As the session's callable set: active tools, and tools meant for scripts and search.
            if name in active or (mcp and tool.get("exposure") in ("codemode", "deferred")):
                entry = dict(tool)
                entry["mcp"] = mcp
                entry["active"] = name in active
                if mcp and name.startswith("mcp__"):
                    entry["output_schema"] = MCP_RESULT
                out.append(entry)
        return out

    def listed(self, tools: list[dict[str, object]]) -> list[dict[str, object]]:
        """``on``: declared tools stay declared, MCP tools are found by search: nothing else to list.
        ``only``: the active tools (their own declarations are hidden) and the other callable tools
        that are not MCP tools are listed."""
        if self.options.mode() == "only":
            return [t for t in tools if not t["mcp"] or t["active"]]
        return [t for t in tools if not t["mcp"] and not t["active"]]

    async def on_before_agent_start(self, _event: ExtensionEvent, _ctx: ExtensionContext) -> None:
        description = describe(self.listed(self.callable_tools()), self.options.inline_budget())
        if description != self.definition.description:
            self.definition.description = description
            self.pi.register_tool(self.definition)  # the same definition again: the session re-reads it

    # -- the store ----------------------------------------------------------------------------------

    @staticmethod
    def stored_values(ctx: ExtensionContext | None) -> dict[str, object]:
        values: dict[str, object] = {}
        if ctx is None:
            return values
        try:
            branch = ctx.session_manager.get_branch()
        except Exception:
            return values
        for entry in branch:
            if entry.get("type") != "custom" or entry.get("customType") != STORE_ENTRY:
                continue
            data = entry.get("data")
            if not isinstance(data, Mapping):
                continue
            written = data.get("set")
            if isinstance(written, Mapping):
                values.update(written)
            deleted = data.get("delete")
            for key in deleted if isinstance(deleted, list) else []:
                values.pop(str(key), None)
        return values

    # -- running --------------------------------------------------------------------------------------

    async def execute(
        self,
        tool_call_id: str,
        params: JsonObject,
        signal: AbortSignal | None,
        _on_update: ToolUpdateCallback | None,
        ctx: ExtensionContext | None = None,
    ) -> AgentToolResult:
        from pi_harness.extensions_builtin.codemode.executor import Run, execute_script
        from pi_harness.optional_deps import require

        require("quickjs", feature="codemode", extra="codemode")
        code = params.get("code")
        if not isinstance(code, str):
            raise ValueError("codemode needs the script as a string in `code`")
        tools = self.callable_tools()
        by_name = {str(t["name"]): t for t in tools}
        catalog = [{"name": str(t["name"]), "description": str(t.get("description", ""))} for t in tools]

        async def call(op: str, _payload: str, args: JsonObject) -> tuple[bool, object]:
            if op == "searchTools":
                opts = args.get("options")
                opts = opts if isinstance(opts, Mapping) else {}
                limit = opts.get("limit")
                ns = opts.get("namespace")
                found = search(
                    tools,
                    str(args.get("query", "")),
                    limit if isinstance(limit, int) and limit > 0 else DEFAULT_LIMIT,
                    ns if isinstance(ns, str) else None,
                )
                return True, found
            if op == "describeTool":
                return True, describe_tool(tools, str(args.get("name")))
            if op == "describeNamespace":
                return True, describe_namespace(tools, str(args.get("name")))
            return await self.call_tool(ctx, by_name, tool_call_id, signal, args)

        run = Run(
            tools=[(identifier(str(t["name"])), str(t["name"])) for t in tools],
            catalog=catalog,
            store=self.stored_values(ctx),
            call=call,
        )
        outcome = await execute_script(code, run, signal)
        if outcome.ok and outcome.writes and (outcome.writes.get("set") or outcome.writes.get("delete")):
            self.pi.append_entry(
                STORE_ENTRY, {"set": outcome.writes.get("set"), "delete": outcome.writes.get("delete")}
            )
        result: AgentToolResult = {"content": outcome.content, "details": outcome.details}  # type: ignore[typeddict-item]  # content items are plain JSON dicts
        if not outcome.ok:
            result["isError"] = True
        return result

    async def call_tool(
        self,
        ctx: ExtensionContext | None,
        by_name: Mapping[str, Mapping[str, object]],
        parent: str,
        signal: AbortSignal | None,
        request: JsonObject,
    ) -> tuple[bool, object]:
        name = str(request.get("name"))
        args = request.get("args")
        tool = by_name.get(name)
        if tool is None or ctx is None:
            return False, f'Tool "{name}" is not available to codemode scripts'
        if not isinstance(args, dict):
            return False, f"tools.{identifier(name)}() takes one object of arguments"
        try:
            result = await ctx.execute_tool(name, dict(args), signal=signal, parent_tool_call_id=parent)
        except Exception as exc:
            return False, str(exc) or type(exc).__name__
        failed = bool(result.get("isError"))
        if tool.get("mcp") and name.startswith("mcp__"):
            value: dict[str, object] = {"content": _full_content(result), "isError": failed}
            if "structuredContent" in result:
                value["structuredContent"] = result["structuredContent"]
            return (
                (False, _text_of(result))
                if failed and "structuredContent" not in result and _is_thrown(result)
                else (True, value)
            )
        if "structuredContent" in result and result.get("structuredContent") is not None:
            return True, result["structuredContent"]
        if failed:
            return False, _text_of(result) or f"{name} failed"
        image = _image_of(result)
        if image is not None:  # ``read`` of an image file: a block ``image()`` shows
            return True, {**image, "note": _text_of(result)}
        return True, _text_of(result)


def _full_content(result: Mapping[str, object]) -> object:
    """An MCP result's content with its text uncut: scripts get what the model's 20 KB limit left out
    (``builtin:mcp`` keeps the complete text in ``details.fullOutputPath``)."""
    content = result.get("content", [])
    details = result.get("details")
    path = details.get("fullOutputPath") if isinstance(details, Mapping) and details.get("truncated") else None
    if not isinstance(path, str) or not isinstance(content, list):
        return content
    try:
        full = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return content
    images = [part for part in content if isinstance(part, Mapping) and part.get("type") != "text"]
    return [{"type": "text", "text": full}, *images]


def _image_of(result: Mapping[str, object]) -> dict[str, object] | None:
    content = result.get("content")
    for part in content if isinstance(content, list) else []:
        if isinstance(part, Mapping) and part.get("type") == "image":
            return {"type": "image", "data": part.get("data"), "mimeType": part.get("mimeType")}
    return None


def _is_thrown(result: Mapping[str, object]) -> bool:
    """A call that never reached the server (unknown tool, bad arguments, blocked) has no details."""
    details = result.get("details")
    return not (isinstance(details, Mapping) and "server" in details)


codemode_extension = create_codemode_extension()

__all__ = [
    "EXTENSION_NAME",
    "STORE_ENTRY",
    "TOOL_NAME",
    "CodemodeOptions",
    "codemode_extension",
    "create_codemode_extension",
]
