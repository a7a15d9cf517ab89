"""Walks through the covered part of a large session, once its entries exist, that cost per
branch point instead of per entry.

When the store needs every entry (``store.py``: ``_thaw``), the covered part (``cold_part.py``) is
made into entries, stubs for its messages. A long session is mostly one chain, every entry the
child of the line before it; ``ColdChain`` keeps the part's *run starts* (where that breaks) so
that the path from the root to a covered entry is a few list slices, not a step per entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.entries import SessionEntry


def thaw(
    cold: ColdPart, after: list[SessionEntry], by_id: dict[str, SessionEntry]
) -> tuple[list[SessionEntry], dict[str, SessionEntry]]:
    """The store's entries and id map with the covered part made into entries in front of
    ``after`` (the entries after it, mapped in ``by_id``), in file order."""
    covered = cold.materialize(cold.parents())
    every = dict(zip(cold.ids.as_list(), covered, strict=True))
    every.update(by_id)
    return [*covered, *after], every


@dataclass
class ColdChain:
    """The covered entries (the first ``cold.count`` of the store's list) as runs of a chain."""

    entries: list[SessionEntry]  # the store's list: the covered entries come first
    cold: ColdPart
    generation: int = 0

    def path_to(self, position: int) -> tuple[list[SessionEntry], list[int]]:
        """Root → the covered entry at ``position``, and the indices in it of the entries parsed
        in full."""
        path: list[SessionEntry] = []
        full: list[int] = []
        for start, end in self.cold.pieces(position):
            shift = len(path) - start
            full.extend(p + shift for p in self.cold.full_between(start, end))
            path.extend(self.entries[start:end])
        return path, full

    def branch_path(
        self, by_id: Mapping[str, SessionEntry], leaf_id: str | None
    ) -> tuple[list[SessionEntry], list[int] | None]:
        """``tree.branch_path`` for the store's entries, and the indices on the path of the
        covered entries parsed in full (None when unknown). A path that reaches the covered part
        at its last entry (the usual one: the latest compaction follows it) goes through it in
        slices; any other is walked step by step."""
        last = self.entries[self.cold.count - 1]
        walked: list[SessionEntry] = []
        get = by_id.get
        current = get(leaf_id) if leaf_id is not None else None
        steps_left = len(by_id)
        while current is not None and steps_left > 0:
            if current is last:
                walked.reverse()
                path, full = self.path_to(self.cold.count - 1)
                return path + walked, full
            steps_left -= 1
            walked.append(current)
            parent = current.get("parentId")
            current = get(parent) if parent is not None and parent != current["id"] else None
        walked.reverse()
        return walked, None
