"""An assistant response: text as markdown, thinking dimmed and italic (or collapsed to one line).

Tool calls in the message are drawn by their own ``ToolCallView``s; this view shows the text
and thinking blocks and, at the end, the error of a failed or aborted response, all inside the
context's output padding (``outputPad``: one blank column left and right, or none).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from pi_harness.tui.ansi import wrap
from pi_harness.tui.components.base import CachedRender, RenderContext
from pi_harness.tui.components.content import blocks

ABORTED_TEXT = "Operation aborted"
THINKING_COLLAPSED_TEXT = "Thinking…"
# While streaming, one render lays out new settled markdown for at most this long; the rest
# follows in the next frames (``behind``), so a key typed meanwhile is drawn without waiting.
FRAME_BUDGET = 0.008


class AssistantMessageView(CachedRender):
    def __init__(self, message: Mapping[str, object], context: RenderContext, *, streaming: bool = False) -> None:
        self.message = message
        self.context = context
        self.streaming = streaming
        self.behind = False  # the last render stopped early; render again soon to catch up

    def update(self, message: Mapping[str, object]) -> None:
        """A newer partial message while streaming."""
        self.message = message
        self.touch()

    def finish(self, message: Mapping[str, object]) -> None:
        self.message = message
        self.streaming = False
        self.touch()

    def _visible(self, block: Mapping[str, object]) -> bool:
        kind = block.get("type")
        if kind == "text":
            return bool(str(block.get("text", "")).strip())
        if kind == "thinking":
            return bool(str(block.get("thinking", "")).strip()) or bool(block.get("redacted"))
        return False

    def render(self, width: int) -> list[str]:
        return self.render_stable(width)[0]

    def render_stable(self, width: int) -> tuple[list[str], int]:
        """Lines, and how many leading lines cannot change while the response keeps streaming."""
        lines = self._cached(width, self.context.generation, self._render_with_stable)
        return lines, self._stable

    _stable = 0  # set together with the cached lines

    def _render_with_stable(self, width: int) -> list[str]:
        pad = " " * self.context.output_pad
        inner = self.context.padded(width)
        lines: list[str] = []
        stable = 0
        self.behind = False
        shown = [block for block in blocks(self.message.get("content")) if self._visible(block)]
        for index, block in enumerate(shown):
            if lines:
                lines.append("")
            last = index == len(shown) - 1
            block_lines, block_stable = self._render_block(block, width, last and self.streaming)
            if last:
                stable = len(lines) + block_stable  # only the last block can still grow
            lines.extend(block_lines)
        if self.behind:
            self.touch()  # not the whole text yet: the next render goes on
        error = self._error_line()
        if error:
            if lines:
                lines.append("")
            lines.extend(pad + row for row in wrap(error, inner))
        self._stable = stable if self.streaming else len(lines)
        return lines

    def _render_block(self, block: Mapping[str, object], width: int, paced: bool) -> tuple[list[str], int]:
        theme = self.context.theme
        markdown = self.context.markdown
        pad = self.context.output_pad
        if block.get("type") == "thinking":
            if self.context.hide_thinking or block.get("redacted"):
                label = self.context.hidden_thinking_label or THINKING_COLLAPSED_TEXT
                styled = theme.style(label, "thinkingText", italic=True)
                rows = [" " * pad + row for row in wrap(styled, self.context.padded(width))]
                return rows, len(rows)
            text, style = str(block.get("thinking", "")).strip(), "thinking"
        else:
            text, style = str(block.get("text", "")).strip(), ""
        deadline = time.perf_counter() + FRAME_BUDGET if paced else None
        # Pi draws diagrams in answers only (not thinking); "final" waits for the finished message.
        mermaid = self.context.mermaid
        diagrams = style == "" and (mermaid == "streaming" or (mermaid == "final" and not self.streaming))
        # The indent is the left padding; giving the markdown ``width - pad`` keeps the right one free.
        lines, stable, behind = markdown.render_within(
            text, width - pad, style=style, indent=" " * pad, deadline=deadline, diagrams=diagrams
        )
        self.behind = self.behind or behind
        if mermaid == "final" and self.streaming and style == "" and "mermaid" in text:
            stable = 0  # a diagram will replace the code when the answer ends: nothing is settled yet
        return lines, stable

    def _error_line(self) -> str:
        reason = self.message.get("stopReason")
        theme = self.context.theme
        if reason == "aborted":
            return theme.fg("error", ABORTED_TEXT)
        if reason == "error":
            return theme.fg("error", f"Error: {self.message.get('errorMessage') or 'unknown error'}")
        return ""
