"""The covered part of a large session kept as columns, and the few of its entries an open needs.

The covered part is every line before the file's latest compaction (``deferred.py``). A long
session is mostly ``user``, ``assistant`` and ``toolResult`` messages there, and the model
context reads none of them but the last few before the compaction. So an open keeps that part as
it was scanned (``cold_scan.py``) or as the index file recorded it (``scan_index.py``): per entry
its id (``cold_ids.py``), its role (or ``FULL`` for an entry parsed in full: every entry of
another type, and messages of other roles), its line's offset (the line ends at the first
newline after it); the entries parsed in full themselves; and the chain as *runs*: most entries
are the child of the line before, so only where a run starts is a parent recorded, as the
position of an earlier entry. Such a part is *clean*: unique ids, every parent an earlier entry
(or none), so no repair can change it.

No entry object exists for a message there until one is asked for: ``entry`` makes a *stub*
``{"type", "id", "parentId"}`` (kept, so that it stays the same object), ``fill`` completes stubs
from the file, and ``materialize`` makes every entry, for the store's whole-file views.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import orjson

from pi_harness.coding.session_store.cold_ids import ColdIds
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.jsonl import read_session_file
from pi_harness.coding.session_store.repair import repaired_content
from pi_harness.coding.session_store.usage_summary import UsageSummary

ROLES = ("user", "assistant", "toolResult")
ROLE_CODE = {role: code for code, role in enumerate(ROLES)}
FULL = 255  # the role code of an entry parsed in full


def _offsets() -> array[int]:
    return array("q")


@dataclass
class ColdPart:
    """The covered entries of one opened file (positions count from its first entry)."""

    path: Path
    end: int  # the covered lines end here: the latest compaction's line starts at this offset
    header: tuple[int, int]  # the header line's offset and length
    ids: ColdIds
    roles: bytearray  # per entry: its role code (``ROLE_CODE``), ``FULL`` when parsed in full
    offsets: array[int] = field(default_factory=_offsets)  # per entry: where its line starts
    records: dict[int, SessionEntry] = field(default_factory=dict)  # the entries parsed in full
    starts: list[int] = field(default_factory=lambda: [0])  # where a run starts
    start_parents: list[int] = field(default_factory=lambda: [-1])  # its parent's position, -1: none
    sample: str = ""  # scan_index.sample of the file's first ``end`` bytes
    unsaved: bool = False  # the index file does not hold this yet (saved when the session closes)
    usage: UsageSummary | None = None  # what the covered entries count and cost, once counted
    made: dict[int, SessionEntry] = field(default_factory=dict)  # the stubs handed out so far
    _stubs: int = field(default=0, repr=False)
    _left: int = field(default=0, repr=False)  # stubs not filled yet
    _full: list[int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.recount()

    def recount(self) -> None:
        """Count the stubs again, after the columns or records were given."""
        self._stubs = self._left = len(self.roles) - self.roles.count(FULL)
        self._full = None

    @property
    def count(self) -> int:
        return len(self.roles)

    def unfilled(self) -> int:
        return self._left

    def full_positions(self) -> list[int]:
        if self._full is None:
            self._full = sorted(self.records)
        return self._full

    def has_messages(self) -> bool:
        return self._stubs > 0 or any(e["type"] == "message" for e in self.records.values())

    def parent_id(self, position: int) -> str | None:
        run = bisect_right(self.starts, position) - 1
        if self.starts[run] != position:
            return self.ids[position - 1]
        parent = self.start_parents[run]
        return self.ids[parent] if parent >= 0 else None

    def role(self, position: int) -> str | None:
        """The role of the message at ``position`` if it is a stub (filled or not)."""
        code = self.roles[position]
        return ROLES[code] if code != FULL else None

    def role_of(self, entry: SessionEntry) -> str | None:
        """The role of ``entry`` if it is one of these stubs not filled yet (after ``materialize``)."""
        if entry["type"] != "message" or "message" in entry:
            return None
        position = self.ids.position(entry["id"])
        return self.role(position) if position is not None else None

    def entry(self, position: int) -> SessionEntry:
        record = self.records.get(position)
        if record is not None:
            return record
        made = self.made.get(position)
        if made is None:
            stub = {"type": "message", "id": self.ids[position], "parentId": self.parent_id(position)}
            made = self.made[position] = cast(SessionEntry, stub)
        return made

    def pieces(self, position: int) -> list[tuple[int, int]]:
        """Root → the entry at ``position`` as ranges ``[start, end)`` of positions (each parent is
        an earlier entry, so the walk ends)."""
        pieces: list[tuple[int, int]] = []
        current = position
        while current >= 0:
            run = bisect_right(self.starts, current) - 1
            pieces.append((self.starts[run], current + 1))
            current = self.start_parents[run]
        pieces.reverse()
        return pieces

    def line(self, fd: int, position: int) -> bytes:
        """The line of the entry at ``position``, read from the file: up to the next entry's line
        (or the end of the part), cut at its newline (lines that are no entry may lie between)."""
        start = self.offsets[position]
        stop = self.offsets[position + 1] if position + 1 < len(self.offsets) else self.end
        data = os.pread(fd, stop - start, start)
        newline = data.find(b"\n")
        return data if newline < 0 else data[: newline + 1]

    def full_between(self, start: int, end: int) -> list[int]:
        """The positions in ``[start, end)`` of entries parsed in full."""
        full = self.full_positions()
        return full[bisect_left(full, start) : bisect_left(full, end)]

    # --- reading messages -----------------------------------------------------------------------

    def fill_positions(self, positions: Iterable[int]) -> None:
        """Make and complete, from the file, the stubs at ``positions``."""
        roles = self.roles
        entries = [(p, self.entry(p)) for p in positions if roles[p] != FULL]
        self._fill([(p, entry) for p, entry in entries if "message" not in entry])

    def fill_entries(self, entries: Iterable[SessionEntry]) -> None:
        """Complete every stub among ``entries`` (after ``materialize``: any entry of the store)."""
        if not self._left:
            return
        position_of, roles = self.ids.position, self.roles
        wanted: list[tuple[int, SessionEntry]] = []
        for entry in entries:
            if entry["type"] != "message" or "message" in entry:
                continue
            position = position_of(entry["id"])
            if position is not None and roles[position] != FULL:
                wanted.append((position, entry))
        self._fill(wanted)

    def _fill(self, wanted: list[tuple[int, SessionEntry]]) -> None:
        if not wanted:
            return
        wanted.sort(key=lambda item: item[0])  # file order
        try:
            with open(self.path, "rb") as handle:
                fd = handle.fileno()
                for position, entry in wanted:
                    record = _parse(self.line(fd, position))
                    if record is None or record.get("id") != entry["id"] or record.get("type") != "message":
                        raise ValueError("the session file changed")
                    complete(entry, record)
                    self._left -= 1
        except (OSError, ValueError):
            # The file was rewritten since it was opened (another program migrated or edited it):
            # take what it holds now, by id, and give a stub nothing can be found for an empty
            # message of its role rather than fail the session.
            self._fill_from_rewritten([(p, e) for p, e in wanted if "message" not in e])

    def _fill_from_rewritten(self, stubs: list[tuple[int, SessionEntry]]) -> None:
        self.unsaved = False  # the scan no longer describes the file: never save it as the index
        found = {e.get("id"): e for e in read_session_file(self.path).entries}
        for position, entry in stubs:
            record = found.get(entry["id"])
            if isinstance(record, dict) and record.get("type") == "message" and isinstance(record.get("message"), dict):
                complete(entry, record)
            else:
                cast(dict[str, object], entry)["message"] = {"role": ROLES[self.roles[position]], "content": []}
            self._left -= 1

    # --- every entry ----------------------------------------------------------------------------

    def parents(self) -> list[str | None]:
        ids = self.ids.as_list()
        parents: list[str | None] = [None, *ids[:-1]] if ids else []
        for start, parent in zip(self.starts, self.start_parents, strict=True):
            parents[start] = ids[parent] if parent >= 0 else None
        return parents

    def materialize(self, parents: list[str | None]) -> list[SessionEntry]:
        """Every covered entry in file order: the records, the stubs handed out, new stubs."""
        stubs = [{"type": "message", "id": i, "parentId": p} for i, p in zip(self.ids.as_list(), parents, strict=True)]
        entries = cast(list[SessionEntry], stubs)
        for position, record in self.records.items():
            entries[position] = record
        for position, made in self.made.items():
            entries[position] = made
        return entries


def complete(entry: SessionEntry, record: dict[str, object]) -> None:
    """Turn the stub into the full entry, keeping what the store's repairs decided for it."""
    target = cast(dict[str, object], entry)
    for key in ("id", "parentId"):
        if key in target:
            record[key] = target[key]
    record = cast(dict[str, object], repaired_content(cast(SessionEntry, record)))
    target.clear()
    target.update(record)


def _parse(line: bytes) -> dict[str, object] | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None


def resolve_runs(
    ids: ColdIds, breaks: dict[int, str | None], starts: list[int], parents: list[int]
) -> tuple[list[int], list[int]] | None:
    """``starts`` and ``parents`` (the runs resolved so far) extended by the entries that are not
    the child of the entry before (``breaks``, position → parent id; position 0 is one): each
    run start with the position of its parent, -1 for none. None when a parent is missing, later
    or the entry itself (then the repairs decide)."""
    if not starts and breaks and 0 not in breaks:
        return None
    for start in sorted(breaks):
        parent = breaks[start]
        position = ids.position(parent) if parent is not None else -1
        if position is None or position >= start:
            return None
        starts.append(start)
        parents.append(position)
    return starts, parents
