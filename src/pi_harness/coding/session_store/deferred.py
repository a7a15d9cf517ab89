"""Opening a large session file without parsing every message in it.

A long session is mostly ``user``, ``assistant`` and ``toolResult`` messages, and after a
compaction only the newest of them reach the model. So a file of at least ``DEFER_MIN_BYTES`` is
split at its latest compaction: the lines from there on are parsed in full (the model reads
them), the lines before it, the *covered part*, are kept as columns (``cold_part.py``): scanned a
megabyte at a time on a first open (``cold_scan.py``), read from the index file beside the
session on the next ones (``scan_index.py``), which then scan only the bytes after it.

The scan agrees with the full reader (``jsonl.read_session_file``) line for line: a line that
is not valid JSON, or not of the simple shape of a message, is handed to the same tolerant
parsing. A file that needs migration, has no compaction or has duplicate ids is read in full
instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

from pi_harness.coding.session_store.cold_ids import ColdIds
from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION
from pi_harness.coding.session_store.jsonl import is_header, loads_tolerant

DEFER_MIN_BYTES = 4 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_RECHECK = 8  # ids after the covered part searched for in it, beyond which the index is renewed


@dataclass
class ScannedSession:
    header_record: dict[str, object]
    cold: ColdPart
    hot: list[dict[str, object]]  # the entries from the end of the covered part on, parsed in full
    ends_with_newline: bool = True
    # Every covered entry's parent as written, when the covered part is not clean (its runs
    # could not be resolved: the repairs decide); None for a clean part.
    parents: list[str | None] | None = None


class _Refused(Exception):
    """The file is better read in full (old format, duplicate ids)."""


_COMPACTION = b'{"type":"compaction"'
_CHUNK = 1 << 20


def last_compaction_offset(handle: BinaryIO, size: int, floor: int = 0) -> int | None:
    """Where the file's last compaction line starts (as Pi and we write it), searched from the
    end in chunks down to ``floor``; None when there is none at or after it."""
    fd = handle.fileno()
    end = size
    while end > floor:
        start = max(floor, end - _CHUNK)
        # Overlap the next chunk by the marker's length so a marker across the seam is found.
        chunk = os.pread(fd, end - start + len(_COMPACTION) - 1, start)
        found = chunk.rfind(_COMPACTION)
        while found > 0 and chunk[found - 1 : found] != b"\n":
            found = chunk.rfind(_COMPACTION, 0, found)
        if found >= 0 and (found > 0 or start == 0 or os.pread(fd, 1, start - 1) == b"\n"):
            return start + found
        end = start
    return None


def _scan_header(handle: BinaryIO) -> tuple[dict[str, object], int, int]:
    """The header (unparsable lines before it are skipped, as the full reader does), its line's
    offset and length."""
    handle.seek(0)
    offset = 0
    for raw in handle:
        start, offset = offset, offset + len(raw)
        line = raw[len(_BOM) :] if raw.startswith(_BOM) else raw
        record = loads_tolerant(line)
        if not isinstance(record, dict):
            continue
        if not is_header(record) or record.get("version") != CURRENT_SESSION_VERSION:
            raise _Refused
        return record, start, len(raw)
    raise _Refused


_AFTER_MAX = 32 << 20  # the most bytes after the covered part read in one piece


def _read_after(handle: BinaryIO, offset: int, size: int) -> tuple[list[dict[str, object]], bytes]:
    """The lines from ``offset`` (a line start) to ``size`` parsed as the full reader parses them,
    and the last line."""
    records: list[dict[str, object]] = []
    data = os.pread(handle.fileno(), size - offset, offset) if 0 < size - offset <= _AFTER_MAX else b""
    if len(data) != size - offset:
        handle.seek(offset)
        last = b""
        for raw in handle:
            last = raw
            record = loads_tolerant(raw)
            if isinstance(record, dict):
                records.append(record)
        return records, last
    loads = orjson.loads
    for line in data.split(b"\n"):
        if not line:
            continue
        try:
            record = loads(line)
        except orjson.JSONDecodeError:
            record = loads_tolerant(line)
        if isinstance(record, dict):
            records.append(record)
    return records, data[data.rfind(b"\n", 0, len(data) - 1) + 1 :]


_Covered = tuple[ColdPart, dict[str, object], list[str], list[str | None] | None]


def _covered(path: Path, handle: BinaryIO, size: int, use_index: bool) -> _Covered | None:
    """The covered part (from the index, extended by a scan up to a newer compaction, or scanned
    whole), the header, the ids checked after it and, for a part that is not clean, every
    entry's parent; None without a compaction."""
    from pi_harness.coding.session_store import scan_index

    loaded = scan_index.load(path, handle, size) if use_index else None
    tail = last_compaction_offset(handle, size, loaded.cold.end if loaded is not None else 0)
    if loaded is not None and (tail is None or tail <= loaded.cold.end):
        return loaded.cold, loaded.header, loaded.checked, None
    if tail is None:
        return None  # no compaction: the whole branch reaches the model and is read anyway
    try:
        from pi_harness.coding.session_store import cold_scan
    except ImportError:  # msgspec missing from a broken install: the full reader still works
        raise _Refused from None
    if loaded is not None:
        columns, start = cold_scan.ColdColumns.extending(loaded.cold), loaded.cold.end
        header, header_line = loaded.header, loaded.cold.header
    else:
        header, offset, length = _scan_header(handle)
        columns, start, header_line = cold_scan.ColdColumns(), offset + length, (offset, length)
    cold_scan.scan_covered(handle, start, tail, columns)
    known = set(columns.ids)
    if len(known) != len(columns.ids):
        raise _Refused  # a duplicate id: the repairs' renaming needs the full reader
    part = ColdPart(path, tail, header_line, ColdIds(), bytearray())
    clean = columns.finish(part, known)
    part.sample, part.unsaved = scan_index.sample(handle, tail), True
    return part, header, [], None if clean else columns.parents()


def scan_session_file(path: Path, *, use_index: bool = True) -> ScannedSession | None:
    """The file as a covered part and the entries after it, or None when it is better read in
    full (small, missing, old format, no header first, no compaction, duplicate ids)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size < DEFER_MIN_BYTES:
        return None
    try:
        with open(path, "rb") as handle:
            covered = _covered(path, handle, size, use_index)
            if covered is None:
                return None
            cold, header, checked, parents = covered
            hot, last = _read_after(handle, cold.end, size)
        _check_ids(cold, hot, checked)
    except (_Refused, OSError):
        return None
    return ScannedSession(header, cold, hot, not last or last.endswith(b"\n"), parents)


def _check_ids(cold: ColdPart, hot: list[dict[str, object]], checked: list[str]) -> None:
    """Raises ``_Refused`` when an id after the covered part is used twice or is a covered id (the
    repairs' renaming needs the full reader). The ids the index found unused before (a prefix of
    them, as long as the lines are the same) are not searched for again."""
    ids = [record.get("id") for record in hot]
    named = [entry_id for entry_id in ids if isinstance(entry_id, str)]
    if len(set(named)) != len(named):
        raise _Refused
    # (The index may know more of them than the file still has: a copy of the file taken before
    # the last session appended to it.)
    known = min(len(ids), len(checked))
    new = ids[known:] if known and ids[:known] == checked[:known] else ids
    covered = cold.ids
    if any(entry_id in covered for entry_id in new):
        raise _Refused
    if len(new) > _RECHECK:
        cold.unsaved = True  # renew the index with them, so the next open need not search again
