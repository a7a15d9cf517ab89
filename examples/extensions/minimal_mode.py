"""minimal-mode: tool calls on one line, their output only when you ask for it.

What it shows: the built-in tools re-registered under their own names with the built-in
implementation (so the model sees no difference) and only new ``render_call`` /
``render_result``. While tool output is collapsed, each call is a single line (``$ make test``,
``read src/app.py``, ``grep TODO in src``) and nothing of its output is drawn; press Ctrl+O
(expand tools) and every call shows its full output. An error always shows its first line,
so failures are not hidden.

Load it with ``pi -e examples/extensions/minimal_mode.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_harness.coding import tools
from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ToolDefinition

NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")


def title(name: str, args: Mapping[str, Any]) -> str:
    if name == "bash":
        return f"$ {args.get('command', '')}"
    if name in ("grep", "find"):
        where = args.get("path") or "."
        return f"{name} {args.get('pattern', '')} in {where}"
    return f"{name} {args.get('path') or '.'}"


def output_text(result: Mapping[str, Any]) -> str:
    return "".join(b.get("text", "") for b in result.get("content") or [] if b.get("type") == "text")


def extension(pi: ExtensionAPI) -> None:
    for name in NAMES:
        parameters = getattr(tools, f"{name.upper()}_PARAMETERS")
        create = getattr(tools, f"create_{name}_tool")

        def render_call(args: Mapping[str, Any], context: Any, name: str = name) -> list[str]:
            return [context.theme.style(title(name, args), "accent", bold=True)]

        def render_result(result: Mapping[str, Any], is_error: bool, context: Any) -> list[str]:
            text = output_text(result).rstrip("\n")
            if is_error:
                return [context.theme.fg("error", text.split("\n")[0] if text else "failed")]
            if not context.expand_tools:
                return []
            return [context.theme.fg("toolOutput", line) for line in text.split("\n")]

        async def execute(
            call_id: str,
            params: dict[str, Any],
            signal: Any,
            on_update: Any,
            ctx: ExtensionContext,
            create: Any = create,
        ) -> Any:
            return await create(ctx.cwd).execute(call_id, params, signal, on_update)

        pi.register_tool(
            ToolDefinition(
                name=name,
                description=create(".").description,
                parameters=parameters,
                execute=execute,
                render_call=render_call,
                render_result=render_result,
            )
        )
