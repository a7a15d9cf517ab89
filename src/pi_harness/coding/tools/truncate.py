"""Output budgets shared by the tools.

Tools never hand unbounded text to the model: ``truncate_head`` keeps the beginning (read, grep,
find, ls), ``truncate_tail`` keeps the end (bash). Both keep whole lines; the result record is
stored in ``details.truncation`` with Pi's camelCase keys. Lines are counted as Pi counts them
(``count_lines``): empty text has none and a trailing newline adds none.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, TypedDict

from pi_harness.agent.types import AgentToolResult
from pi_harness.coding.tools.results import text_result

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
UNLIMITED_LINES = 2**53 - 1  # what Pi passes as "no line limit" (Number.MAX_SAFE_INTEGER)


class TruncationResult(TypedDict):
    content: str
    truncated: bool
    truncatedBy: Literal["lines", "bytes"] | None
    totalLines: int
    totalBytes: int
    outputLines: int
    outputBytes: int
    lastLinePartial: bool
    firstLineExceedsLimit: bool
    maxLines: int
    maxBytes: int


def to_fixed(value: float, digits: int) -> str:
    """JavaScript's ``Number.prototype.toFixed``: halves round away from zero, not to even."""
    from decimal import ROUND_HALF_UP, Decimal  # here: ``decimal`` is a slow import, rarely needed

    quantum = Decimal(1).scaleb(-digits)
    return str(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


def format_size(num_bytes: int) -> str:
    """Pi's ``formatSize``: ``512B``, ``50.0KB``, ``1.5MB``."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{to_fixed(num_bytes / 1024, 1)}KB"
    return f"{to_fixed(num_bytes / (1024 * 1024), 1)}MB"


def utf8_len(text: str) -> int:
    # Lone surrogates cannot be encoded strictly; count them like their replacement would be.
    return len(text.encode("utf-8", "surrogatepass"))


class _Totals(NamedTuple):
    lines: int
    bytes: int
    max_lines: int
    max_bytes: int


def _result(
    content: str,
    totals: _Totals,
    *,
    truncated_by: Literal["lines", "bytes"] | None,
    output_lines: int,
    last_line_partial: bool = False,
    first_line_exceeds_limit: bool = False,
) -> TruncationResult:
    return {
        "content": content,
        "truncated": truncated_by is not None,
        "truncatedBy": truncated_by,
        "totalLines": totals.lines,
        "totalBytes": totals.bytes,
        "outputLines": output_lines,
        "outputBytes": utf8_len(content),
        "lastLinePartial": last_line_partial,
        "firstLineExceedsLimit": first_line_exceeds_limit,
        "maxLines": totals.max_lines,
        "maxBytes": totals.max_bytes,
    }


def truncate_head(
    text: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the first whole lines that fit both limits.

    A first line that alone exceeds ``max_bytes`` yields empty content with
    ``firstLineExceedsLimit`` so the caller can point at another way of reading it.
    """
    lines, totals, whole = _measure(text, max_lines, max_bytes)
    if whole is not None:
        return whole
    if utf8_len(lines[0]) > max_bytes:
        return _result("", totals, truncated_by="bytes", output_lines=0, first_line_exceeds_limit=True)
    kept, truncated_by = head_lines(lines, max_lines, max_bytes)
    return _result("\n".join(kept), totals, truncated_by=truncated_by, output_lines=len(kept))


def head_lines(lines: list[str], max_lines: int, max_bytes: int) -> tuple[list[str], Literal["lines", "bytes"]]:
    """The first whole lines within both budgets, and which budget stopped them."""
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines[:max_lines]):
        cost = utf8_len(line) + (1 if index > 0 else 0)
        if used + cost > max_bytes:
            return kept, "bytes"
        kept.append(line)
        used += cost
    return kept, "lines"


def count_lines(text: str) -> list[str]:
    """The lines of ``text`` as Pi counts them: none for "", and a final newline ends the last
    line rather than starting an empty one (``"a\\n"`` is one line, ``"a\\n\\n"`` two)."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _measure(text: str, max_lines: int, max_bytes: int) -> tuple[list[str], _Totals, TruncationResult | None]:
    """The lines and totals of ``text``, and the untruncated result when it fits both budgets."""
    lines = count_lines(text)
    totals = _Totals(len(lines), utf8_len(text), max_lines, max_bytes)
    if totals.lines <= max_lines and totals.bytes <= max_bytes:
        return lines, totals, _result(text, totals, truncated_by=None, output_lines=totals.lines)
    return lines, totals, None


def _tail_bytes(line: str, max_bytes: int) -> str:
    """The last ``max_bytes`` bytes of ``line``, starting at a character boundary."""
    data = line.encode("utf-8", "surrogatepass")[-max_bytes:]
    start = 0
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "replace")


def truncate_tail(
    text: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the last whole lines that fit; a last line longer than ``max_bytes`` keeps its end."""
    lines, totals, whole = _measure(text, max_lines, max_bytes)
    if whole is not None:
        return whole
    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                kept.append(_tail_bytes(line, max_bytes))
                partial = True
            break
        kept.append(line)
        used += cost
    kept.reverse()
    content = "\n".join(kept)
    return _result(content, totals, truncated_by=truncated_by, output_lines=len(kept), last_line_partial=partial)


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """``(text, was_truncated)``: lines longer than ``max_chars`` end in ``... [truncated]``."""
    if len(line) <= max_chars:
        return line, False
    return line[:max_chars] + "... [truncated]", True


class ListingNotices:
    """The bracketed notices after a listing (``[100 matches limit reached. ...]``) and the
    matching ``details`` keys, shared by grep, find and ls."""

    def __init__(self, text: str) -> None:
        self.truncation = truncate_head(text, max_lines=UNLIMITED_LINES, max_bytes=DEFAULT_MAX_BYTES)
        self._pending_truncation = self.truncation["truncated"]
        self.notices: list[str] = []
        self.details: dict[str, object] = {}

    def add(self, notice: str, key: str, value: object) -> None:
        self.notices.append(notice)
        self.details[key] = value

    def add_limit(self, limit: int, what: str, key: str, *, refine: bool = True) -> None:
        """The notice that ``limit`` cut the listing short, naming the limit to ask for next."""
        notice = f"{limit} {what} limit reached. Use limit={limit * 2} for more"
        self.add(f"{notice}, or refine pattern" if refine else notice, key, limit)

    def add_truncation(self) -> None:
        """The byte-limit notice, placed where the caller wants it in the order."""
        if self._pending_truncation:
            self.add(f"{format_size(DEFAULT_MAX_BYTES)} limit reached", "truncation", self.truncation)
            self._pending_truncation = False

    def text(self) -> str:
        self.add_truncation()
        output = self.truncation["content"]
        return f"{output}\n\n[{'. '.join(self.notices)}]" if self.notices else output

    def result(self) -> AgentToolResult:
        """The listing with its notices, and the ``details`` keys when there are any."""
        return text_result(self.text(), self.details or None)
