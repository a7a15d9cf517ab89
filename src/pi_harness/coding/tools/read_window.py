"""Selecting lines of a text file for the read tool without holding the file in memory.

The file is consumed as a stream of chunks. Lines before the offset are only counted, the
selected lines are kept only as far as the head budget (2000 lines / 50 KB) can show them, and
the rest is counted, so a 100 MB file costs a few kilobytes of memory. The outcome equals
``truncate_head`` applied to ``lines[start:end]`` of the whole decoded file.
"""

from __future__ import annotations

from collections.abc import AsyncIterable
from dataclasses import dataclass, field

from pi_harness.coding.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    head_lines,
    truncate_head,
    utf8_len,
)


@dataclass
class TextWindow:
    total_lines: int  # lines in the whole file (text split on "\n")
    selected_lines: int
    selected_bytes: int
    first_line_bytes: int  # full size of the first selected line
    kept: list[str] = field(default_factory=list)  # leading selected lines, decoded
    # The last selected line is empty: the selected text ends with a newline (or is ""), which
    # Pi's line count does not count as a line of its own.
    last_line_empty: bool = False


class _WindowBuilder:
    def __init__(self, start: int, end: int | None, max_lines: int, max_bytes: int) -> None:
        self.start = start
        self.end = end  # exclusive line index, None = to the end of the file
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.line = 0  # index of the line the next byte belongs to
        self.storing = True
        self.current: list[bytes] = []
        self.current_size = 0
        self.kept: list[str] = []
        self.kept_bytes = 0
        self.selected_content_bytes = 0  # selected bytes without the separating newlines
        self.first_line_bytes = 0
        self.previous_byte: int | None = None  # the last byte of the chunks fed so far
        self.end_line_empty: bool | None = None  # line ``end - 1`` was empty (once passed)

    def _in_selection(self) -> bool:
        return self.line >= self.start and (self.end is None or self.line < self.end)

    def _skip_lines(self, chunk: bytes, pos: int, count: int) -> int:
        """Advance past ``count`` newlines from ``pos``; the position after the last one."""
        for _ in range(count):
            pos = chunk.index(b"\n", pos) + 1
        return pos

    def feed(self, chunk: bytes) -> None:
        if chunk:
            self._feed(chunk)
            self.previous_byte = chunk[-1]

    def _byte_before(self, chunk: bytes, index: int) -> int | None:
        return chunk[index - 1] if index > 0 else self.previous_byte

    def _feed(self, chunk: bytes) -> None:
        pos = 0
        size = len(chunk)
        while pos < size:
            if self.line < self.start:
                needed = self.start - self.line
                available = chunk.count(b"\n", pos)
                if available < needed:
                    self.line += available
                    return
                pos = self._skip_lines(chunk, pos, needed)
                self.line += needed
                continue
            if not self._in_selection():
                self.line += chunk.count(b"\n", pos)
                return
            if self.storing:
                if not self.current:
                    pos = self._store_lines(chunk, pos)  # whole lines at once, while they fit
                    if pos >= size or not self.storing or not self._in_selection():
                        continue
                newline = chunk.find(b"\n", pos)
                stop = size if newline < 0 else newline
                self._add_to_current(chunk[pos:stop])
                if newline < 0:
                    return
                self._finish_line()
                pos = newline + 1
                continue
            remaining = None if self.end is None else self.end - self.line
            available = chunk.count(b"\n", pos)
            if remaining is None or available < remaining:
                self.selected_content_bytes += size - pos - available
                self.line += available
                return
            new_pos = self._skip_lines(chunk, pos, remaining)
            # The newline ending line end-1 is at new_pos-1: the line is empty when a newline
            # (or the start of the file) comes right before it.
            before = self._byte_before(chunk, new_pos - 1)
            self.end_line_empty = before is None or before == 0x0A
            self.selected_content_bytes += new_pos - pos - remaining
            pos = new_pos
            self.line += remaining

    def _store_lines(self, chunk: bytes, pos: int) -> int:
        """``_add_to_current`` and ``_finish_line`` for each whole line from ``pos`` (a line
        start) while the selection goes on and the budget allows storing: the same outcome, a
        few operations a line. Returns the position after the last line stored."""
        kept = self.kept
        end = self.end
        max_lines, max_bytes = self.max_lines, self.max_bytes
        if end is None:
            pos = self._store_all_lines(chunk, pos)
        while True:
            newline = chunk.find(b"\n", pos)
            if newline < 0:
                return pos
            piece = chunk[pos:newline]
            length = newline - pos
            line = self.line
            if end is not None and line == end - 1:
                self.end_line_empty = length == 0
            if line == self.start:
                self.first_line_bytes += length
            self.selected_content_bytes += length
            kept.append(piece.decode("utf-8", "replace"))
            self.kept_bytes += length + (1 if len(kept) > 1 else 0)
            self.line = line + 1
            pos = newline + 1
            if len(kept) >= max_lines or self.kept_bytes > max_bytes:
                self.storing = False
                return pos
            if end is not None and self.line >= end:
                return pos

    def _store_all_lines(self, chunk: bytes, pos: int) -> int:
        """The whole lines from ``pos`` at once, when they all fit the budget and the selection
        runs to the end of the file (a small file read whole: most reads); else nothing. The
        outcome is that of storing them one by one (a newline never falls inside a UTF-8
        sequence, so decoding them together gives the same text)."""
        last = chunk.rfind(b"\n", pos)
        if last < 0:
            return pos
        count = chunk.count(b"\n", pos, last + 1)
        kept = self.kept
        content = last + 1 - pos - count  # the lines' bytes without their newlines
        kept_bytes = self.kept_bytes + content + count - (0 if kept else 1)
        if len(kept) + count >= self.max_lines or kept_bytes > self.max_bytes:
            return pos  # line by line: storing stops somewhere in there
        lines = chunk[pos:last].decode("utf-8", "replace").split("\n")
        if self.line == self.start:
            self.first_line_bytes += chunk.find(b"\n", pos) - pos
        kept.extend(lines)
        self.kept_bytes = kept_bytes
        self.selected_content_bytes += content
        self.line += count
        return last + 1

    def _add_to_current(self, piece: bytes) -> None:
        if self.current_size <= self.max_bytes:  # beyond that the line cannot be shown anyway
            self.current.append(piece)
        self.current_size += len(piece)
        self.selected_content_bytes += len(piece)
        if self.line == self.start:
            self.first_line_bytes += len(piece)

    def _finish_line(self) -> None:
        if self.end is not None and self.line == self.end - 1:
            self.end_line_empty = self.current_size == 0
        data = b"".join(self.current)
        self.kept.append(data.decode("utf-8", "replace"))
        self.kept_bytes += self.current_size + (1 if len(self.kept) > 1 else 0)
        self.current = []
        self.current_size = 0
        if len(self.kept) >= self.max_lines or self.kept_bytes > self.max_bytes:
            self.storing = False
        self.line += 1

    def finish(self) -> TextWindow:
        if self._in_selection() and self.storing:
            data = b"".join(self.current)
            self.kept.append(data.decode("utf-8", "replace"))
        total_lines = self.line + 1
        end = total_lines if self.end is None else min(self.end, total_lines)
        selected = max(0, end - self.start)
        if self.end_line_empty is not None:
            last_empty = self.end_line_empty
        else:  # the selection runs to the end of the file
            last_empty = self.previous_byte is None or self.previous_byte == 0x0A
        return TextWindow(
            total_lines=total_lines,
            selected_lines=selected,
            selected_bytes=self.selected_content_bytes + max(0, selected - 1),
            first_line_bytes=self.first_line_bytes,
            kept=self.kept[:selected],
            last_line_empty=selected > 0 and last_empty,
        )


