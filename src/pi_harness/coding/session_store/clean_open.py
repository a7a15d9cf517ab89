"""Loading a large session from its scan (``deferred.py``).

A clean covered part (``cold_part.py``) stays columns: no repair can change it, so only the
entries parsed in full are repaired (its own with their ids and parents taken as they are, the
ones after it as any entries are). A covered part that is not clean (a parent missing or later,
an id of the wrong type) is made into entries at once and the whole tree repaired, as for any file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.deferred import ScannedSession
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.repair import report_repairs


@dataclass
class ScannedLoad:
    """What the store loads."""

    entries: list[SessionEntry]  # after the covered part (``cold`` kept), else every entry
    others: list[SessionEntry]  # the entries that are not stubs, in file order (labels, name)
    cold: ColdPart | None = None  # the covered part, kept as columns
    stubs: ColdPart | None = None  # the covered part made into entries: its stubs to fill


def load_scanned(file: Path, scanned: ScannedSession) -> ScannedLoad:
    cold = scanned.cold
    after = cast(list[SessionEntry], scanned.hot)
    if scanned.parents is not None:
        cold.unsaved = False  # an index holds only a clean part
        entries = report_repairs(file, [*cold.materialize(scanned.parents), *after])
        return ScannedLoad(entries, entries, stubs=cold)
    positions = cold.full_positions()
    records = [cold.records[position] for position in positions]
    usable = [e for e in after if isinstance(e.get("id"), str) and isinstance(e.get("type"), str)]
    # The covered ids are "known" to come before every entry that names them.
    fixed = report_repairs(file, [*records, *usable], cold.ids, verified=len(records))
    for position, record in zip(positions, fixed, strict=False):
        cold.records[position] = record
    return ScannedLoad(fixed[len(records) :], fixed, cold=cold)
