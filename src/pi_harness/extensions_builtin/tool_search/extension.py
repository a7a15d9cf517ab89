"""``builtin:tool-search``: the ``tool_search`` tool, which loads tools the model was not given.

Tools with ``deferred`` exposure (and ``codemode`` ones: either indirect way reaches both, as in
Pi 1.4.0) are registered without being declared to the model. ``tool_search`` ranks those that are
not active yet (``ranking.py``) and activates the best matches with ``set_active_tools``, so the
next request of the same run declares them. The change of the active set reaches the transcript
as any other does: a ``system`` message patch with ``toolsAdded`` before the next request, which
keeps the earlier prompt and declarations (the provider's cached prefix) as they were, and which
resume, fork and ``/tree`` replay, so loaded tools stay declared on that branch only.

The tool is registered inactive; ``builtin:mcp`` activates it when a server has deferred tools,
and ``--tools``/``defaultTools`` can name it. It says it reaches every tool (``reaches_tools``),
so the MCP extension lets a call wait for servers still connecting. An extension that registers
its own ``tool_search`` before this one replaces it; ``-builtin:tool-search`` turns it off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.extensions import (
    AgentToolResult,
    ExtensionAPI,
    ExtensionContext,
    ToolDefinition,
    ToolUpdateCallback,
)

EXTENSION_NAME = "builtin:tool-search"
TOOL_NAME = "tool_search"
DEFAULT_LIMIT = 8
SEARCHABLE = frozenset({"codemode", "deferred"})

DESCRIPTION = (
    "Find tools that are available in this session but were not declared to you, such as the tools "
    "of MCP servers, and load the best matches. Loaded tools can be called from your next call on. "
    f"Use `{TOOL_NAME}` whenever you need an MCP tool you do not see yet: describe the task, or name "
    "the server (mcp__<server>)."
)
PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Words describing the tools to find."},
        "limit": {"type": "number", "description": f"How many tools to load at most (default {DEFAULT_LIMIT})."},
    },
    "required": ["query"],
}


def searchable(tools: Sequence[Mapping[str, object]], active: Sequence[str]) -> list[Mapping[str, object]]:
    """The registered tools a search may load: indirect exposure, not active yet."""
    current = set(active)
    return [t for t in tools if t.get("exposure") in SEARCHABLE and t.get("name") not in current]


def search_and_load(pi: ExtensionAPI, query: str, limit: int) -> list[tuple[str, str]]:
    """Rank, activate the matches; ``(name, description)`` of each, best first."""
    from pi_harness.extensions_builtin.tool_search.ranking import rank, search_document  # at the first search

    active = pi.get_active_tools()
    candidates = searchable(pi.get_all_tools(), active)
    matches = rank(query, [search_document(tool) for tool in candidates], limit)
    if matches:
        pi.set_active_tools([*active, *(match.name for match in matches)])
    descriptions = {str(tool.get("name")): str(tool.get("description") or "") for tool in candidates}
    return [(match.name, descriptions.get(match.name, "")) for match in matches]


def result_text(loaded: Sequence[tuple[str, str]]) -> str:
    """Pi's result text: a count, then ``- <name>: <first line of the description>`` per tool."""
    if not loaded:
        return "No matching tools found."
    lines = [f"- {name}: {(description.strip().splitlines() or [''])[0]}" for name, description in loaded]
    plural = "" if len(loaded) == 1 else "s"
    return f"Loaded {len(loaded)} tool{plural}. They are available from your next call:\n" + "\n".join(lines)


def _limit(value: object) -> int:
    if value is None:
        return DEFAULT_LIMIT
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value) or value <= 0:
        raise ValueError("limit must be a positive integer")
    return int(value)


def tool_search_definition(pi: ExtensionAPI) -> ToolDefinition:
    async def execute(
        _tool_call_id: str,
        params: JsonObject,
        _signal: AbortSignal | None,
        _on_update: ToolUpdateCallback | None,
        _ctx: ExtensionContext | None = None,
    ) -> AgentToolResult:
        query = params.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ValueError("query must not be empty")
        loaded = search_and_load(pi, query, _limit(params.get("limit")))
        return {
            "content": [{"type": "text", "text": result_text(loaded)}],
            "details": {"loaded": [name for name, _ in loaded]},
        }

    return ToolDefinition(
        name=TOOL_NAME,
        label=TOOL_NAME,
        description=DESCRIPTION,
        parameters=PARAMETERS,
        execute=execute,
        prompt_snippet="Find and load tools that are not declared yet (MCP tools among them)",
        # It changes what the model sees; other tools have no use for it.
        exposure="model-only",
        default_active=False,
        reaches_tools=lambda _arguments: "all",
    )


def create_tool_search_extension() -> Callable[[ExtensionAPI], None]:
    def extension(pi: ExtensionAPI) -> None:
        pi.register_tool(tool_search_definition(pi))

    return extension


tool_search_extension = create_tool_search_extension()
