"""Loading a large session whose covered part is clean (``cold_chain.py``): only the entries
parsed in full are repaired, the covered entries are taken as the scan found them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from pi_harness.coding.session_store.cold_chain import ColdChain
from pi_harness.coding.session_store.deferred import ScannedSession
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.repair import report_repairs


@dataclass
class CleanLoad:
    """What the store loads: every entry (file order), those that are not stubs, by id."""

    entries: list[SessionEntry]
    others: list[SessionEntry]
    by_id: dict[str, SessionEntry]
    chain: ColdChain


def clean_load(file: Path, scanned: ScannedSession, others: list[SessionEntry]) -> CleanLoad | None:
    """The scanned entries with ``others`` (the non-stubs, migrated) repaired, a repaired copy in
    its original's place; None when the covered part is not clean or an entry is unusable (then
    the whole tree is repaired as for any file)."""
    chain, by_id = scanned.chain, scanned.by_id
    if chain is None or by_id is None:
        return None
    if not all(isinstance(e.get("id"), str) and isinstance(e.get("type"), str) for e in others):
        return None
    entries = cast(list[SessionEntry], scanned.entries)
    # No repair can change a covered entry's id or parent; the covered ids are "known" to come
    # before every entry that names them.
    fixed = report_repairs(file, others, by_id.keys())
    swaps = {id(old): new for old, new in zip(others, fixed, strict=True) if old is not new}
    if swaps:
        entries = [swaps.get(id(entry), entry) for entry in entries]
    # The covered entries are already mapped by id; the others are mapped now.
    for entry in (*entries[chain.count :], *swaps.values()):
        by_id[entry["id"]] = entry
    return CleanLoad(entries, fixed, by_id, chain)
