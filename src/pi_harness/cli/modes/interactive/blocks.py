"""A titled block of label/value rows for command output (``/session``, ``/hotkeys``)."""

from __future__ import annotations

from collections.abc import Sequence

from pi_harness.tui.ansi import pad, truncate, visible_width, wrap
from pi_harness.tui.components.base import RenderContext


class TextBlock:
    def __init__(self, title: str, rows: Sequence[tuple[str, str]], context: RenderContext) -> None:
        self.title = title
        self.rows = list(rows)
        self.context = context

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        lines = [truncate(" " + theme.style(self.title, "accent", bold=True), width)]
        label_width = min(max((visible_width(label) for label, _ in self.rows), default=0), max(8, width // 3))
        indent = 3 + label_width + 2
        for label, value in self.rows:
            head = "   " + theme.fg("muted", pad(truncate(label, label_width), label_width)) + "  "
            body = wrap(value, max(1, width - indent)) or [""]
            lines.append(truncate(head + body[0], width))
            lines.extend(truncate(" " * indent + row, width) for row in body[1:])
        return lines
