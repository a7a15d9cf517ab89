"""Markdown tables drawn with box-drawing borders, fitted to the width, cells wrapped.

The layout follows Pi: every column gets its natural width when the table fits; otherwise each
column keeps room for its longest word (words longer than 30 cells may break) and the space
left is shared in proportion to how much each column would still grow. Rows are separated by
``├─┼─┤`` lines, the header is bold, and a table too narrow for one cell per column falls back
to its markdown source.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import TableElement as RichTableElement
from rich.style import Style
from rich.text import Text

__all__ = ["TableElement", "column_widths"]

MAX_UNBROKEN_WORD = 30


def _longest_word(text: Text) -> int:
    return max((Text(word).cell_len for word in text.plain.split()), default=0)


def _share(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split by ``weights`` (rounded down)."""
    weight_sum = sum(weights)
    return [total * weight // weight_sum if weight_sum > 0 else 0 for weight in weights]


def _minimum_widths(words: Sequence[int], room: int) -> list[int]:
    """Per column: its longest word, or (when those do not fit) 1 plus a share of what is left."""
    if sum(words) <= room:
        return list(words)
    spare = room - len(words)
    widths = [1] * len(words)
    if spare > 0:
        growth = _share(spare, [max(0, word - 1) for word in words])
        widths = [width + grow for width, grow in zip(widths, growth, strict=True)]
        leftover = spare - sum(growth)
        for index in range(min(leftover, len(widths))):
            widths[index] += 1
    return widths


def column_widths(natural: Sequence[int], words: Sequence[int], available: int) -> list[int] | None:
    """Cell widths of the columns for a table ``available`` cells wide, or None when it cannot fit.

    ``natural`` is each column's widest cell, ``words`` its longest word (capped).
    """
    count = len(natural)
    room = available - (3 * count + 1)  # "│ " + " │ " between cells + " │"
    if count == 0 or room < count:
        return None
    minimum = _minimum_widths(words, room)
    if sum(natural) + 3 * count + 1 <= available:
        return [max(width, low) for width, low in zip(natural, minimum, strict=True)]
    potential = [max(0, width - low) for width, low in zip(natural, minimum, strict=True)]
    extra = max(0, room - sum(minimum))
    widths = [low + grow for low, grow in zip(minimum, _share(extra, potential), strict=True)]
    remaining = room - sum(widths)
    while remaining > 0:
        grew = False
        for index in range(count):
            if remaining > 0 and widths[index] < natural[index]:
                widths[index] += 1
                remaining -= 1
                grew = True
        if not grew:
            break
    return widths


def _pad(line: Text, width: int) -> Text:
    out = line.copy()
    out.append(" " * max(0, width - out.cell_len))
    return out


def _rule(edge: str, widths: list[int]) -> Text:
    left, join, right = edge[0], edge[1], edge[2]
    return Text(
        f"{left}─" + f"─{join}─".join("─" * width for width in widths) + f"─{right}", no_wrap=True, overflow="crop"
    )


class TableElement(RichTableElement):
    """rich's markdown table element, drawn the way Pi draws tables."""

    def _rows(self) -> tuple[list[Text], list[list[Text]]]:
        header = [cell.content for cell in self.header.row.cells] if self.header and self.header.row else []
        body = [[cell.content for cell in row.cells] for row in self.body.rows] if self.body else []
        return header, body

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        header, body = self._rows()
        count = len(header)
        if count == 0:
            return
        rows = [row[:count] + [Text()] * (count - len(row)) for row in body]
        every = [header, *rows]
        natural = [max(row[index].cell_len for row in every) for index in range(count)]
        words = [
            max(1, *(min(_longest_word(row[index]), MAX_UNBROKEN_WORD) for row in every)) for index in range(count)
        ]
        widths = column_widths(natural, words, options.max_width)
        if widths is None:
            source = "\n".join("| " + " | ".join(cell.plain for cell in row) + " |" for row in every)
            yield Text(source)
            return
        top, middle, bottom = (_rule(edge, widths) for edge in ("┌┬┐", "├┼┤", "└┴┘"))
        yield top
        yield from self._row(console, header, widths, Style(bold=True))
        yield middle
        for index, row in enumerate(rows):
            yield from self._row(console, row, widths, None)
            if index < len(rows) - 1:
                yield middle
        yield bottom

    @staticmethod
    def _row(console: Console, cells: list[Text], widths: list[int], style: Style | None) -> RenderResult:
        wrapped = [
            list(cell.wrap(console, width, overflow="fold")) or [Text()]
            for cell, width in zip(cells, widths, strict=True)
        ]
        for line_index in range(max(len(lines) for lines in wrapped)):
            out = Text("│ ")
            for column, lines in enumerate(wrapped):
                part = lines[line_index] if line_index < len(lines) else Text()
                part = _pad(part.copy(), widths[column])
                if style is not None:
                    part.stylize(style)
                if column:
                    out.append(" │ ")
                out.append_text(part)
            out.append(" │")
            out.no_wrap = True
            out.overflow = "crop"
            yield out
