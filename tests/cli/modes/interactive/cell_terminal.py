"""A small terminal model for checking the byte stream fullscreen mode writes: which URL each cell
is linked to (OSC 8) and which kitty graphics commands arrived at which cell.

It knows what prompt_toolkit and the kitty layer send: printable characters, CR/LF/BS, cursor moves
(CUP, CUU/CUD/CUF/CUB), erase in line/display, DECSC/DECRC, the alternate screen, OSC and APC
strings. Colours and modes are read and ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wcwidth import wcwidth

_CSI = re.compile(r"\x1b\[([0-9;:?<=>]*)[ -/]*([@-~])")
_STRING = re.compile(r"\x1b([\]_P^])(.*?)(?:\x07|\x1b\\)", re.S)


@dataclass
class Cell:
    char: str = " "
    link: str | None = None


@dataclass
class Graphic:
    """One kitty graphics command: where the cursor was, its control keys."""

    row: int
    column: int
    controls: dict[str, str]


@dataclass
class CellTerminal:
    rows: int
    columns: int
    cells: list[list[Cell]] = field(default_factory=list)
    graphics: list[Graphic] = field(default_factory=list)
    row: int = 0
    column: int = 0
    link: str | None = None
    _saved: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        self.cells = [[Cell() for _ in range(self.columns)] for _ in range(self.rows)]

    def feed(self, data: str) -> None:
        index = 0
        while index < len(data):
            char = data[index]
            if char == "\x1b":
                index = self._escape(data, index)
                continue
            if char == "\r":
                self.column = 0
            elif char == "\b":
                self.column = max(0, self.column - 1)
            elif char == "\n":
                self.row = min(self.rows - 1, self.row + 1)
            elif char >= " ":
                self._put(char)
            index += 1

    def _put(self, char: str) -> None:
        width = max(0, wcwidth(char))
        if width == 0 or self.row >= self.rows:
            return
        if self.column < self.columns:
            self.cells[self.row][self.column] = Cell(char, self.link)
        if width == 2 and self.column + 1 < self.columns:
            self.cells[self.row][self.column + 1] = Cell("", self.link)
        self.column = min(self.columns - 1, self.column + width)  # no autowrap: the last column holds

    def _escape(self, data: str, index: int) -> int:
        following = data[index + 1 : index + 2]
        if following in ("7", "8"):
            if following == "7":
                self._saved = (self.row, self.column)
            else:
                self.row, self.column = self._saved
            return index + 2
        string = _STRING.match(data, index)
        if string is not None:
            kind, body = string.group(1), string.group(2)
            if kind == "]" and body.startswith("8;"):
                url = body.split(";", 2)[2] if body.count(";") >= 2 else ""
                self.link = url or None
            elif kind == "_" and body.startswith("G"):
                controls = body[1:].split(";", 1)[0]
                pairs = dict(part.split("=", 1) for part in controls.split(",") if "=" in part)
                self.graphics.append(Graphic(self.row, self.column, pairs))
            return string.end()
        csi = _CSI.match(data, index)
        if csi is None:
            return index + 2
        self._csi(csi.group(1), csi.group(2))
        return csi.end()

    def _csi(self, params: str, final: str) -> None:
        if params.startswith("?"):
            if params in ("?1049h", "?1049l") or (params == "?1049" and final in "hl"):
                self.cells = [[Cell() for _ in range(self.columns)] for _ in range(self.rows)]
            return
        numbers = [int(part) if part.isdigit() else 0 for part in params.split(";")] if params else []
        first = numbers[0] if numbers else 0
        if final == "H":
            self.row = max(1, first) - 1
            self.column = max(1, numbers[1] if len(numbers) > 1 else 1) - 1
        elif final in "ABCD":
            step = max(1, first)
            if final == "A":
                self.row = max(0, self.row - step)
            elif final == "B":
                self.row = min(self.rows - 1, self.row + step)
            elif final == "C":
                self.column = min(self.columns - 1, self.column + step)
            else:
                self.column = max(0, self.column - step)
        elif final == "K":
            start, stop = {0: (self.column, self.columns), 1: (0, self.column + 1), 2: (0, self.columns)}[first]
            for column in range(start, stop):
                self.cells[self.row][column] = Cell()
        elif final == "J":
            rows = range(self.row + 1, self.rows) if first == 0 else range(self.rows)
            if first == 0:
                for column in range(self.column, self.columns):
                    self.cells[self.row][column] = Cell()
            for row in rows:
                self.cells[row] = [Cell() for _ in range(self.columns)]

    # --- reading ----------------------------------------------------------------------------------

    def text(self, row: int) -> str:
        return "".join(cell.char for cell in self.cells[row])

    def links(self, row: int) -> list[tuple[str, str]]:
        """The linked runs of a row: (text, url), in order."""
        runs: list[tuple[str, str]] = []
        current: str | None = None
        for cell in self.cells[row]:
            if cell.link is not None and cell.link == current:
                runs[-1] = (runs[-1][0] + cell.char, current)
            elif cell.link is not None:
                runs.append((cell.char, cell.link))
            current = cell.link
        return runs

    def find(self, text: str) -> tuple[int, int] | None:
        for row in range(self.rows):
            column = self.text(row).find(text)
            if column >= 0:
                return row, column
        return None
