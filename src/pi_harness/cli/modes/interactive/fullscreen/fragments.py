"""Small operations on prompt_toolkit fragment lists: restyle a character range, cut at a cell
column, pad to a width. Character indices match ``strip_ansi`` of the source line, because
``ansi_to_fragments`` keeps exactly the visible characters."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth


def restyle(fragments: StyleAndTextTuples, start: int, end: int, extra: str) -> StyleAndTextTuples:
    """``fragments`` with ``extra`` added to the style of characters ``start`` to ``end``."""
    if start >= end:
        return fragments
    out: StyleAndTextTuples = []
    position = 0
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        stop = position + len(text)
        if stop <= start or position >= end:
            out.append((style, text))
        else:
            left, right = max(start, position) - position, min(end, stop) - position
            if left:
                out.append((style, text[:left]))
            out.append((f"{style} {extra}", text[left:right]))
            if right < len(text):
                out.append((style, text[right:]))
        position = stop
    return out


def width_of(fragments: StyleAndTextTuples) -> int:
    return sum(get_cwidth(fragment[1]) for fragment in fragments)


def cut(fragments: StyleAndTextTuples, cells: int) -> StyleAndTextTuples:
    """The first ``cells`` cells of the line, padded with spaces to exactly that width."""
    out: StyleAndTextTuples = []
    used = 0
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        width = get_cwidth(text)
        if used + width <= cells:
            out.append((style, text))
            used += width
            continue
        taken = []
        for char in text:
            char_width = get_cwidth(char)
            if used + char_width > cells:
                break
            taken.append(char)
            used += char_width
        if taken:
            out.append((style, "".join(taken)))
        break
    if used < cells:
        out.append(("", " " * (cells - used)))
    return out


def overlay(base: StyleAndTextTuples, top: StyleAndTextTuples, column: int, width: int) -> StyleAndTextTuples:
    """``top`` drawn over ``base`` from ``column`` on, the row padded to ``width`` cells (what
    ``base`` had after ``top`` is dropped: a bar or box drawn over text reads better alone)."""
    row = [*cut(base, column), *top]
    return cut(row, width)
