"""Splitting markdown into top-level blocks, incrementally while an answer streams.

Blocks end at a blank line followed by unindented text, before an unindented code fence and
after its closing fence. Everything but the last block is settled: text appended later cannot
change it, because each boundary was decided by a line that is already there. ``BlockSplitter``
uses that to split only the text from the start of the previous last block on each update.
"""

from __future__ import annotations

import re

FENCE_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


def closes_fence(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip()
    return (
        bool(stripped)
        and stripped[0] == fence[0]
        and len(stripped) >= fence[1]
        and stripped == stripped[0] * len(stripped)
    )


def split_with_offsets(text: str) -> list[tuple[int, str]]:
    """``(offset of the block's first line in text, block)`` for each top-level block."""
    blocks: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    fence: tuple[str, int] | None = None
    blank_pending = False
    offset = 0

    def flush() -> None:
        if current:
            blocks.append((start, "\n".join(current)))
            current.clear()

    for line in text.split("\n"):
        line_offset = offset
        offset += len(line) + 1
        if fence is not None:
            current.append(line)
            if closes_fence(line, fence):
                fence = None
                flush()
            continue
        if not line.strip():
            blank_pending = bool(current)
            continue
        opening = FENCE_RE.match(line)
        top_level_fence = opening is not None and not opening.group(1)
        if blank_pending:
            if line[0] in " \t" and not top_level_fence:
                current.append("")  # an indented continuation (list item paragraph, indented code)
            else:
                flush()
            blank_pending = False
        if opening is not None:
            if top_level_fence:
                flush()
            marker = opening.group(2)
            if not (marker[0] == "`" and "`" in opening.group(3)):
                fence = (marker[0], len(marker))
        if not current:
            start = line_offset
        current.append(line)
    flush()
    return blocks


def split_blocks(text: str) -> list[str]:
    return [block for _, block in split_with_offsets(text)]


class _Split:
    __slots__ = ("blocks", "last_start", "text")

    def __init__(self, text: str, blocks: list[str], last_start: int) -> None:
        self.text = text
        self.blocks = blocks
        self.last_start = last_start  # where the last block starts in ``text``

    def settled_prefix_of(self, text: str) -> bool:
        return len(self.blocks) > 1 and text.startswith(self.text[: self.last_start])


class BlockSplitter:
    """``split`` that reuses the settled blocks of a recent call when the text only grew.

    A few recent texts are remembered, so a response whose thinking and answer are rendered
    alternately keeps the benefit for both.
    """

    def __init__(self, memory: int = 4) -> None:
        self.memory = memory
        self._recent: list[_Split] = []

    def split(self, text: str) -> list[str]:
        base = max((s for s in self._recent if s.settled_prefix_of(text)), key=lambda s: s.last_start, default=None)
        if base is not None:
            tail = split_with_offsets(text[base.last_start :])
            blocks = base.blocks[:-1] + [block for _, block in tail]
            last_start = base.last_start + tail[-1][0] if tail else base.last_start
            self._recent.remove(base)
        else:
            pairs = split_with_offsets(text)
            blocks = [block for _, block in pairs]
            last_start = pairs[-1][0] if pairs else 0
        self._recent.append(_Split(text, blocks, last_start))
        del self._recent[: -self.memory]
        return blocks
