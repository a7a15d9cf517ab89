"""built-in-tool-renderer: shorter drawings of read, bash, edit and write.

What it shows: a tool registered under a built-in's name replaces it; by running the built-in
implementation (``create_read_tool(ctx.cwd).execute(...)`` and so on) the behaviour stays the
same and only ``render_call`` / ``render_result`` change. Each call is drawn on one title line
(``read src/app.py``, ``$ pytest -q``, ``edit config.py``, ``write notes.md``) and the result as one
summary line: lines read, exit status and last output line, ``+added -removed`` of an edit,
bytes written. Errors keep their first line. The model sees exactly what the built-ins return.

Load it with ``pi -e examples/extensions/built_in_tool_renderer.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ToolDefinition
from pi_harness.coding.tools import (
    BASH_PARAMETERS,
    EDIT_PARAMETERS,
    READ_PARAMETERS,
    WRITE_PARAMETERS,
    create_bash_tool,
    create_edit_tool,
    create_read_tool,
    create_write_tool,
)

BUILTINS = {
    "read": (READ_PARAMETERS, create_read_tool),
    "bash": (BASH_PARAMETERS, create_bash_tool),
    "edit": (EDIT_PARAMETERS, create_edit_tool),
    "write": (WRITE_PARAMETERS, create_write_tool),
}


def result_text(result: Mapping[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result.get("content") or [] if block.get("type") == "text")


def render_call(name: str) -> Any:
    def draw(args: Mapping[str, Any], context: Any) -> list[str]:
        theme = context.theme
        if name == "bash":
            return [theme.style("$ ", "accent", bold=True) + str(args.get("command", ""))]
        return [theme.style(name, "accent", bold=True) + " " + str(args.get("path", ""))]

    return draw


def summary(name: str, text: str, details: Any) -> str:
    lines = text.rstrip("\n").split("\n") if text else []
    if name == "read":
        return f"{len(lines)} lines"
    if name == "bash":
        last = lines[-1] if lines else "(no output)"
        return f"ok · {last}"
    if name == "edit":
        diff = str(details.get("diff", "")) if isinstance(details, Mapping) else ""
        added = sum(1 for row in diff.split("\n") if row.startswith("+") and not row.startswith("+++"))
        removed = sum(1 for row in diff.split("\n") if row.startswith("-") and not row.startswith("---"))
        return f"+{added} -{removed}"
    return lines[0] if lines else "written"


def render_result(name: str) -> Any:
    def draw(result: Mapping[str, Any], is_error: bool, context: Any) -> list[str]:
        theme = context.theme
        text = result_text(result)
        if is_error:
            return [theme.fg("error", (text.strip().split("\n") or [""])[0])]
        return [theme.fg("muted", summary(name, text, result.get("details")))]

    return draw


def make_execute(name: str) -> Any:
    create = BUILTINS[name][1]

    async def execute(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext) -> Any:
        return await create(ctx.cwd).execute(call_id, params, signal, on_update)

    return execute


def extension(pi: ExtensionAPI) -> None:
    for name, (parameters, create) in BUILTINS.items():
        builtin = create(".")
        pi.register_tool(
            ToolDefinition(
                name=name,
                description=builtin.description,
                parameters=parameters,
                execute=make_execute(name),
                render_call=render_call(name),
                render_result=render_result(name),
            )
        )
