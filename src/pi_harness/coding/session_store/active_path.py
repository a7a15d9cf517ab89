"""Walking a large session's active path (``store.py``): the projection (``context.py``) reads
only the path's ``relevant`` indices, and the stubs among them are read from the file first.

Two forms of the covered part: kept as columns (``cold_part.py``: the path goes through it in
ranges, ``cold_path.py``), or made into entries with stubs, whose runs make it a few slices
(``cold_chain.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain

from pi_harness.coding.session_store.cold_chain import ColdChain
from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.cold_path import walk_cold
from pi_harness.coding.session_store.context import WalkedPath
from pi_harness.coding.session_store.context_window import context_window
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.tree import branch_path


def walk_columns(cold: ColdPart, by_id: Mapping[str, SessionEntry], leaf_id: str | None) -> WalkedPath:
    """Root → leaf where ``by_id`` holds the entries after the covered part, kept as columns."""
    walked = walk_cold(cold, by_id, leaf_id)
    full = walked.full_indices()
    # Compactions are among the entries after the covered part and its entries parsed in full.
    after = zip(range(len(walked) - 1, walked.cold_length - 1, -1), reversed(walked.hot), strict=True)
    covered = ((index, walked[index]) for index in reversed(full))
    wanted, low = context_window(walked, chain(after, covered), walked.id_at, walked.stub_role)
    walked.fill(wanted)
    # Before ``low`` the path holds unread stubs and the covered entries parsed in full.
    return WalkedPath(walked, [*(index for index in full if index < low), *range(low, len(walked))])


def walk_entries(
    by_id: Mapping[str, SessionEntry], leaf_id: str | None, runs: ColdChain | None, stubs: ColdPart | None
) -> WalkedPath:
    """Root → leaf over every entry (``runs``: the covered part's, when current; ``stubs``: the
    covered part whose messages are not all read yet)."""
    if runs is not None:
        path, covered = runs.branch_path(by_id, leaf_id)
    else:
        path, covered = branch_path(by_id, leaf_id), None
    relevant: list[int] | None = None
    if stubs is not None and stubs.unfilled():
        candidates = zip(range(len(path) - 1, -1, -1), reversed(path), strict=True)
        wanted, low = context_window(path, candidates, lambda i: path[i]["id"], lambda i: stubs.role_of(path[i]))
        stubs.fill_entries([path[index] for index in wanted])
        if covered is not None:
            relevant = [index for index in covered if index < low]
            relevant.extend(range(low, len(path)))
    return WalkedPath(path, relevant)
