"""Memory-bounded capture of a command's output.

Only a rolling window of the most recent output (at least ``2 × 50 KB``, whole chunks) is kept in
memory. Once the output passes 50 KB everything is also written to
``<tmpdir>/pi-bash-<16 hex>.log``, so the model can be pointed at the full text. Line and byte
counts cover the whole output, not just the window.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections import deque
from typing import BinaryIO, NotRequired, TypedDict

from pi_harness.coding.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_tail,
)


class BashDetails(TypedDict, total=False):
    truncation: TruncationResult
    fullOutputPath: str


class CommandOutput(TypedDict):
    """The formatted end state of a command's output."""

    text: str  # tail-truncated output plus the truncation notice; "" when there was no output
    truncated: bool
    details: BashDetails
    fullOutputPath: NotRequired[str]


def temp_output_path(directory: str | None = None) -> str:
    return os.path.join(directory or tempfile.gettempdir(), f"pi-bash-{secrets.token_hex(8)}.log")


class OutputCollector:
    """Collects raw output chunks; keeps the tail in memory and spills the whole to a file."""

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_BYTES, temp_dir: str | None = None) -> None:
        self._max_bytes = max_bytes
        self._window_bytes = 2 * max_bytes
        self._temp_dir = temp_dir
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self._file: BinaryIO | None = None
        self.full_output_path: str | None = None
        self.total_bytes = 0
        self.newlines = 0
        self.last_line_bytes = 0  # bytes after the last newline, over the whole output
        self.peak_buffered = 0  # high-water mark of the in-memory window (observable in tests)

    @property
    def total_lines(self) -> int:
        """Completed lines plus an unfinished last one (Pi's count: "a\\n" is one line, "" none)."""
        return self.newlines + (1 if self.last_line_bytes > 0 else 0)

    @property
    def buffered_bytes(self) -> int:
        return self._buffered

    def add(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total_bytes += len(chunk)
        newline_count = chunk.count(b"\n")
        if newline_count:
            self.newlines += newline_count
            self.last_line_bytes = len(chunk) - chunk.rfind(b"\n") - 1
        else:
            self.last_line_bytes += len(chunk)
        if self._file is not None:
            self._file.write(chunk)
        self._chunks.append(chunk)
        self._buffered += len(chunk)
        if self._file is None and self.total_bytes > self._max_bytes:
            self._spill()
        while len(self._chunks) > 1 and self._buffered - len(self._chunks[0]) >= self._window_bytes:
            self._buffered -= len(self._chunks.popleft())
        self.peak_buffered = max(self.peak_buffered, self._buffered)

    def _spill(self) -> None:
        """Start the full-output file with everything seen so far (all of it is still buffered)."""
        path = temp_output_path(self._temp_dir)
        # Owner-only, as Pi: the output may hold secrets and the directory is shared. O_EXCL
        # refuses a file someone else placed under the (random) name in advance.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._file = os.fdopen(fd, "wb")
        self.full_output_path = path
        for chunk in self._chunks:
            self._file.write(chunk)

    def read_full_output(self, max_bytes: int) -> tuple[str, bool]:
        """The whole output for programmatic callers, and whether it had to be cut: beyond
        ``max_bytes`` only its head and tail halves are kept, around an omission marker."""
        if self.full_output_path is None:
            return self.window_text(), False
        with open(self.full_output_path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size <= max_bytes:
                return file.read().decode("utf-8", "replace"), False
            head_bytes = max_bytes // 2
            tail_bytes = max_bytes - head_bytes
            head = file.read(head_bytes)
            file.seek(size - tail_bytes)
            tail = file.read(tail_bytes)
        # Cut at character boundaries: drop a partial sequence at the end of the head and
        # continuation bytes at the start of the tail.
        head_text = head[: len(head) - _partial_character_bytes(head)].decode("utf-8", "replace")
        start = 0
        while start < len(tail) and tail[start] & 0xC0 == 0x80:
            start += 1
        tail_text = tail[start:].decode("utf-8", "replace")
        omitted = size - head_bytes - tail_bytes
        return f"{head_text}\n\n[... {omitted} bytes omitted ...]\n\n{tail_text}", True

    def window_text(self) -> str:
        return b"".join(self._chunks).decode("utf-8", "replace")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def _ensure_full_output_file(self) -> str:
        """Small outputs cut by the line limit still need a file to point at."""
        if self.full_output_path is None:
            self._spill()
        assert self.full_output_path is not None
        return self.full_output_path

    def snapshot(self) -> tuple[str, BashDetails]:
        """Tail-truncated text and details for a streaming update (no notice).

        As in Pi, a truncated update already names the full-output file (written now if the
        output was cut by lines only, so far)."""
        result = self._truncate()
        details: BashDetails = {}
        if result["truncated"]:
            details["truncation"] = result
            self._ensure_full_output_file()
        if self.full_output_path:
            details["fullOutputPath"] = self.full_output_path
        return result["content"], details

    def _truncate(self) -> TruncationResult:
        result = truncate_tail(self.window_text(), max_lines=DEFAULT_MAX_LINES, max_bytes=self._max_bytes)
        # The window may start mid-output; report figures for the whole output.
        result["totalLines"] = self.total_lines
        result["totalBytes"] = self.total_bytes
        over_limit = result["totalBytes"] > self._max_bytes or result["totalLines"] > DEFAULT_MAX_LINES
        if over_limit and not result["truncated"]:
            result["truncated"] = True
            result["truncatedBy"] = "bytes" if self.total_bytes > self._max_bytes else "lines"
        return result

    def finish(self) -> CommandOutput:
        """Close the file and produce the final text with Pi's truncation notice."""
        result = self._truncate()
        text = result["content"]
        if not result["truncated"]:
            self.close()
            return {"text": text, "truncated": False, "details": {}}
        path = self._ensure_full_output_file()
        self.close()
        start = result["totalLines"] - result["outputLines"] + 1
        end = result["totalLines"]
        if result["lastLinePartial"]:
            notice = (
                f"[Showing last {format_size(result['outputBytes'])} of line {end} "
                f"(line is {format_size(self.last_line_bytes)}). Full output: {path}]"
            )
        elif result["truncatedBy"] == "lines":
            notice = f"[Showing lines {start}-{end} of {result['totalLines']}. Full output: {path}]"
        else:
            notice = (
                f"[Showing lines {start}-{end} of {result['totalLines']} "
                f"({format_size(self._max_bytes)} limit). Full output: {path}]"
            )
        text = f"{text}\n\n{notice}" if text else notice
        return {
            "text": text,
            "truncated": True,
            "details": {"truncation": result, "fullOutputPath": path},
            "fullOutputPath": path,
        }


def _partial_character_bytes(data: bytes) -> int:
    """How many bytes at the end of ``data`` are an incomplete multi-byte UTF-8 sequence."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:
            needed = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 1
            return back if needed > back else 0
    return 0
