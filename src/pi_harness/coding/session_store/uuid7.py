"""UUIDv7 (RFC 9562): time-ordered ids, as Pi 1.4.0 uses for session ids.

Python 3.11's ``uuid`` module has no version 7, so this is a small generator of our own. Layout,
most significant bit first:

====  ======  ==========================================================================
bits  field   content
====  ======  ==========================================================================
48    unix_ts milliseconds since the Unix epoch
4     ver     ``0111``
12    rand_a  the high 12 bits of a 42-bit counter
2     var     ``10``
62    rand_b  the low 30 bits of the counter, then 32 random bits
====  ======  ==========================================================================

The counter (RFC 9562 section 6.2, method 1) keeps ids of one process strictly increasing even
within one millisecond or when the clock steps back: it starts at a random 41-bit value whenever
the millisecond advances (the top bit left free so increments cannot overflow in practice) and is
incremented otherwise; should it overflow, the timestamp moves on by one millisecond.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

_COUNTER_BITS = 42
_COUNTER_MAX = (1 << _COUNTER_BITS) - 1
_TIMESTAMP_MAX = (1 << 48) - 1


def _random_bits(bits: int) -> int:
    """``secrets.randbits`` without importing ``secrets`` (and ``hmac``) at startup: the same
    operating-system randomness."""
    return int.from_bytes(os.urandom((bits + 7) // 8), "big") >> (-bits % 8)


class Uuid7Generator:
    """One monotonic sequence of UUIDv7s (the module's ``uuid7`` is the process-wide one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = -1
        self._counter = 0

    def _next(self, now_ms: int) -> tuple[int, int]:
        with self._lock:
            if now_ms > self._last_ms:
                self._last_ms = now_ms
                self._counter = _random_bits(_COUNTER_BITS - 1)
            elif self._counter < _COUNTER_MAX:
                self._counter += 1
            else:
                self._last_ms += 1
                self._counter = _random_bits(_COUNTER_BITS - 1)
            return self._last_ms, self._counter

    def __call__(self, now_ms: int | None = None) -> uuid.UUID:
        milliseconds, counter = self._next(time.time_ns() // 1_000_000 if now_ms is None else now_ms)
        if not 0 <= milliseconds <= _TIMESTAMP_MAX:
            raise ValueError(f"UUIDv7 timestamp out of range: {milliseconds}")
        value = milliseconds << 80
        value |= 0x7 << 76
        value |= (counter >> 30) << 64  # rand_a: the counter's high 12 bits
        value |= 0b10 << 62
        value |= (counter & ((1 << 30) - 1)) << 32  # the counter's low 30 bits
        value |= _random_bits(32)
        return uuid.UUID(int=value)


uuid7 = Uuid7Generator()
"""``uuid7()`` → a new UUIDv7 (``now_ms`` overrides the clock reading)."""


def uuid7_timestamp_ms(value: uuid.UUID) -> int:
    """The millisecond timestamp a UUIDv7 carries."""
    return value.int >> 80


__all__ = ["Uuid7Generator", "uuid7", "uuid7_timestamp_ms"]
