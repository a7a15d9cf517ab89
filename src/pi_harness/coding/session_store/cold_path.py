"""The active path of a store whose covered part is still columns (``cold_part.py``).

Root → leaf is the covered entries the path goes through (a few ranges of positions, usually
one: root → the entry before the latest compaction) and then the entries after them, which the
store holds. ``ColdPath`` is that sequence without an object per covered entry: an entry there is
made when it is indexed (``ColdPart.entry``: the same object every time) and the projection
(``context.py``) looks only at the indices ``relevant`` names. Iterating all of it makes every stub
on the path, which only a caller that wants the whole branch does.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from typing import cast, overload

from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.entries import SessionEntry


class ColdPath(Sequence[SessionEntry]):
    def __init__(self, cold: ColdPart, pieces: list[tuple[int, int]], hot: list[SessionEntry]) -> None:
        self.cold = cold
        self.pieces = pieces
        self.hot = hot  # the store's entries on the path, root side first (appended to in place)
        bounds = [0]
        for start, end in pieces:
            bounds.append(bounds[-1] + end - start)
        self._bounds = bounds  # the path index where each piece starts, and the covered length
        self.cold_length = bounds[-1]

    def __len__(self) -> int:
        return self.cold_length + len(self.hot)

    def position(self, index: int) -> int | None:
        """The covered position of the entry at path ``index`` (None past the covered part)."""
        if index >= self.cold_length:
            return None
        piece = bisect_right(self._bounds, index) - 1
        return self.pieces[piece][0] + index - self._bounds[piece]

    @overload
    def __getitem__(self, index: int) -> SessionEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[SessionEntry]: ...

    def __getitem__(self, index: int | slice) -> SessionEntry | list[SessionEntry]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            if start >= self.cold_length:
                return self.hot[start - self.cold_length : stop - self.cold_length]
            return self.pick(range(start, stop))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        position = self.position(index)
        return self.hot[index - self.cold_length] if position is None else self.cold.entry(position)

    def pick(self, indices: Sequence[int]) -> list[SessionEntry]:
        """The entries at ``indices`` (in range, in increasing order), those past the covered part
        taken without a step each when they are the rest of the path."""
        cut = bisect_right(indices, self.cold_length - 1) if self.cold_length else 0
        entry, position = self.cold.entry, self.position
        picked = [entry(cast(int, position(i))) for i in indices[:cut]]
        rest = indices[cut:]
        hot, base = self.hot, self.cold_length
        if rest and rest[-1] - rest[0] == len(rest) - 1:  # contiguous: a slice
            picked.extend(hot[rest[0] - base : rest[-1] - base + 1])
        else:
            picked.extend(hot[i - base] for i in rest)
        return picked

    def __iter__(self) -> Iterator[SessionEntry]:
        entry = self.cold.entry
        for start, end in self.pieces:
            for position in range(start, end):
                yield entry(position)
        yield from self.hot

    def append(self, entry: SessionEntry) -> None:
        self.hot.append(entry)

    def copy(self) -> ColdPath:
        return ColdPath(self.cold, self.pieces, list(self.hot))

    def full_indices(self) -> list[int]:
        """The path indices of the covered entries parsed in full (in path order)."""
        indices: list[int] = []
        for (start, end), base in zip(self.pieces, self._bounds, strict=False):
            indices.extend(position - start + base for position in self.cold.full_between(start, end))
        return indices

    def id_at(self, index: int) -> object:
        position = self.position(index)
        if position is None:
            return self.hot[index - self.cold_length].get("id")
        record = self.cold.records.get(position)
        return record.get("id") if record is not None else self.cold.ids[position]

    def stub_role(self, index: int) -> str | None:
        """The role of the covered message at ``index`` when it is (or was) a stub."""
        position = self.position(index)
        return self.cold.role(position) if position is not None else None

    def fill(self, indices: Sequence[int]) -> None:
        positions = [p for i in indices if (p := self.position(i)) is not None]
        self.cold.fill_positions(positions)


def cold_position(cold: ColdPart, entry_id: str) -> int | None:
    """The position of a covered id; the last entry's (the usual one) without the map of all."""
    last = cold.count - 1
    if last >= 0 and cold.ids[last] == entry_id:
        return last
    return cold.ids.position(entry_id)


def walk_cold(cold: ColdPart, by_id: Mapping[str, SessionEntry], leaf_id: str | None) -> ColdPath:
    """``tree.branch_path`` for a store that holds only the entries after the covered part (in
    ``by_id``): the walk goes through those one by one, then through the covered part in ranges."""
    walked: list[SessionEntry] = []
    get = by_id.get
    current = get(leaf_id) if leaf_id is not None else None
    entry_point = cold_position(cold, leaf_id) if current is None and leaf_id is not None else None
    steps_left = len(by_id)  # a valid path visits every entry at most once
    while current is not None and steps_left > 0:
        steps_left -= 1
        walked.append(current)
        parent = current.get("parentId")
        if parent is None or parent == current["id"]:
            break
        following = get(parent)
        if following is None:
            entry_point = cold_position(cold, parent) if isinstance(parent, str) else None
            break
        current = following
    walked.reverse()
    return ColdPath(cold, cold.pieces(entry_point) if entry_point is not None else [], walked)
