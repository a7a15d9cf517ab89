"""Upgrading old session files to the current format.

* v1 → v2: entries get ids and a linear ``parentId`` chain; a compaction's numeric
  ``firstKeptEntryIndex`` (an index into the file's records, header included) becomes
  ``firstKeptEntryId``.
* v2 → v3: messages with the legacy role ``hookMessage`` become ``custom``.
* within v3: system messages of earlier pi-harness versions get Pi's shape (``legacy_system.py``).

Records are changed in place; the caller rewrites the file when anything changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION, SessionEntry, SessionHeader
from pi_harness.coding.session_store.ids import new_entry_id
from pi_harness.coding.session_store.legacy_system import upgrade_system_entries

Record = dict[str, object]


def header_version(header: Mapping[str, object]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def _v1_to_v2(header: Record, entries: list[Record]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for entry in entries:
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        entry["id"] = entry_id
        entry["parentId"] = previous
        previous = entry_id
    # ``firstKeptEntryIndex`` counted the header as record 0.
    for entry in entries:
        if entry.get("type") != "compaction" or "firstKeptEntryIndex" not in entry:
            continue
        index = entry.pop("firstKeptEntryIndex")
        if isinstance(index, int) and not isinstance(index, bool) and 1 <= index <= len(entries):
            entry["firstKeptEntryId"] = entries[index - 1]["id"]
    header["version"] = 2


def _v2_to_v3(header: Record, entries: list[Record]) -> None:
    for entry in entries:
        message = entry.get("message")
        if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
    header["version"] = 3


def migrate(header: Record, entries: list[Record]) -> bool:
    """Bring ``header`` and ``entries`` to the current version in place; True if anything changed."""
    version = header_version(header)
    changed = version < CURRENT_SESSION_VERSION
    if version < 2:
        _v1_to_v2(header, entries)
    if version < 3:
        _v2_to_v3(header, entries)
    return upgrade_system_entries(entries) or changed


@dataclass(frozen=True)
class MigratedRecords:
    header: SessionHeader
    entries: list[SessionEntry]
    changed: bool  # the file is of an older format and should be rewritten


def migrate_records(header: Record, entries: list[Record]) -> MigratedRecords:
    """``migrate``, then the records as what they now are: a current header and entries."""
    changed = migrate(header, entries)
    return MigratedRecords(cast(SessionHeader, header), cast(list[SessionEntry], entries), changed)
