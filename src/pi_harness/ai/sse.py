"""Incremental Server-Sent Events decoder (WHATWG event-stream rules).

Feed it the raw bytes of a response as they arrive, in chunks of any size; it yields complete
events. Lines may end in ``\\r\\n``, ``\\n`` or ``\\r`` (a ``\\r`` at the end of one chunk and a
``\\n`` at the start of the next are one line ending), UTF-8 characters may be split across
chunks, and comment lines (``:``) are skipped, and a leading byte-order mark is ignored.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


# Not frozen: a frozen dataclass sets each field through ``object.__setattr__``, which costs more
# than the rest of decoding a short event, and a stream has one per chunk. Nothing changes them.
@dataclass(slots=True)
class ServerSentEvent:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    __slots__ = ("_at_start", "_data", "_decoder", "_event", "_has_data", "_id", "_pending", "_retry", "_skip_lf")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        # The text after the last line ending, in pieces: a long line arriving in small chunks is
        # joined once, when its end comes, instead of being copied and searched again per chunk.
        self._pending: list[str] = []
        self._skip_lf = False
        self._event = ""
        self._data: list[str] = []
        self._has_data = False
        self._id: str | None = None
        self._retry: int | None = None
        self._at_start = True  # a byte-order mark is only stripped at the very start of the stream

    def feed(self, chunk: bytes | str) -> list[ServerSentEvent]:
        text = chunk if isinstance(chunk, str) else self._decoder.decode(chunk)
        return self._feed_text(text)

    def flush(self) -> list[ServerSentEvent]:
        """End of stream: a final event without its blank line is discarded, as browsers do."""
        self._feed_text(self._decoder.decode(b"", final=True))
        self._pending = []
        self._reset()
        return []

    def _feed_text(self, text: str) -> list[ServerSentEvent]:
        if not text:
            return []
        if self._at_start:
            self._at_start = False
            if text[0] == "\ufeff":
                text = text[1:]
                if not text:
                    return []
        if self._skip_lf and text[0] == "\n":
            text = text[1:]
        self._skip_lf = False
        if "\n" not in text and "\r" not in text:
            self._pending.append(text)
            return []
        buf = "".join(self._pending) + text
        events: list[ServerSentEvent] = []
        if "\r" not in buf:
            # Lines that all end in "\n" (what servers send): split in one go.
            lines = buf.split("\n")
            rest = lines.pop()  # after the last line ending
            for line in lines:
                event = self._line(line)
                if event is not None:
                    events.append(event)
            self._pending = [rest] if rest else []
            return events
        start = 0
        n = len(buf)
        while start < n:
            nl = buf.find("\n", start)
            cr = buf.find("\r", start)
            if nl < 0 and cr < 0:
                break
            if cr < 0 or (0 <= nl < cr):
                line, start = buf[start:nl], nl + 1
            else:
                line = buf[start:cr]
                if cr + 1 < n:
                    start = cr + 2 if buf[cr + 1] == "\n" else cr + 1
                else:
                    start = cr + 1
                    self._skip_lf = True
            event = self._line(line)
            if event is not None:
                events.append(event)
        self._pending = [buf[start:]] if start < n else []
        return events

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith("data: "):  # the usual line, as the general case below reads it
            self._data.append(line[6:])
            self._has_data = True
            return None
        if line[0] == ":":
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._has_data:
            self._event = ""
            self._retry = None
            return None
        event = ServerSentEvent(
            event=self._event or "message", data="\n".join(self._data), id=self._id, retry=self._retry
        )
        self._reset()
        return event

    def _reset(self) -> None:
        self._event = ""
        self._data = []
        self._has_data = False
        self._retry = None


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[ServerSentEvent]:
    """Decode an async byte stream into events."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    decoder.flush()
