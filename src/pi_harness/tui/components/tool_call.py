"""One tool call, from the streamed arguments to the result, on a state-coloured block.

The block keeps the context's output padding (``outputPad``) left and right, and one blank
row above and below. States: ``pending`` (arguments streaming or waiting to run), ``running`` (execution started,
partial output may arrive), ``done`` (``toolSuccessBg`` or ``toolErrorBg``).

A running ``bash`` call counts its time as Pi does: ``Elapsed 4.2s`` under the output, redrawn
every second (from the context's clock), and ``Took 4.2s`` once it finished. Image blocks of a
result are drawn under the output when the terminal can show them, else listed as placeholders.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pi_harness.tui.ansi import sanitize
from pi_harness.tui.components.base import CachedRender, RenderContext, ToolRenderer, box, guarded, wrap_all
from pi_harness.tui.components.content import blocks, content_text
from pi_harness.tui.components.images import image_rows, shows_images
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


def format_tool_duration(ms: int) -> str:
    """``4.2s`` below a minute, then ``1m 30s`` and ``2h 3m 4s`` (Pi's tool timer)."""
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    minutes, seconds = divmod(ms // 1000, 60)
    if minutes < 60:
        return f"{minutes}m {seconds}s"
    return f"{minutes // 60}h {minutes % 60}m {seconds}s"


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
        self.content: object = None
        self.started_at: float | None = None  # context.clock() when execution started
        self.ended_at: float | None = None
        self._shown_second = -1

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
        if self.started_at is None:
            self.started_at = self.context.clock()

    def update(self, partial_result: Mapping[str, object]) -> None:
        self._set_content(partial_result.get("content"))
        self.details = partial_result.get("details")
        if self.state == "pending":
            self.state = "running"
        if self.started_at is None:
            self.started_at = self.context.clock()
        self.touch()

    def finish(self, result: Mapping[str, object], is_error: bool, duration_ms: int | None = None) -> None:
        self.result = result
        self._set_content(result.get("content"))
        if self.started_at is not None and self.ended_at is None:
            self.ended_at = self.context.clock()
        self.details = result.get("details")
        self.is_error = bool(is_error or result.get("isError"))
        self.duration_ms = duration_ms
        self.state = "done"
        self.touch()

    def set_preview_diff(self, diff: str | None) -> None:
        """The diff an ``edit`` would make, computed by the caller before the tool runs."""
        self.preview_diff = diff
        self.touch()

    def _set_content(self, content: object) -> None:
        self.content = content
        self.output = sanitize(content_text(content, images=False)).rstrip("\n")

    def _images(self) -> list[Mapping[str, object]]:
        return [block for block in blocks(self.content) if block.get("type") == "image"]

    def render(self, width: int) -> list[str]:
        if self.state == "running" and self.started_at is not None and self.name == "bash":
            second = int(self.context.clock() - self.started_at)
            if second != self._shown_second:  # the live "Elapsed" moves on once a second
                self._shown_second = second
                self.touch()
        return self._cached(width, self.context.generation, self._render)

    def timer_text(self) -> str | None:
        """``Elapsed …`` while a bash call runs, ``Took …`` once it is done (None before it started)."""
        if self.done and self.duration_ms is not None:
            return f"Took {format_tool_duration(self.duration_ms)}"
        if self.started_at is None:
            return None
        end = self.ended_at if self.ended_at is not None else self.context.clock()
        label = "Took" if self.done else "Elapsed"
        return f"{label} {format_tool_duration(round((end - self.started_at) * 1000))}"

    def display(self) -> ToolDisplay:
        args = self.args if isinstance(self.args, Mapping) else {}
        output, context, error = self.output, self.context, self.is_error
        images = self._images()
        if images and not shows_images(context):
            placeholders = "\n".join(image_rows(block, context, 10_000, token="toolOutput")[0] for block in images)
            output = f"{output}\n{placeholders}" if output else placeholders
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
        inner = self.context.padded(width)
        shown = self.display()
        titles, body = [shown.title], shown.body
        custom = self.context.tool_renderers.get(self.name)
        if custom is not None:
            titles, body = self._custom(custom, titles, body)
        timer = self.timer_text() if self.name == "bash" else None
        if self.duration_ms is not None and self.done and timer is None:
            titles[-1] += theme.fg("muted", f" ({_format_duration(self.duration_ms)})")
        lines = wrap_all(titles, inner)
        if body:
            lines.append("")
            lines.extend(wrap_all(body, inner))
        if shows_images(self.context):
            for block in self._images():
                lines.append("")
                lines.extend(image_rows(block, self.context, inner))
        if timer is not None:
            lines.append("")
            lines.append(theme.fg("muted", timer))
        token = "toolPendingBg" if not self.done else "toolErrorBg" if self.is_error else "toolSuccessBg"
        return box(lines, width, theme.bg_code(token), pad_x=self.context.output_pad)
