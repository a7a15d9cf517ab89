"""The framing of one HTTP/1.1 response, without I/O: status line and headers, then the body by
``Content-Length``, by the chunked transfer coding, or up to the end of the connection.

Why not ``h11`` for this: a streamed answer arrives as many small chunks, and ``h11`` turns
each into events through a state machine, a dozen Python calls per chunk, on every turn of a
run. Here the bytes of one read are unframed in one go and handed on together (``body``).

What a client of provider APIs needs and no more: informational (1xx) heads are skipped,
``HEAD`` requests are never sent, trailers are read and dropped, and anything malformed raises
``ResponseError``, as ``h11`` would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A head larger than this is refused (``h11``'s limit is 16 KiB; servers behind gateways send more).
MAX_HEAD_BYTES = 64 * 1024
_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: [^\r\n]*)?")
_CHUNK_HEAD = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r\n")


class ResponseError(Exception):
    """The server broke HTTP/1.1, or hung up in the middle of the response."""


@dataclass(frozen=True, slots=True)
class Head:
    status: int
    headers: list[tuple[bytes, bytes]]  # names as sent, values without surrounding blanks
    http_10: bool


class ResponseParser:
    """Fed the bytes of the connection (``feed``; ``feed_eof`` when it ends): ``head`` once the
    final head is complete, then ``body`` for the body bytes unframed so far; ``done`` at the end
    of the message, and ``keep_alive`` says whether the connection may carry another request."""

    __slots__ = (
        "_buffer",
        "_chunk_left",
        "_crlf",
        "_eof",
        "_framing",
        "_left",
        "_trailers",
        "done",
        "head",
        "keep_alive",
    )

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._eof = False
        self.head: Head | None = None
        self.done = False
        self.keep_alive = False
        self._framing = ""  # "length", "chunked" or "close", once the head is read
        self._left = 0  # bytes of body still to come ("length")
        self._chunk_left = 0  # data bytes of the current chunk still to come ("chunked")
        self._crlf = False  # the CRLF after a chunk's data is still to come
        self._trailers = False  # past the last chunk, reading trailers

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def feed_eof(self) -> None:
        self._eof = True

    @property
    def ended(self) -> bool:
        """The connection ended (``feed_eof``)."""
        return self._eof

    # -- the head --------------------------------------------------------------------------------

    def read_head(self) -> Head | None:
        """The final head once it is complete (``None``: more bytes needed)."""
        while self.head is None:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buffer) > MAX_HEAD_BYTES:
                    raise ResponseError("the response head is too large")
                if self._eof:
                    raise ResponseError("the server closed the connection before sending a response")
                return None
            raw = bytes(self._buffer[:end])
            del self._buffer[: end + 4]
            head = _parse_head(raw)
            if head.status >= 200:
                self._start_body(head)
                self.head = head
            elif head.status == 101:
                raise ResponseError("unexpected protocol switch")
        return self.head

    def _start_body(self, head: Head) -> None:
        connection = b""
        length: bytes | None = None
        chunked = False
        for name, value in head.headers:
            lowered = name.lower()
            if lowered == b"content-length":
                if length is not None and value != length:
                    raise ResponseError("conflicting Content-Length headers")
                length = value
            elif lowered == b"transfer-encoding":
                chunked = value.lower().rsplit(b",", 1)[-1].strip() == b"chunked"
                if not chunked:
                    raise ResponseError(f"unsupported transfer coding: {value.decode('latin-1')}")
            elif lowered == b"connection":
                connection += b"," + value.lower()
        self.keep_alive = not head.http_10 and b"close" not in [t.strip() for t in connection.split(b",")]
        if head.status in (204, 304):
            self._framing, self.done = "length", True
        elif chunked:
            self._framing = "chunked"
        elif length is not None:
            if not length.isdigit():
                raise ResponseError("malformed Content-Length")
            self._framing, self._left = "length", int(length)
            self.done = self._left == 0
        else:
            self._framing, self.keep_alive = "close", False

    # -- the body --------------------------------------------------------------------------------

    def body(self) -> bytes:
        """The body bytes unframed since the last call (``b""``: none yet); sets ``done`` at the
        end of the message and raises ``ResponseError`` when the connection ended before it."""
        if self.done:
            return b""
        if self._framing == "length":
            data = self._take(self._left)
            self._left -= len(data)
            self.done = self._left == 0
        elif self._framing == "chunked":
            data = self._chunks()
        else:
            data = bytes(self._buffer)
            self._buffer.clear()
            self.done = self._eof
        if self._eof and not self.done:
            raise ResponseError("the server closed the connection before the response ended")
        return data

    def _take(self, count: int) -> bytes:
        buffer = self._buffer
        if len(buffer) <= count:
            data = bytes(buffer)
            buffer.clear()
        else:
            data = bytes(buffer[:count])
            del buffer[:count]
        return data

    def _chunks(self) -> bytes:
        # Over one copy of what is buffered, by position (a deletion at the front per piece would
        # cost as much as the rest of the work), the buffer cut once at the end.
        buffer = self._buffer
        data = bytes(buffer)
        pos, end = 0, len(data)
        parts: list[bytes] = []
        while not self.done:
            if self._trailers:
                line_end = data.find(b"\r\n", pos)
                if line_end < 0:
                    break
                self.done = line_end == pos  # the blank line after the trailers
                pos = line_end + 2
            elif self._chunk_left:
                taken = min(self._chunk_left, end - pos)
                parts.append(data[pos : pos + taken])
                pos += taken
                self._chunk_left -= taken
                if self._chunk_left:
                    break
                self._crlf = True
            elif self._crlf:  # after a chunk's data
                if end - pos < 2:
                    break
                if data[pos : pos + 2] != b"\r\n":
                    raise ResponseError("a chunk does not end with CRLF")
                pos += 2
                self._crlf = False
            else:
                match = _CHUNK_HEAD.match(data, pos)
                if match is None:
                    if data.find(b"\r\n", pos) < 0 and end - pos <= 1024:
                        break  # the size line is still arriving
                    raise ResponseError("malformed chunk size line")
                size = int(match.group(1), 16)
                pos = match.end()
                if size == 0:
                    self._trailers = True
                else:
                    self._chunk_left = size
        del buffer[:pos]
        return b"".join(parts)


def _parse_head(raw: bytes) -> Head:
    lines = raw.split(b"\r\n")
    status = _STATUS_LINE.fullmatch(lines[0])
    if status is None:
        raise ResponseError(f"malformed status line: {lines[0][:100]!r}")
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or line[:1] in (b" ", b"\t"):
            raise ResponseError(f"malformed header line: {line[:100]!r}")
        headers.append((name, value.strip(b" \t")))
    return Head(int(status.group(2)), headers, status.group(1) == b"0")


__all__ = ["MAX_HEAD_BYTES", "Head", "ResponseError", "ResponseParser"]