def text_window(
    data: bytes,
    start: int,
    limit: int | None,
    *,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> TextWindow:
    """``read_text_window`` of a file already in memory."""
    end = None if limit is None else start + max(0, limit)
    builder = _WindowBuilder(start, end, max_lines, max_bytes)
    builder.feed(data)
    return builder.finish()


async def read_text_window(
    chunks: AsyncIterable[bytes],
    start: int,
    limit: int | None,
    *,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> TextWindow:
    """Lines ``start .. start+limit`` (0-based) of the streamed file, as far as they can be shown."""
    end = None if limit is None else start + max(0, limit)
    builder = _WindowBuilder(start, end, max_lines, max_bytes)
    async for chunk in chunks:
        builder.feed(chunk)
    return builder.finish()


def truncate_window(
    window: TextWindow, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """``truncate_head`` over the selected lines, computed from the window."""
    # Pi counts the selected text's lines: a final empty line (the text ends with a newline) is
    # not one, so neither the count nor the kept lines include it.
    counted = window.selected_lines - (1 if window.last_line_empty else 0)
    if counted == 0:
        return truncate_head("", max_lines=max_lines, max_bytes=max_bytes)
    lines = window.kept[:counted]
    result: TruncationResult = {
        "content": "",
        "truncated": False,
        "truncatedBy": None,
        "totalLines": counted,
        "totalBytes": window.selected_bytes,
        "outputLines": 0,
        "outputBytes": 0,
        "lastLinePartial": False,
        "firstLineExceedsLimit": False,
        "maxLines": max_lines,
        "maxBytes": max_bytes,
    }
    if counted <= max_lines and window.selected_bytes <= max_bytes:
        result["content"] = "\n".join(lines) + ("\n" if window.last_line_empty else "")
        result["outputLines"] = counted
        result["outputBytes"] = utf8_len(result["content"])
        return result
    result["truncated"] = True
    if window.first_line_bytes > max_bytes:
        result["truncatedBy"] = "bytes"
        result["firstLineExceedsLimit"] = True
        return result
    kept, truncated_by = head_lines(lines, max_lines, max_bytes)
    result["content"] = "\n".join(kept)
    result["truncatedBy"] = truncated_by
    result["outputLines"] = len(kept)
    result["outputBytes"] = utf8_len(result["content"])
    return result
