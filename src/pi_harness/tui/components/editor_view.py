"""Draws the editor between two rules whose colour shows the thinking level (``bashMode`` for ``!``).

The cursor is drawn in reverse video (Pi hides the hardware cursor by default); ``cursor``
holds its row and column in the rendered lines for terminals that want the real one. When the
text is taller than ``max_rows`` the view scrolls to keep the cursor visible and says how many
rows are hidden above and below.
"""

from __future__ import annotations

from pi_harness.tui.ansi import visible_width
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.layout import visual_rows
from pi_harness.tui.theme import Theme, inverse


class EditorView:
    def __init__(
        self,
        editor: Editor,
        theme: Theme,
        *,
        padding_x: int = 0,
        max_rows: int = 12,
        thinking_level: str | None = None,
        focused: bool = True,
    ) -> None:
        self.editor = editor
        self.theme = theme
        self.padding_x = max(0, min(3, padding_x))
        self.max_rows = max(1, max_rows)
        self.thinking_level = thinking_level
        self.focused = focused
        self.cursor: tuple[int, int] | None = None
        self._scroll = 0

    def border_token(self) -> str:
        if self.editor.lines[0].startswith("!"):
            return "bashMode"
        return self.theme.thinking_token(self.thinking_level)

    def _rows(self, width: int) -> tuple[list[tuple[int, int, int]], int]:
        """Visual rows as ``(line, start, end)`` and the index of the cursor's row."""
        editor = self.editor
        rows: list[tuple[int, int, int]] = []
        cursor_row = 0
        for line_index, line in enumerate(editor.lines):
            segments = visual_rows(line, width)
            for segment_index, (start, end) in enumerate(segments):
                last = segment_index == len(segments) - 1
                if line_index == editor.row and (start <= editor.col < end or (last and editor.col >= start)):
                    cursor_row = len(rows)
                rows.append((line_index, start, end))
            if line_index == editor.row and editor.col == len(line) and line:
                start, end = segments[-1]
                if visible_width(line[start:end]) >= width:  # no room for the cursor after the text
                    rows.append((line_index, end, end))
                    cursor_row = len(rows) - 1
        return rows, cursor_row

    def render(self, width: int) -> list[str]:
        inner = max(1, width - 2 * self.padding_x)
        self.editor.layout_width = inner
        rows, cursor_row = self._rows(inner)
        if cursor_row < self._scroll:
            self._scroll = cursor_row
        elif cursor_row >= self._scroll + self.max_rows:
            self._scroll = cursor_row - self.max_rows + 1
        self._scroll = max(0, min(self._scroll, max(0, len(rows) - self.max_rows)))
        visible = rows[self._scroll : self._scroll + self.max_rows]
        token = self.border_token()
        above, below = self._scroll, max(0, len(rows) - self._scroll - len(visible))
        lines = [self._rule(width, token, f" ↑ {above} more " if above else "")]
        margin = " " * self.padding_x
        self.cursor = None
        for offset, (line_index, start, end) in enumerate(visible):
            text = self.editor.lines[line_index][start:end]
            if self._scroll + offset == cursor_row and self.focused:
                col = self.editor.col - start
                self.cursor = (len(lines), self.padding_x + visible_width(text[:col]))
                under = text[col : col + 1] or " "
                text = text[:col] + inverse(under) + text[col + 1 :]
            lines.append(margin + text)
        lines.append(self._rule(width, token, f" ↓ {below} more " if below else ""))
        return lines

    def _rule(self, width: int, token: str, label: str) -> str:
        if label and len(label) + 2 < width:
            return self.theme.fg(token, "─" * (width - len(label) - 2) + label + "──")
        return self.theme.fg(token, "─" * width)
