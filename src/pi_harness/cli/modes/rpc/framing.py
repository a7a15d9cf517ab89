"""Strict LF framing of the RPC input (``docs/rpc.md``).

Records are split on ``\\n`` only (one trailing ``\\r`` stripped), never on U+2028/U+2029 which
are legal inside JSON strings; bytes are decoded as UTF-8 only once a whole line is there, so a
multi-byte character split across reads is fine; a final unterminated line at EOF still counts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator


class LineSplitter:
    def __init__(self) -> None:
        self._buffer = bytearray()
        # Bytes of the buffer already known to hold no "\n": each chunk is searched once, so a
        # long line arriving in small pieces costs its length, not its length squared.
        self._scanned = 0

    def feed(self, chunk: bytes) -> list[str]:
        self._buffer += chunk
        lines: list[str] = []
        while True:
            index = self._buffer.find(b"\n", self._scanned)
            if index < 0:
                self._scanned = len(self._buffer)
                return lines
            raw = bytes(self._buffer[:index])
            del self._buffer[: index + 1]
            self._scanned = 0
            lines.append(_decode(raw))

    def finish(self) -> list[str]:
        if not self._buffer:
            return []
        raw = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        return [_decode(raw)]


def _decode(raw: bytes) -> str:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    return raw.decode("utf-8", errors="replace")


async def read_lines(read_chunk: AsyncIterator[bytes]) -> AsyncIterator[str]:
    splitter = LineSplitter()
    async for chunk in read_chunk:
        for line in splitter.feed(chunk):
            yield line
    for line in splitter.finish():
        yield line
