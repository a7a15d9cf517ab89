"""One tool call, from the streamed arguments to the result, on a state-coloured block.

States: ``pending`` (arguments streaming or waiting to run), ``running`` (execution started,
partial output may arrive), ``done`` (``toolSuccessBg`` or ``toolErrorBg``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pi_harness.tui.components.base import CachedRender, RenderContext, ToolRenderer, box, guarded, wrap_all
from pi_harness.tui.components.content import output_text
from pi_harness.tui.components.tool_formats import (
    ToolDisplay,
    format_bash,
    format_edit,
    format_generic,
    format_listing,
    format_read,
    format_write,
)

ToolState = Literal["pending", "running", "done"]


def _format_duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms}ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    minutes, seconds = divmod(ms // 1000, 60)
    return f"{minutes}m{seconds:02d}s"


class ToolCallView(CachedRender):
    def __init__(
        self,
        tool_call_id: str,
        name: str,
        args: Any,
        context: RenderContext,
        *,
        label: str | None = None,
    ) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.args: Any = args if args is not None else {}
        self.context = context
        self.label = label
        self.state: ToolState = "pending"
        self.output: str | None = None
        self.details: Any = None
        self.is_error = False
        self.duration_ms: int | None = None
        self.preview_diff: str | None = None
        self.result: Mapping[str, object] | None = None

    @property
    def done(self) -> bool:
        return self.state == "done"

    def set_args(self, args: Any) -> None:
        """Arguments as streamed so far (may be partial)."""
        if args and args != self.args:
            self.args = args
            self.touch()

    def start(self, args: Any = None) -> None:
        self.set_args(args)
        if self.state == "pending":
            self.state = "running"
            self.touch()

    def update(self, partial_result: Mapping[str, object]) -> None:
        self.output = output_text(partial_result.get("content"))
        self.details = partial_result.get("details")
        if self.state == "pending":
            self.state = "running"
        self.touch()

    def finish(self, result: Mapping[str, object], is_error: bool, duration_ms: int | None = None) -> None:
        self.result = result
        self.output = output_text(result.get("content"))
        self.details = result.get("details")
        self.is_error = bool(is_error or result.get("isError"))
        self.duration_ms = duration_ms
        self.state = "done"
        self.touch()

    def set_preview_diff(self, diff: str | None) -> None:
        """The diff an ``edit`` would make, computed by the caller before the tool runs."""
        self.preview_diff = diff
        self.touch()

    def render(self, width: int) -> list[str]:
        return self._cached(width, self.context.generation, self._render)

    def display(self) -> ToolDisplay:
        args = self.args if isinstance(self.args, Mapping) else {}
        output, context, error = self.output, self.context, self.is_error
        name = self.name
        if name == "bash":
            return format_bash(args, output, context)
        if name == "read":
            return format_read(args, output, error, context)
        if name == "edit":
            return format_edit(args, output, self.details, error, self.preview_diff, context)
        if name == "write":
            return format_write(args, output if error else None, error, context)
        if name in ("grep", "find", "ls"):
            return format_listing(name, args, output, error, context)
        return format_generic(name, self.label, self.args, output, error, context)

    def _custom(self, renderer: ToolRenderer, titles: list[str], body: list[str]) -> tuple[list[str], list[str]]:
        """An extension's rendering where it has one; built-in parts otherwise or when it fails."""
        context = self.context
        args = self.args if isinstance(self.args, Mapping) else {}
        render_call, render_result = renderer.render_call, renderer.render_result
        if render_call is not None:
            titles = guarded(lambda: render_call(args, context), context, f"{self.name} renderCall") or titles
        if render_result is not None and self.result is not None:
            result, failed = self.result, self.is_error
            rendered = guarded(lambda: render_result(result, failed, context), context, f"{self.name} renderResult")
            body = rendered if rendered is not None else body
        return titles, body

    def _render(self, width: int) -> list[str]:
        theme = self.context.theme
        inner = max(1, width - 2)
        shown = self.display()
        titles, body = [shown.title], shown.body
        custom = self.context.tool_renderers.get(self.name)
        if custom is not None:
            titles, body = self._custom(custom, titles, body)
        if self.duration_ms is not None and self.done:
            titles[-1] += theme.fg("muted", f" ({_format_duration(self.duration_ms)})")
        lines = wrap_all(titles, inner)
        if body:
            lines.append("")
            lines.extend(wrap_all(body, inner))
        token = "toolPendingBg" if not self.done else "toolErrorBg" if self.is_error else "toolSuccessBg"
        return box(lines, width, theme.bg_code(token))
