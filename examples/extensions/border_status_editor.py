"""border-status-editor: the status of the session written into the editor's borders.

What it shows: ``ctx.ui.set_editor_component(factory)`` with a component that wraps the built-in
editor (``factory(context, editor)`` gets the render context and the built-in editor view): it
draws the built-in editor and replaces its two rules. The top rule names the model and thinking
level on the left and the folder on the right; while the agent works a spinner leads it. The
bottom rule shows the git branch and how full the context is. Keys are left to the built-in
editor (no ``handle_input``), and the cursor is where the built-in editor puts it (``cursor``).
The separate working row and the footer are hidden (``set_working_visible(False)`` and an empty
footer), since the borders carry that information.

Load it with ``pi -e examples/extensions/border_status_editor.py``.
"""

from __future__ import annotations

import os
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def rule(left: str, right: str, width: int) -> str:
    """``─left────right─`` exactly ``width`` wide; the right text gives way first, then the left."""
    inner = max(0, width - 2)
    room_right = max(0, inner - len(left) - 3)
    right = right[-room_right:] if len(right) > room_right else right
    left = left[: max(0, inner - len(right) - 3)] if len(left) + len(right) + 3 > inner else left
    return "─" + left + "─" * max(0, inner - len(left) - len(right)) + right + "─"


def home_relative(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home) else path


def context_text(ctx: ExtensionContext) -> str:
    usage = ctx.get_context_usage()
    percent = usage.get("percent") if usage else None
    window = usage.get("contextWindow") if usage else None
    if not isinstance(percent, int | float) or not isinstance(window, int):
        return "ctx ?"
    return f"ctx {round(percent)}%/{window // 1000}k"


class State:
    def __init__(self) -> None:
        self.working = False
        self.frame = 0
        self.branch: str | None = None


class BorderStatusEditor:
    def __init__(self, pi: ExtensionAPI, ctx: ExtensionContext, state: State, context: Any, editor: Any) -> None:
        self.pi, self.ctx, self.state, self.editor, self.theme = pi, ctx, state, editor, context.theme

    @property
    def cursor(self) -> tuple[int, int] | None:
        cursor: tuple[int, int] | None = self.editor.cursor
        return cursor

    def tick(self) -> bool:
        if self.state.working:
            self.state.frame = (self.state.frame + 1) % len(SPINNER)
        return self.state.working

    def render(self, width: int) -> list[str]:
        lines: list[str] = self.editor.render(width)
        model = self.ctx.model
        left = f" {model['id'] if model else 'no model'} · {self.pi.get_thinking_level()} "
        if self.state.working:
            left = f" {SPINNER[self.state.frame]}{left}"
        top = rule(left, f" {home_relative(self.ctx.cwd)} ", width)
        bottom = rule(f" ⎇ {self.state.branch or 'no branch'} ", f" {context_text(self.ctx)} ", width)
        return [self.theme.fg("borderMuted", top), *lines[1:-1], self.theme.fg("borderMuted", bottom)]


class EmptyFooter:
    def render(self, width: int) -> list[str]:
        return []


def extension(pi: ExtensionAPI) -> None:
    state = State()

    @pi.on("agent_start")
    async def working(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        state.working = True

    @pi.on("agent_end")
    async def settled(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        state.working = False

    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if not ctx.has_ui:
            return
        result = await pi.exec("git", ["branch", "--show-current"], cwd=ctx.cwd)
        state.branch = result["stdout"].strip() or None if result["code"] == 0 else None
        ctx.ui.set_working_visible(False)
        ctx.ui.set_footer(lambda context, source: EmptyFooter())
        ctx.ui.set_editor_component(lambda context, editor: BorderStatusEditor(pi, ctx, state, context, editor))
