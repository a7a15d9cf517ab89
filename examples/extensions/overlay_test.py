"""overlay-test: a floating menu with text fields inside it, and awkward characters.

What it shows: an overlay (``ctx.ui.custom(..., overlay=True)``) placed on the right with a
fixed width, drawn over the conversation instead of the editor. ``/overlay-test`` opens a menu:
up/down choose a row; the two field rows (name, colour) take typed text and Backspace right in
the row, the toggle row flips with Enter or Space, and "Done" returns every value. Escape
cancels. Below the menu, rows with wide characters (CJK), emoji and styled text check that
cutting to the overlay's width keeps the frame intact.

Load it with ``pi -e examples/extensions/overlay_test.py`` and type ``/overlay-test``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def cells(text: str) -> int:
    """Terminal cells of ``text``: styles take none, wide characters (CJK, most emoji) two."""
    plain = ANSI.sub("", text)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 0 if unicodedata.combining(ch) else 1 for ch in plain)


EDGE_CASES = ("漢字と仮名の幅 (wide)", "emoji 🚀🎉✨ in a row", "\x1b[1mbold\x1b[0m and \x1b[3mitalic\x1b[0m text")


class OverlayMenu:
    def __init__(self, theme: Any, done: Any) -> None:
        self.theme, self.done = theme, done
        self.values: dict[str, Any] = {"name": "", "colour": "blue", "verbose": False}
        self.rows = ["name", "colour", "verbose", "done"]
        self.selected = 0

    def handle_input(self, key: str) -> None:
        row = self.rows[self.selected]
        if key == "escape":
            self.done(None)
        elif key in ("up", "down"):
            self.selected = (self.selected + (1 if key == "down" else -1)) % len(self.rows)
        elif row == "done" and key == "enter":
            self.done(dict(self.values))
        elif row == "verbose" and key in ("enter", "space"):
            self.values["verbose"] = not self.values["verbose"]
        elif row in ("name", "colour"):
            if key == "backspace":
                self.values[row] = self.values[row][:-1]
            elif key == "space":
                self.values[row] += " "
            elif len(key) == 1:
                self.values[row] += key

    def render(self, width: int) -> list[str]:
        theme = self.theme
        inner = max(4, width - 4)
        labels = {"name": f"Name:   {self.values['name']}▏", "colour": f"Colour: {self.values['colour']}▏",
                  "verbose": f"Verbose: [{'x' if self.values['verbose'] else ' '}]", "done": "Done"}  # fmt: skip
        rows = [theme.fg("borderAccent", "┌" + "─" * (inner + 2) + "┐")]
        for index, name in enumerate(self.rows):
            text = ("→ " if index == self.selected else "  ") + labels[name]
            text = text[:inner].ljust(inner)
            rows.append("│ " + (theme.style(text, "accent", bold=True) if index == self.selected else text) + " │")
        rows.append("├" + "─" * (inner + 2) + "┤")
        rows.extend("│ " + case + " " * max(0, inner - cells(case)) + " │" for case in EDGE_CASES)
        rows.append(theme.fg("borderAccent", "└" + "─" * (inner + 2) + "┘"))
        return rows


def extension(pi: ExtensionAPI) -> None:
    @pi.command("overlay-test", description="A floating menu with text fields")
    async def overlay_test(args: str, ctx: ExtensionCommandContext) -> None:
        values = await ctx.ui.custom(
            lambda context, done: OverlayMenu(context.theme, done),
            overlay=True,
            overlay_options={"width": 48, "anchor": "right", "margin": 2},
        )
        if values is None:
            ctx.ui.notify("Overlay cancelled", "info")
        else:
            ctx.ui.notify(f"name={values['name']!r} colour={values['colour']!r} verbose={values['verbose']}", "info")
