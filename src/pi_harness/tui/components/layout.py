"""Where a plain text line wraps: the editor needs character offsets, not wrapped strings."""

from __future__ import annotations

from functools import lru_cache

from rich.cells import split_graphemes


@lru_cache(maxsize=4096)
def visual_rows(line: str, width: int) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the rows ``line`` occupies at ``width`` cells, breaking after spaces.

    Every offset of the line falls in exactly one row (the end of the line in the last one).
    """
    width = max(1, width)
    if not line:
        return [(0, 0)]
    spans = [(i, i + 1, 1) for i in range(len(line))] if line.isascii() else split_graphemes(line)[0]
    rows: list[tuple[int, int]] = []
    row_first = 0  # index in spans of the current row's first grapheme
    used = 0
    after_space: int | None = None  # index in spans just after the current row's last space
    for index, (start, end, cells) in enumerate(spans):
        if used + cells > width and index > row_first:
            is_space = line[start:end] == " "
            cut = after_space if not is_space and after_space is not None and after_space > row_first else index
            rows.append((spans[row_first][0], spans[cut][0]))
            row_first = cut
            used = sum(span[2] for span in spans[cut:index])
            after_space = None
        used += cells
        if line[start:end] == " ":
            after_space = index + 1
    rows.append((spans[row_first][0], len(line)))
    return rows
