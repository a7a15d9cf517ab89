"""Request bodies encoded in proportion to what changed since the previous request.

A turn loop sends the whole conversation with every request, so encoding each body from scratch
costs, over a run, the square of its length. The messages of a request that extends the previous
one are, for providers that convert through a ``ConversionMemo``, the very objects of the
previous body, whose wire forms are never changed in place; their JSON is the same bytes.

``encode_body`` therefore remembers, for each top-level list of the last body (``messages``,
``tools``, ...), its items (the objects themselves, so that none is freed and replaced by another
at the same address) and the JSON of each. When a list begins with exactly those objects, only
the items after them are encoded. A list that does not (the first request, an edit, a compaction,
a provider that builds new objects each time) is encoded whole, as before; the items are
remembered, and the next request that extends them encodes its items one by one and is warm from
then on.

The result is byte for byte what ``jsonutil.dumps`` gives for the same body: orjson's compact
form, keys in order. Anything orjson cannot encode on its own (lone surrogates, big integers,
non-string keys) sends the whole body through ``jsonutil.dumps``.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Mapping

import orjson

from pi_harness.ai.jsonutil import dumps


class _Remembered:
    """One list of the last body: its items, and (once warm) each item's JSON and a comma."""

    __slots__ = ("items", "parts")

    def __init__(self, items: list[object], parts: list[bytes] | None) -> None:
        self.items = items
        self.parts = parts


class BodyEncoder:
    def __init__(self) -> None:
        self._lists: dict[str, _Remembered] = {}
        self._lock = threading.Lock()
        # List items encoded one by one so far (the rest went whole, or was remembered).
        self.items_encoded = 0

    def encode(self, body: Mapping[str, object]) -> bytes:
        try:
            return self._encode(body)
        except TypeError:
            return dumps(body)

    def _encode(self, body: Mapping[str, object]) -> bytes:
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
            if type(value) is list and value:
                memo = self._list(value, previous.get(key))
                remembered[key] = memo
                if memo.parts is None:
                    out.append(orjson.dumps(value))
                else:
                    out.append(b"[")
                    out.extend(memo.parts)
                    out[-1] = out[-1][:-1]  # the last item without its comma
                    out.append(b"]")
            else:
                out.append(orjson.dumps(value))
        out.append(b"}")
        with self._lock:
            self._lists = remembered
        return b"".join(out)

    def _list(self, items: list[object], last: _Remembered | None) -> _Remembered:
        count = len(last.items) if last is not None else 0
        extends = last is not None and len(items) >= count and all(map(operator.is_, items, last.items))
        if last is None or not extends:
            return _Remembered(list(items), None)  # encoded whole by the caller
        new = items if last.parts is None else items[count:]
        parts = [orjson.dumps(item) + b"," for item in new]
        self.items_encoded += len(new)
        return _Remembered(list(items), parts if last.parts is None else last.parts + parts)

    def clear(self) -> None:
        with self._lock:
            self._lists = {}


_ENCODER = BodyEncoder()


def encode_body(body: Mapping[str, object]) -> bytes:
    """``jsonutil.dumps(body)``, encoding only the list items that are new since the last body."""
    return _ENCODER.encode(body)


__all__ = ["BodyEncoder", "encode_body"]
