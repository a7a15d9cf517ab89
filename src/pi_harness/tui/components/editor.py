"""The prompt editor's model: a multi-line buffer with a cursor, history, kill ring and undo.

Large pastes are collapsed into a placeholder (``[Pasted text #1 +120 lines]``) that is expanded
on submit; a pasted path to an image file becomes ``[Image #1: name.png]`` and is returned as
an attachment. Placeholders are deleted as a whole. ``handle_action`` maps the ``tui.editor.*``
and ``tui.input.newLine`` actions of the key table to the operations; the view is separate
(``EditorView``).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

from pi_harness.tui.components.layout import visual_rows

PASTE_LINE_THRESHOLD = 10
PASTE_CHAR_THRESHOLD = 1000
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
_PLACEHOLDER_RE = re.compile(r"\[Pasted text #(\d+) (?:\+\d+ lines|\d+ chars)\]|\[Image #(\d+): [^\]\n]*\]")
_UNDO_LIMIT = 200
_KILL_RING_LIMIT = 30


@dataclass
class Submission:
    """What the user sent: the text with pastes expanded, and attached image paths."""

    text: str
    images: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Snapshot:
    lines: tuple[str, ...]
    row: int
    col: int


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class Editor:
    def __init__(self, *, history: list[str] | None = None, cwd: str | None = None, history_limit: int = 100) -> None:
        self.lines: list[str] = [""]
        self.row = 0
        self.col = 0
        self.cwd = cwd
        self.history: list[str] = list(history or [])
        self.history_limit = history_limit
        self.version = 0
        self.layout_width: int | None = None  # set by the view; up/down then move by visual rows
        self.on_change: Callable[[], None] | None = None
        self._history_index: int | None = None
        self._draft = ""
        self._pastes: dict[int, str] = {}
        self._images: dict[int, str] = {}
        self._paste_count = 0
        self._image_count = 0
        self._undo: list[_Snapshot] = []
        self._last_edit: str | None = None
        self._kill_ring: list[str] = []
        self._yank: tuple[int, int, int, int] | None = None  # row, start, end, ring index of the last yank

    # --- state -------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def is_empty(self) -> bool:
        return self.lines == [""]

    @property
    def current_line(self) -> str:
        return self.lines[self.row]

    @property
    def text_before_cursor(self) -> str:
        return self.lines[self.row][: self.col]

    def _changed(self, kind: str | None = None) -> None:
        self.version += 1
        self._last_edit = kind
        if kind is not None:
            self._history_index = None
        if kind != "yank":
            self._yank = None
        if self.on_change is not None:
            self.on_change()

    def _moved(self) -> None:
        self.version += 1
        self._last_edit = None
        self._yank = None

    def _checkpoint(self, kind: str) -> None:
        coalesce = kind == "insert" and self._last_edit == "insert"
        if not coalesce:
            self._undo.append(_Snapshot(tuple(self.lines), self.row, self.col))
            del self._undo[:-_UNDO_LIMIT]

    def set_text(self, text: str) -> None:
        """Replace the content (cursor at the end), e.g. for Alt+Up or an extension's ``setEditorText``."""
        self._checkpoint("set")
        self.lines = text.replace("\r\n", "\n").split("\n")
        self.row = len(self.lines) - 1
        self.col = len(self.lines[-1])
        self._changed("set")

    def clear(self) -> str:
        """Empty the editor and return what it held (Ctrl+C)."""
        text = self.text
        if not self.is_empty:
            self.set_text("")
        return text

    # --- inserting ---------------------------------------------------------------------------

    def insert(self, text: str) -> None:
        """Typed text; ``\\n`` starts a new line."""
        if not text:
            return
        self._checkpoint("insert" if "\n" not in text and not text.isspace() else "space")
        self._insert_raw(text)
        self._changed("insert" if not text.isspace() else "space")

    def _insert_raw(self, text: str) -> None:
        line = self.lines[self.row]
        before, after = line[: self.col], line[self.col :]
        pieces = text.split("\n")
        if len(pieces) == 1:
            self.lines[self.row] = before + text + after
            self.col += len(text)
            return
        new_lines = [before + pieces[0], *pieces[1:-1], pieces[-1] + after]
        self.lines[self.row : self.row + 1] = new_lines
        self.row += len(pieces) - 1
        self.col = len(pieces[-1])

    def replace_range(self, row: int, start: int, end: int, text: str) -> None:
        """Replace ``lines[row][start:end]`` by ``text`` and put the cursor after it (completion)."""
        self._checkpoint("replace")
        line = self.lines[row]
        self.lines[row] = line[:start] + line[end:]
        self.row, self.col = row, start
        self._insert_raw(text)
        self._changed("replace")

    def new_line(self) -> None:
        self._checkpoint("newline")
        self._insert_raw("\n")
        self._changed("newline")

    def paste(self, text: str) -> None:
        """Pasted text: an image path becomes an attachment, a large paste a placeholder."""
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
        image = self._image_path(text)
        if image is not None:
            self._image_count += 1
            self._images[self._image_count] = image
            text = f"[Image #{self._image_count}: {os.path.basename(image)}]"
        else:
            line_count = text.count("\n") + 1
            if line_count > PASTE_LINE_THRESHOLD or len(text) > PASTE_CHAR_THRESHOLD:
                self._paste_count += 1
                self._pastes[self._paste_count] = text
                size = f"+{line_count} lines" if line_count > 1 else f"{len(text)} chars"
                text = f"[Pasted text #{self._paste_count} {size}]"
        self._checkpoint("paste")
        self._insert_raw(text)
        self._changed("paste")

    def _image_path(self, text: str) -> str | None:
        candidate = text.strip()
        if not candidate or "\n" in candidate or len(candidate) > 4096:
            return None
        if len(candidate) >= 2 and candidate[0] == candidate[-1] and candidate[0] in "'\"":
            candidate = candidate[1:-1]
        if candidate.startswith("file://"):
            candidate = unquote(candidate[len("file://") :])
        candidate = os.path.expanduser(candidate.replace("\\ ", " "))
        if os.path.splitext(candidate)[1].lower() not in IMAGE_EXTENSIONS:
            return None
        if not os.path.isabs(candidate) and self.cwd:
            candidate = os.path.join(self.cwd, candidate)
        return os.path.abspath(candidate) if os.path.isfile(candidate) else None

    # --- deleting ----------------------------------------------------------------------------

    def _placeholder_before(self) -> re.Match[str] | None:
        before = self.lines[self.row][: self.col]
        for match in _PLACEHOLDER_RE.finditer(before):
            if match.end() == len(before) and self._known(match):
                return match
        return None

    def _placeholder_after(self) -> re.Match[str] | None:
        line = self.lines[self.row]
        match = _PLACEHOLDER_RE.match(line, self.col)
        return match if match is not None and self._known(match) else None

    def _known(self, match: re.Match[str]) -> bool:
        if match.group(1) is not None:
            return int(match.group(1)) in self._pastes
        return int(match.group(2)) in self._images

    def backspace(self) -> None:
        if self.col == 0 and self.row == 0:
            return
        self._checkpoint("delete")
        if self.col == 0:
            previous = self.lines[self.row - 1]
            self.lines[self.row - 1 : self.row + 1] = [previous + self.lines[self.row]]
            self.row -= 1
            self.col = len(previous)
        else:
            placeholder = self._placeholder_before()
            start = placeholder.start() if placeholder else self.col - 1
            line = self.lines[self.row]
            self.lines[self.row] = line[:start] + line[self.col :]
            self.col = start
        self._changed("delete")

    def delete_forward(self) -> None:
        line = self.lines[self.row]
        if self.col >= len(line) and self.row == len(self.lines) - 1:
            return
        self._checkpoint("delete")
        if self.col >= len(line):
            self.lines[self.row : self.row + 2] = [line + self.lines[self.row + 1]]
        else:
            placeholder = self._placeholder_after()
            end = placeholder.end() if placeholder else self.col + 1
            self.lines[self.row] = line[: self.col] + line[end:]
        self._changed("delete")

    def _word_start(self) -> int:
        line, index = self.lines[self.row], self.col
        while index > 0 and line[index - 1].isspace():
            index -= 1
        if index > 0 and _word_char(line[index - 1]):
            while index > 0 and _word_char(line[index - 1]):
                index -= 1
        else:
            while index > 0 and not line[index - 1].isspace() and not _word_char(line[index - 1]):
                index -= 1
        return index

    def _word_end(self) -> int:
        line, index = self.lines[self.row], self.col
        while index < len(line) and line[index].isspace():
            index += 1
        if index < len(line) and _word_char(line[index]):
            while index < len(line) and _word_char(line[index]):
                index += 1
        else:
            while index < len(line) and not line[index].isspace() and not _word_char(line[index]):
                index += 1
        return index

    def _kill(self, start: int, end: int) -> None:
        line = self.lines[self.row]
        if start == end:
            return
        self._checkpoint("kill")
        self._kill_ring.append(line[start:end])
        del self._kill_ring[:-_KILL_RING_LIMIT]
        self.lines[self.row] = line[:start] + line[end:]
        self.col = start
        self._changed("kill")

    def delete_word_backward(self) -> None:
        if self.col == 0:
            self.backspace()
        else:
            self._kill(self._word_start(), self.col)

    def delete_word_forward(self) -> None:
        if self.col >= len(self.lines[self.row]):
            self.delete_forward()
        else:
            self._kill(self.col, self._word_end())

    def delete_to_line_start(self) -> None:
        if self.col == 0:
            self.backspace()
        else:
            self._kill(0, self.col)

    def delete_to_line_end(self) -> None:
        if self.col >= len(self.lines[self.row]):
            self.delete_forward()
        else:
            self._kill(self.col, len(self.lines[self.row]))

    def yank(self) -> None:
        """Insert the most recently deleted text."""
        if not self._kill_ring:
            return
        text = self._kill_ring[-1]
        self._checkpoint("yank")
        start_row, start_col = self.row, self.col
        self._insert_raw(text)
        self._changed("yank")
        if start_row == self.row:
            self._yank = (self.row, start_col, self.col, len(self._kill_ring) - 1)

    def yank_pop(self) -> None:
        """Right after a yank: replace the yanked text with the previous kill."""
        if self._yank is None or len(self._kill_ring) < 2:
            return
        row, start, end, index = self._yank
        index = (index - 1) % len(self._kill_ring)
        text = self._kill_ring[index]
        line = self.lines[row]
        self.lines[row] = line[:start] + text + line[end:]
        self.row, self.col = row, start + len(text)
        self._changed("yank")
        self._yank = (row, start, self.col, index)

    def undo(self) -> None:
        if not self._undo:
            return
        snapshot = self._undo.pop()
        self.lines, self.row, self.col = list(snapshot.lines), snapshot.row, snapshot.col
        self.version += 1
        self._last_edit = None
        if self.on_change is not None:
            self.on_change()

    # --- moving ------------------------------------------------------------------------------

    def move_left(self) -> None:
        if self.col > 0:
            self.col -= 1
            while self.col > 0 and unicodedata.combining(self.lines[self.row][self.col]):
                self.col -= 1
        elif self.row > 0:
            self.row -= 1
            self.col = len(self.lines[self.row])
        self._moved()

    def move_right(self) -> None:
        line = self.lines[self.row]
        if self.col < len(line):
            self.col += 1
            while self.col < len(line) and unicodedata.combining(line[self.col]):
                self.col += 1
        elif self.row < len(self.lines) - 1:
            self.row += 1
            self.col = 0
        self._moved()

    def move_word_left(self) -> None:
        if self.col == 0:
            self.move_left()
            return
        self.col = self._word_start()
        self._moved()

    def move_word_right(self) -> None:
        if self.col >= len(self.lines[self.row]):
            self.move_right()
            return
        self.col = self._word_end()
        self._moved()

    def move_line_start(self) -> None:
        self.col = 0
        self._moved()

    def move_line_end(self) -> None:
        self.col = len(self.lines[self.row])
        self._moved()

    def move_to_start(self) -> None:
        self.row, self.col = 0, 0
        self._moved()

    def move_to_end(self) -> None:
        self.row = len(self.lines) - 1
        self.col = len(self.lines[-1])
        self._moved()

    def _rows(self, row: int) -> list[tuple[int, int]]:
        width = self.layout_width
        if width is None:
            return [(0, len(self.lines[row]))]
        return visual_rows(self.lines[row], width)

    def _row_index(self, rows: list[tuple[int, int]]) -> int:
        for index, (start, end) in enumerate(rows):
            if start <= self.col < end or (index == len(rows) - 1 and self.col >= start):
                return index
        return len(rows) - 1

    def move_up(self) -> bool:
        """One visual row up; at the top row, the previous history entry. False when nothing moved."""
        rows = self._rows(self.row)
        index = self._row_index(rows)
        offset = self.col - rows[index][0]
        if index > 0:
            start, end = rows[index - 1]
            self.col = min(start + offset, max(start, end - 1))
        elif self.row > 0:
            self.row -= 1
            rows = self._rows(self.row)
            start, end = rows[-1]
            self.col = min(start + offset, end)
        else:
            return self.history_previous()
        self._moved()
        return True

    def move_down(self) -> bool:
        """One visual row down; at the bottom row, the next history entry (or the draft)."""
        rows = self._rows(self.row)
        index = self._row_index(rows)
        offset = self.col - rows[index][0]
        if index < len(rows) - 1:
            start, end = rows[index + 1]
            self.col = min(start + offset, end if index + 1 == len(rows) - 1 else max(start, end - 1))
        elif self.row < len(self.lines) - 1:
            self.row += 1
            start, end = self._rows(self.row)[0]
            self.col = min(offset, end)
        else:
            return self.history_next()
        self._moved()
        return True

    # --- history -----------------------------------------------------------------------------

    def _show(self, text: str) -> None:
        self.lines = text.split("\n")
        self.row = len(self.lines) - 1
        self.col = len(self.lines[-1])
        self.version += 1
        if self.on_change is not None:
            self.on_change()

    def history_previous(self) -> bool:
        if not self.history:
            return False
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        else:
            return False
        self._show(self.history[self._history_index])
        return True

    def history_next(self) -> bool:
        if self._history_index is None:
            return False
        if self._history_index < len(self.history) - 1:
            self._history_index += 1
            self._show(self.history[self._history_index])
        else:
            self._history_index = None
            self._show(self._draft)
        return True

    def add_to_history(self, text: str) -> None:
        if text.strip() and (not self.history or self.history[-1] != text):
            self.history.append(text)
            del self.history[: -self.history_limit]

    # --- submitting --------------------------------------------------------------------------

    def expanded(self) -> Submission:
        """The current text with pastes expanded and image placeholders turned into attachments."""
        images: list[str] = []

        def replace(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return self._pastes.get(int(match.group(1)), match.group(0))
            path = self._images.get(int(match.group(2)))
            if path is None:
                return match.group(0)
            images.append(path)
            return ""

        text = _PLACEHOLDER_RE.sub(replace, self.text)
        return Submission(text.strip(), images)

    def submit(self) -> Submission | None:
        """Take the content (None when there is nothing to send), remember it, and clear the editor."""
        submission = self.expanded()
        if not submission.text and not submission.images:
            return None
        self.add_to_history(submission.text)
        self.lines, self.row, self.col = [""], 0, 0
        self._pastes.clear()
        self._images.clear()
        self._undo.clear()
        self._history_index = None
        self._changed("submit")
        return submission

    # --- the key table -----------------------------------------------------------------------

    def handle_action(self, action: str) -> bool:
        """Run a ``tui.editor.*`` (or ``tui.input.newLine``) action; False when it is not an editor action."""
        simple: dict[str, Callable[[], object]] = {
            "tui.editor.cursorUp": self.move_up,
            "tui.editor.cursorDown": self.move_down,
            "tui.editor.cursorLeft": self.move_left,
            "tui.editor.cursorRight": self.move_right,
            "tui.editor.cursorWordLeft": self.move_word_left,
            "tui.editor.cursorWordRight": self.move_word_right,
            "tui.editor.cursorLineStart": self.move_line_start,
            "tui.editor.cursorLineEnd": self.move_line_end,
            "tui.editor.pageUp": self.move_to_start,
            "tui.editor.pageDown": self.move_to_end,
            "tui.editor.historyPrevious": self.history_previous,
            "tui.editor.historyNext": self.history_next,
            "tui.editor.deleteCharBackward": self.backspace,
            "tui.editor.deleteCharForward": self.delete_forward,
            "tui.editor.deleteWordBackward": self.delete_word_backward,
            "tui.editor.deleteWordForward": self.delete_word_forward,
            "tui.editor.deleteToLineStart": self.delete_to_line_start,
            "tui.editor.deleteToLineEnd": self.delete_to_line_end,
            "tui.editor.yank": self.yank,
            "tui.editor.yankPop": self.yank_pop,
            "tui.editor.undo": self.undo,
            "tui.input.newLine": self.new_line,
        }
        operation = simple.get(action)
        if operation is None:
            return False
        operation()
        return True

    def jump_to_char(self, char: str, *, forward: bool = True) -> bool:
        """``tui.editor.jumpForward``/``jumpBackward``: move to the next/previous occurrence of ``char``."""
        line = self.lines[self.row]
        index = line.find(char, self.col + 1) if forward else line.rfind(char, 0, self.col)
        if index < 0:
            return False
        self.col = index
        self._moved()
        return True
