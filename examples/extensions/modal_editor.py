"""modal-editor: vim-like normal and insert modes for the prompt editor.

What it shows: an editor component whose ``handle_input(key)`` sees every key first and returns
``False`` for the keys it leaves to the built-in editor (and the app's keys: Enter, Ctrl+C,
Ctrl+D … keep working in both modes). In insert mode (the start) everything is typed as usual
and Escape switches to normal mode. In normal mode ``h j k l`` move, ``0``/``$`` go to the
start/end of the line, ``x`` deletes the character under the cursor, ``i`` inserts, ``a``
appends after the cursor; other letters are swallowed, and Escape goes on to the app (it stops
the agent when one is running). The mode is written into the bottom rule of the editor.

Load it with ``pi -e examples/extensions/modal_editor.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent


class ModalEditor:
    def __init__(self, context: Any, view: Any) -> None:
        self.view, self.theme = view, context.theme
        self.mode = "insert"

    @property
    def cursor(self) -> tuple[int, int] | None:
        cursor: tuple[int, int] | None = self.view.cursor
        return cursor

    def render(self, width: int) -> list[str]:
        lines: list[str] = self.view.render(width)
        label = " NORMAL " if self.mode == "normal" else " INSERT "
        if width > len(label) + 4:
            lines[-1] = self.theme.fg("borderMuted", "─" * (width - len(label) - 2)) + label + "──"
        return lines

    def handle_input(self, key: str) -> bool:
        editor = self.view.editor
        if self.mode == "insert":
            if key == "escape":
                self.mode = "normal"
                return True
            return False
        moves = {"h": editor.move_left, "l": editor.move_right, "k": editor.move_up, "j": editor.move_down,
                 "0": editor.move_line_start, "$": editor.move_line_end, "x": editor.delete_forward}  # fmt: skip
        if key in moves:
            moves[key]()
        elif key == "i":
            self.mode = "insert"
        elif key == "a":
            editor.move_right()
            self.mode = "insert"
        elif len(key) != 1:
            return False  # Enter, Escape, ctrl+…: the app's keys
        return True


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if ctx.has_ui:
            ctx.ui.set_editor_component(ModalEditor)
