"""todo: a todo list the model keeps, that follows the session tree.

* the ``todo`` tool lets the model ``list`` the items, ``add`` one (``text``), ``toggle`` one
  between open and done (``id``) and ``clear`` the list;
* ``/todos`` shows you the list of the current branch (``3/5 done`` and one line per item).

The list is not kept in a file: every result of the tool carries the whole list in its
``details``. When a session starts, resumes or moves in the tree (``/tree``, ``/fork``), the
extension rebuilds the list from the latest ``todo`` result on the active branch, so each branch
has the list as it was at that point.

What it shows: state in tool-result ``details`` rebuilt in ``session_start``/``session_tree``
from ``ctx.session_manager.get_branch()``, an enum parameter, and ``render_call`` /
``render_result`` for a compact display in the interactive mode.

Load it with ``pi -e examples/extensions/todo.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionEvent,
    ToolDefinition,
    ToolResult,
)

TOOL = "todo"
ACTIONS = ("list", "add", "toggle", "clear")
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "text": {"type": "string", "description": "Text of the new item (add)"},
        "id": {"type": "integer", "description": "Number of the item (toggle)"},
    },
    "required": ["action"],
}
COLLAPSED_ITEMS = 5


@dataclass
class TodoList:
    items: list[dict[str, Any]] = field(default_factory=list)  # {"id", "text", "done"}
    next_id: int = 1

    def snapshot(self, action: str, error: str | None = None) -> dict[str, Any]:
        details: dict[str, Any] = {"action": action, "todos": [dict(i) for i in self.items], "nextId": self.next_id}
        if error:
            details["error"] = error
        return details

    def restore(self, details: Mapping[str, Any]) -> None:
        self.items = [dict(item) for item in details.get("todos", [])]
        self.next_id = int(details.get("nextId", len(self.items) + 1))


def item_line(item: Mapping[str, Any]) -> str:
    return f"[{'x' if item['done'] else ' '}] #{item['id']}: {item['text']}"


def run_action(todos: TodoList, params: Mapping[str, Any]) -> ToolResult:
    action = params["action"]
    if action == "list":
        text = "\n".join(item_line(i) for i in todos.items) if todos.items else "The list is empty"
        return ToolResult(text, details=todos.snapshot("list"))
    if action == "add":
        text = str(params.get("text") or "").strip()
        if not text:
            return ToolResult("add needs a text", details=todos.snapshot("add", "text missing"), is_error=True)
        item = {"id": todos.next_id, "text": text, "done": False}
        todos.items.append(item)
        todos.next_id += 1
        return ToolResult(f"Added #{item['id']}: {text}", details=todos.snapshot("add"))
    if action == "toggle":
        wanted = params.get("id")
        found = next((i for i in todos.items if i["id"] == wanted), None)
        if found is None:
            error = "id missing" if wanted is None else f"#{wanted} does not exist"
            return ToolResult(f"toggle: {error}", details=todos.snapshot("toggle", error), is_error=True)
        found["done"] = not found["done"]
        state = "done" if found["done"] else "open again"
        return ToolResult(f"#{found['id']} is {state}", details=todos.snapshot("toggle"))
    count = len(todos.items)
    todos.items, todos.next_id = [], 1
    return ToolResult(f"Removed {count} item(s)", details=todos.snapshot("clear"))


def summary_lines(items: list[dict[str, Any]]) -> list[str]:
    if not items:
        return ["No todos yet: ask the model to add some."]
    done = sum(1 for item in items if item["done"])
    return [f"{done}/{len(items)} done", *(f"{'✓' if i['done'] else '○'} #{i['id']} {i['text']}" for i in items)]


def render_call(args: Mapping[str, Any], context: object) -> list[str]:
    line = f"todo {args.get('action', '')}"
    if args.get("text"):
        line += f' "{args["text"]}"'
    if args.get("id") is not None:
        line += f" #{args['id']}"
    return [line]


def render_result(result: Mapping[str, Any], is_error: bool, context: object) -> list[str]:
    details = result.get("details")
    if not isinstance(details, Mapping):
        return [block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"]
    if details.get("error"):
        return [f"Error: {details['error']}"]
    if details.get("action") != "list":
        return [f"✓ {block.get('text', '')}" for block in result.get("content", [])[:1]]
    lines = summary_lines(list(details.get("todos", [])))
    expanded = bool(getattr(context, "expand_tools", False))
    if expanded or len(lines) <= COLLAPSED_ITEMS + 1:
        return lines
    hidden = len(lines) - 1 - COLLAPSED_ITEMS
    return [*lines[: COLLAPSED_ITEMS + 1], f"... {hidden} more"]


def latest_state(branch: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    state: Mapping[str, Any] | None = None
    for entry in branch:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, Mapping) and message.get("role") == "toolResult" and message.get("toolName") == TOOL:
            details = message.get("details")
            if isinstance(details, Mapping) and "todos" in details:
                state = details
    return state


def extension(pi: ExtensionAPI) -> None:
    todos = TodoList()

    def rebuild(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        state = latest_state(list(ctx.session_manager.get_branch()))
        todos.restore(state or {})

    pi.on("session_start", rebuild)
    pi.on("session_tree", rebuild)

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: object, on_update: object, ctx: object
    ) -> ToolResult:
        return run_action(todos, params)

    pi.register_tool(
        ToolDefinition(
            name=TOOL,
            label="Todo",
            description="Keep a todo list: list, add (text), toggle (id) or clear.",
            parameters=PARAMETERS,
            execute=execute,
            render_call=render_call,
            render_result=render_result,
        )
    )

    @pi.command("todos", description="Show the todo list of the current branch")
    async def show(args: str, ctx: ExtensionCommandContext) -> None:
        ctx.ui.notify("Todos\n" + "\n".join(summary_lines(todos.items)))
