"""Request bodies encoded in proportion to what changed since the previous request.

A turn loop sends the whole conversation with every request, so encoding each body from scratch
costs, over a run, the square of its length. The messages of a request that extends the previous
one are, for providers that convert through a ``ConversionMemo``, the very objects of the
previous body, whose wire forms are never changed in place; their JSON is the same bytes.

``encode_body`` therefore remembers, for each top-level list of the last body (``messages``,
``tools``, ...), its items (the objects themselves, so that none is freed and replaced by another
at the same address, or the issued list itself: ``append_memo.AppendOnly``) and the JSON of
each. When a list begins with exactly those objects, only the items after them are encoded. A
list that does not (the first request, an edit, a compaction, a provider that builds new objects
each time) is encoded whole, as before; the items are remembered, and the next request that
extends them encodes its items one by one and is warm from then on.

Joining a body of megabytes into one ``bytes`` would still copy the whole conversation on every
request, so ``encode_body_parts`` hands the body out as parts (``EncodedBody``): the JSON of
older items is sealed into blocks of ``BLOCK_BYTES`` or more that later bodies reuse as they
are, and only the recent items and the small rest are joined anew. The HTTP client writes the
parts one after another.

The result is byte for byte what ``jsonutil.dumps`` gives for the same body: orjson's compact
form, keys in order. Anything orjson cannot encode on its own (lone surrogates, big integers,
non-string keys) sends the whole body through ``jsonutil.dumps``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import orjson

from pi_harness.ai.append_memo import Lineage, extends, lineage_of
from pi_harness.ai.jsonutil import dumps

# Item JSON is sealed into a block (reused as it is by later bodies) once this much is waiting;
# two blocks of the same size class are then joined into one of the next (so a body of any length
# goes out in a few dozen parts at most, and each byte is copied a few times over a whole run).
BLOCK_BYTES = 16 * 1024


class EncodedBody:
    """A request body as the byte strings it is written in, in order (``bytes(body)``: joined)."""

    __slots__ = ("_length", "parts")

    def __init__(self, parts: Sequence[bytes]) -> None:
        self.parts: tuple[bytes, ...] = tuple(parts)
        self._length = sum(map(len, self.parts))

    def __len__(self) -> int:
        return self._length

    def __bytes__(self) -> bytes:
        return b"".join(self.parts)


class _Remembered:
    """One list of the last body: its items, and (once warm) each item's JSON, a comma before
    every item but the first, as sealed blocks and the items after them."""

    __slots__ = ("blocks", "items", "levels", "lineage", "loose", "loose_bytes")

    def __init__(self, items: Sequence[object]) -> None:
        self.lineage: Lineage | None = lineage_of(items)
        # An issued list is not changed in place (or leaves its lineage): no copy to compare later.
        self.items: Sequence[object] = items if self.lineage is not None else list(items)
        self.blocks: list[bytes] | None = None  # None: encoded whole by the caller
        self.levels: list[int] = []  # each block's size class: BLOCK_BYTES * 2**level and more
        self.loose: list[bytes] = []
        self.loose_bytes = 0


class BodyEncoder:
    def __init__(self) -> None:
        self._lists: dict[str, _Remembered] = {}
        self._lock = threading.Lock()
        # List items encoded one by one so far (the rest went whole, or was remembered).
        self.items_encoded = 0

    def encode(self, body: Mapping[str, object]) -> bytes:
        return bytes(self.encode_parts(body))

    def encode_parts(self, body: Mapping[str, object]) -> EncodedBody:
        try:
            return self._encode(body)
        except TypeError:
            return EncodedBody((dumps(body),))

    def _encode(self, body: Mapping[str, object]) -> EncodedBody:
        parts: list[bytes] = []  # sealed blocks and joined runs of the small pieces between them
        out: list[bytes] = [b"{"]
        remembered: dict[str, _Remembered] = {}
        with self._lock:
            previous = self._lists
        for index, (key, value) in enumerate(body.items()):
            if type(key) is not str:
                raise TypeError("a key that is not a string")
            if index:
                out.append(b",")
            out.append(orjson.dumps(key))
            out.append(b":")
            if isinstance(value, list) and value:
                memo = self._list(value, previous.get(key))
                remembered[key] = memo
                if memo.blocks is None:
                    out.append(orjson.dumps(value))
                else:
                    out.append(b"[")
                    if memo.blocks:
                        parts.append(b"".join(out))
                        parts.extend(memo.blocks)
                        out = []
                    out.extend(memo.loose)
                    out.append(b"]")
            else:
                out.append(orjson.dumps(value))
        out.append(b"}")
        parts.append(b"".join(out))
        with self._lock:
            self._lists = remembered
        return EncodedBody(parts)

    def _list(self, items: list[object], last: _Remembered | None) -> _Remembered:
        memo = _Remembered(items)
        if last is None or not extends(items, last.lineage, last.items):
            return memo  # encoded whole by the caller
        warm = last.blocks is not None
        new = items[len(last.items) :] if warm else items
        # The previous body's blocks stay as they were (a failed encoding keeps them).
        blocks = list(last.blocks) if last.blocks is not None else []
        levels = list(last.levels)
        loose = list(last.loose)
        size = last.loose_bytes
        for item in new:
            part = orjson.dumps(item)
            if blocks or loose:
                part = b"," + part
            loose.append(part)
            size += len(part)
            if size >= BLOCK_BYTES:
                blocks.append(b"".join(loose))
                levels.append(0)
                loose, size = [], 0
                while len(levels) > 1 and levels[-1] == levels[-2]:
                    merged = blocks.pop(-2) + blocks.pop()
                    blocks.append(merged)
                    levels[-2:] = [levels[-1] + 1]
        self.items_encoded += len(new)
        memo.blocks, memo.levels, memo.loose, memo.loose_bytes = blocks, levels, loose, size
        return memo

    def clear(self) -> None:
        with self._lock:
            self._lists = {}


_ENCODER = BodyEncoder()


def encode_body(body: Mapping[str, object]) -> bytes:
    """``jsonutil.dumps(body)``, encoding only the list items that are new since the last body."""
    return _ENCODER.encode(body)


def encode_body_parts(body: Mapping[str, object]) -> EncodedBody:
    """``encode_body`` as parts, without joining the blocks that earlier bodies also carried."""
    return _ENCODER.encode_parts(body)


__all__ = ["BLOCK_BYTES", "BodyEncoder", "EncodedBody", "encode_body", "encode_body_parts"]
