"""The covered part of a large session as entries, and walks through it that cost per branch
point instead of per entry.

``materialize`` turns what a scan or the index learnt (``covered.py``) into the entries of the
covered part, in file order: stubs for the messages, the full records of the rest. A long session
is mostly one chain, every entry the child of the line before it; ``ColdChain`` records where that
breaks (the *run starts*) so that the path from the root to a covered entry is a few list slices,
not a step per entry. It also tells whether the covered part is *clean*: unique ids of the right
types and every parent an earlier entry (or none). Then no repair can change anything there, so
the store repairs, migrates and searches only the other entries (``store.py``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import ne
from typing import cast

from pi_harness.coding.session_store.covered import CoveredLines
from pi_harness.coding.session_store.entries import SessionEntry

_RUNS = re.compile(rb"s+|.")


def materialize(
    covered: CoveredLines, records: Sequence[dict[str, object]]
) -> tuple[list[dict[str, object]], list[object], list[object], list[int]]:
    """The covered entries in file order, with their ids and parents (as written), and the
    positions of those parsed in full (not stubs)."""
    stubs: list[dict[str, object]] = [
        {"type": "message", "id": i, "parentId": p} for i, p in zip(covered.stub_ids, covered.stub_parents, strict=True)
    ]
    entries: list[dict[str, object]] = []
    ids: list[object] = []
    parents: list[object] = []
    positions: list[int] = []
    done = full = 0
    for run in _RUNS.finditer(covered.kinds):
        kind = run.group()
        if kind[0] == ord("s"):
            count = len(kind)
            entries.extend(stubs[done : done + count])
            ids.extend(covered.stub_ids[done : done + count])
            parents.extend(covered.stub_parents[done : done + count])
            done += count
        elif kind == b"f":
            record = records[full]
            full += 1
            positions.append(len(entries))
            entries.append(record)
            ids.append(record.get("id"))
            parents.append(record.get("parentId"))
    return entries, ids, parents, positions


@dataclass
class ColdChain:
    """The covered entries (the first ``count`` of the store's list) as runs of a chain."""

    entries: list[SessionEntry]  # the store's list: the covered entries come first
    count: int
    ids: list[str]
    parents: list[str | None]
    starts: list[int]  # where a run starts: an entry whose parent is not the entry before it
    full: list[int]  # the positions of the entries parsed in full (the others are stubs)
    generation: int = 0
    _positions: dict[str, int] | None = None

    @classmethod
    def build(
        cls, entries: list[SessionEntry], ids: list[object], parents: list[object], full: list[int]
    ) -> ColdChain | None:
        """The chain of a clean covered part, else None. The ids are unique (the scan refuses a
        file with duplicates); those of stubs are strings and their parents strings or None (the
        scan and the index make them so), so only the entries parsed in full are checked."""
        count = len(ids)
        if not count or not all(type(ids[p]) is str for p in full):
            return None
        if not all(parents[p] is None or type(parents[p]) is str for p in full):
            return None
        names = cast(list[str], ids)
        links = cast(list[str | None], parents)
        starts = [0, *compress(range(1, count), map(ne, links[1:], names[:-1]))]
        chain = cls(entries, count, names, links, starts, full)
        for start in starts:
            parent = links[start]
            if parent is None:
                continue
            position = chain.position(parent)
            if position is None or position >= start:
                return None  # a missing, later or own parent: the repairs decide
        return chain

    def position(self, entry_id: str) -> int | None:
        if self._positions is None:
            self._positions = dict(zip(self.ids, range(self.count), strict=True))
        return self._positions.get(entry_id)

    def path_to(self, position: int) -> tuple[list[SessionEntry], list[int]]:
        """Root → the covered entry at ``position``, and the indices in it of the entries parsed
        in full."""
        pieces: list[tuple[int, int]] = []
        current: int | None = position
        while current is not None:
            start = self.starts[bisect_right(self.starts, current) - 1]
            pieces.append((start, current + 1))
            parent = self.parents[start]
            current = self.position(parent) if parent is not None else None
        path: list[SessionEntry] = []
        full: list[int] = []
        for start, end in reversed(pieces):
            shift = len(path) - start
            full.extend(p + shift for p in self.full[bisect_left(self.full, start) : bisect_left(self.full, end)])
            path.extend(self.entries[start:end])
        return path, full

    def branch_path(
        self, by_id: dict[str, SessionEntry], leaf_id: str | None
    ) -> tuple[list[SessionEntry], list[int] | None]:
        """``tree.branch_path`` for the store's entries, and the indices on the path of the
        covered entries parsed in full (None when unknown). A path that reaches the covered part
        at its last entry (the usual one: the latest compaction follows it) goes through it in
        slices; any other is walked step by step."""
        last = self.entries[self.count - 1]
        walked: list[SessionEntry] = []
        get = by_id.get
        current = get(leaf_id) if leaf_id is not None else None
        steps_left = len(by_id)
        while current is not None and steps_left > 0:
            if current is last:
                walked.reverse()
                path, full = self.path_to(self.count - 1)
                return path + walked, full
            steps_left -= 1
            walked.append(current)
            parent = current.get("parentId")
            current = get(parent) if parent is not None and parent != current["id"] else None
        walked.reverse()
        return walked, None
