"""rainbow-editor: the word "ultrathink" shimmers in the editor.

What it shows: an editor component (``ctx.ui.set_editor_component``) that decorates what the
built-in editor draws and animates it with ``tick()``: every occurrence of ``ultrathink`` in the
text gets rainbow colours whose phase moves about ten times a second, as long as the word is
there (``tick`` returns True only then, so an idle editor is not redrawn). Editing keys stay
with the built-in editor.

Load it with ``pi -e examples/extensions/rainbow_editor.py`` and type ``ultrathink``.
"""

from __future__ import annotations

import re
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

WORD = re.compile("ultrathink", re.IGNORECASE)
COLOURS = (196, 208, 226, 46, 51, 21, 129)  # 256-colour red, orange, yellow, green, cyan, blue, violet


def rainbow(word: str, phase: int) -> str:
    painted = (f"\x1b[38;5;{COLOURS[(i + phase) % len(COLOURS)]}m{ch}" for i, ch in enumerate(word))
    return "".join(painted) + "\x1b[39m"


class RainbowEditor:
    def __init__(self, editor: Any) -> None:
        self.editor = editor
        self.phase = 0

    @property
    def cursor(self) -> tuple[int, int] | None:
        cursor: tuple[int, int] | None = self.editor.cursor
        return cursor

    def tick(self) -> bool:
        if WORD.search(self.editor.editor.text) is None:
            return False
        self.phase = (self.phase + 1) % len(COLOURS)
        return True

    def render(self, width: int) -> list[str]:
        lines: list[str] = self.editor.render(width)
        return [WORD.sub(lambda m: rainbow(m.group(0), self.phase), line) for line in lines]


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if ctx.has_ui:
            ctx.ui.set_editor_component(lambda context, editor: RainbowEditor(editor))
