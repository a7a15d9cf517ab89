"""The ids of a large session's covered part (``cold_part.py``), decoded only as far as asked.

A first open has them as strings already (the scan decoded them). A reopen has them as the index
file keeps them, NUL-joined UTF-8 (``scan_index.py``), and most opens need only the newest few
(the path from the leaf enters the covered part at its end) and a membership test now and then
(a new entry's id, a parent of the part after it): the newest are decoded from the end of the
bytes, a membership test is a search of the bytes, and every id is decoded, once, only when
something needs the map id → position (a branch that leaves the covered part elsewhere, the
entries of the whole file).
"""

from __future__ import annotations

from collections.abc import Container

_RECENT = 64  # how many of the newest ids are decoded from the end of the bytes at first
_SEARCHES = 16  # membership tests by a search of the bytes before the set of every id is built


class ColdIds:
    """The ids of the covered entries, in file order (unique, every one a string)."""

    def __init__(self, ids: list[str] | None = None, *, blob: bytes = b"", count: int = 0) -> None:
        self._list = ids
        self._count = len(ids) if ids is not None else count
        # ``blob``: the ids joined by NUL bytes, framed by one more at each end (a search for
        # ``\0id\0`` then finds whole ids only).
        self._blob = b"\x00" + blob + b"\x00" if ids is None else b""
        self._recent: list[str] | None = None
        self._set: set[str] | None = None
        self._positions: dict[str, int] | None = None
        self._searches = 0

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, position: int) -> str:
        if self._list is not None:
            return self._list[position]
        low = self._count - _RECENT
        if position >= max(low, 0):
            recent = self._recent if self._recent is not None else self._decode_recent()
            return recent[position - max(low, 0)]
        return self.as_list()[position]

    def _decode_recent(self) -> list[str]:
        blob = self._blob
        end = len(blob) - 1
        start = end
        for _ in range(min(_RECENT, self._count)):
            start = blob.rfind(b"\x00", 0, start)
        self._recent = blob[start + 1 : end].decode("utf-8", "surrogatepass").split("\x00") if self._count else []
        return self._recent

    def as_list(self) -> list[str]:
        if self._list is None:
            body = self._blob[1:-1]
            self._list = body.decode("utf-8", "surrogatepass").split("\x00") if self._count else []
            self._blob = b""
        return self._list

    def position(self, entry_id: str) -> int | None:
        if self._positions is None:
            ids = self.as_list()
            self._positions = dict(zip(ids, range(len(ids)), strict=True))
        return self._positions.get(entry_id)

    def __contains__(self, entry_id: object) -> bool:
        if not isinstance(entry_id, str):
            return False
        if self._positions is not None:
            return entry_id in self._positions
        if self._set is None:
            if self._list is None:
                # The ids asked about most (the parent of the entry after the covered part) are
                # among the newest; the others are searched for, up to a point.
                recent = self._recent if self._recent is not None else self._decode_recent()
                if entry_id in recent:
                    return True
                if self._searches < _SEARCHES:
                    self._searches += 1
                    return b"\x00" + entry_id.encode("utf-8", "surrogatepass") + b"\x00" in self._blob
            self._set = set(self.as_list())
        return entry_id in self._set

    def with_set(self, known: set[str]) -> None:
        """Take the set of every id the caller built anyway (the scan checks them for duplicates)."""
        self._set = known

    def joined(self) -> bytes:
        """The ids NUL-joined, as the index file keeps them (without the framing bytes)."""
        if self._list is None:
            return self._blob[1:-1]
        return "\x00".join(self._list).encode("utf-8", "surrogatepass")


class TakenIds:
    """The ids a new entry must not take: the store's and those of the covered part."""

    def __init__(self, taken: Container[str], covered: ColdIds) -> None:
        self._taken, self._covered = taken, covered

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._taken or entry_id in self._covered
