"""AWS event-stream framing (``application/vnd.amazon.eventstream``), both ways.

One message is::

    total length (u32) · headers length (u32) · prelude CRC32 (u32)
    headers · payload · message CRC32 (u32, over everything before it)

all big-endian. A header is its name length (u8), name, a value type (u8) and the value; Bedrock
only sends strings (type 7: u16 length + UTF-8), the decoder also skips the other types.
``EventStreamDecoder`` takes bytes as they arrive and yields whole messages.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

_PRELUDE = struct.Struct(">III")
_CRC = struct.Struct(">I")
_MAX_MESSAGE = 16 * 1024 * 1024
# value type -> fixed size in bytes (None: u16 length-prefixed)
_FIXED_SIZES: dict[int, int | None] = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 6: None, 7: None, 8: 8, 9: 16}
STRING_TYPE = 7


class EventStreamError(ValueError):
    """Bytes that are not a well-formed event-stream message (bad length or checksum)."""


@dataclass(frozen=True)
class EventMessage:
    headers: dict[str, str]
    payload: bytes

    @property
    def message_type(self) -> str:
        return self.headers.get(":message-type", "event")

    @property
    def event_type(self) -> str:
        """``:event-type`` for events, ``:exception-type`` for exceptions."""
        if self.message_type == "exception":
            return self.headers.get(":exception-type", "")
        return self.headers.get(":event-type", "")


def encode_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    encoded_headers = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode("utf-8"), value.encode("utf-8")
        encoded_headers += struct.pack(">B", len(raw_name)) + raw_name
        encoded_headers += struct.pack(">BH", STRING_TYPE, len(raw_value)) + raw_value
    total = _PRELUDE.size + len(encoded_headers) + len(payload) + _CRC.size
    prelude = struct.pack(">II", total, len(encoded_headers))
    prelude += _CRC.pack(zlib.crc32(prelude))
    body = prelude + encoded_headers + payload
    return body + _CRC.pack(zlib.crc32(body))


def _decode_headers(data: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        name_length = data[pos]
        name = data[pos + 1 : pos + 1 + name_length].decode("utf-8")
        pos += 1 + name_length
        value_type = data[pos]
        pos += 1
        if value_type not in _FIXED_SIZES:
            raise EventStreamError(f"Unknown event-stream header type {value_type}")
        size = _FIXED_SIZES[value_type]
        if size is None:
            (length,) = struct.unpack_from(">H", data, pos)
            value = data[pos + 2 : pos + 2 + length]
            pos += 2 + length
            headers[name] = value.decode("utf-8") if value_type == STRING_TYPE else value.hex()
        else:
            headers[name] = str(value_type in (0,)) if size == 0 else data[pos : pos + size].hex()
            pos += size
    return headers


class EventStreamDecoder:
    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> Iterator[EventMessage]:
        self._buffer.extend(chunk)
        while len(self._buffer) >= _PRELUDE.size:
            total, headers_length, prelude_crc = _PRELUDE.unpack_from(self._buffer)
            if zlib.crc32(bytes(self._buffer[:8])) != prelude_crc:
                raise EventStreamError("Event-stream prelude checksum mismatch")
            if total > _MAX_MESSAGE or total < _PRELUDE.size + _CRC.size + headers_length:
                raise EventStreamError(f"Event-stream message of impossible length {total}")
            if len(self._buffer) < total:
                return
            message = bytes(self._buffer[:total])
            del self._buffer[:total]
            (message_crc,) = _CRC.unpack_from(message, total - _CRC.size)
            if zlib.crc32(message[: total - _CRC.size]) != message_crc:
                raise EventStreamError("Event-stream message checksum mismatch")
            headers_end = _PRELUDE.size + headers_length
            yield EventMessage(
                _decode_headers(message[_PRELUDE.size : headers_end]), message[headers_end : total - _CRC.size]
            )

    @property
    def pending(self) -> int:
        """Bytes of an unfinished message (a stream that ends with some was cut off)."""
        return len(self._buffer)
