"""Opening a large session file without parsing every message in it.

A long session is mostly ``user``, ``assistant`` and ``toolResult`` messages, and after a
compaction only the newest of them reach the model. So a file of at least
``DEFER_MIN_BYTES`` is scanned, not parsed: each line is validated and decoded by ``msgspec``
into just its type, id, parent and message role (the rest is skipped without building objects),
and such a message becomes a *stub* ``{"type", "id", "parentId"}`` plus the offset of its line.
Every other entry (compactions, model and label changes, system and custom messages…) is parsed
as usual. The tree, the leaf and the labels work on stubs; whatever reads a message's content
first fills its stub in place from the file (``DeferredMessages.fill``), so the store's callers
only ever see complete entries.

The scan agrees with the full reader (``jsonl.read_session_file``) line for line: a line that
is not valid JSON, or not of the simple shape above, is handed to the same tolerant parsing.
A file that needs migration or has duplicate ids is read in full instead.

What the scan learnt about the lines before the latest compaction is kept in an index file
beside the session (``scan_index.py``); the next open reads it and scans only the bytes after it.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

import orjson

from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION, SessionEntry
from pi_harness.coding.session_store.jsonl import is_header, loads_tolerant, read_session_file

DEFER_MIN_BYTES = 4 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
ROLES = ("user", "assistant", "toolResult")
_ROLE_CODE = {role: code for code, role in enumerate(ROLES)}


@dataclass
class CoveredLines:
    """Every line before the latest compaction that gave the header or an entry, in file order:
    what the index file records. ``kinds``: ``h`` header, ``f`` entry parsed in full, ``s`` stub
    (its id, parent and role in the stub lists, in the same order)."""

    end: int = 0  # the offset up to which the lines are known
    kinds: bytearray = field(default_factory=bytearray)
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))
    stub_ids: list[str] = field(default_factory=list)
    stub_parents: list[str | None] = field(default_factory=list)
    stub_roles: bytearray = field(default_factory=bytearray)
    sample: str = ""  # scan_index.sample of the file's first ``end`` bytes, when they were read

    def add(self, kind: bytes, offset: int, length: int) -> None:
        self.kinds += kind
        self.offsets.append(offset)
        self.lengths.append(length)


@dataclass
class ScannedSession:
    header_record: dict[str, object]
    entries: list[dict[str, object]]
    deferred: DeferredMessages
    ends_with_newline: bool = True
    covered: CoveredLines | None = None  # to be saved as the index (None: the index is current)


@dataclass
class DeferredMessages:
    """The stubs of one opened file: entry id → slot in compact arrays of line offset, line length
    and message role (a dict of tuples would cost three objects per stub)."""

    path: Path
    slots: dict[str, int] = field(default_factory=dict)
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))
    roles: bytearray = field(default_factory=bytearray)
    # What to save as the index file when the session is closed (``scan_index.save``).
    unsaved: CoveredLines | None = None

    def __bool__(self) -> bool:
        return bool(self.slots)

    def __len__(self) -> int:
        return len(self.slots)

    def add(self, entry_id: str, offset: int, length: int, role: int) -> None:
        self.slots[entry_id] = len(self.offsets)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.roles.append(role)

    def role(self, entry: SessionEntry) -> str | None:
        slot = self.slots.get(entry["id"]) if isinstance(entry.get("id"), str) else None
        return ROLES[self.roles[slot]] if slot is not None else None

    def is_stub(self, entry: SessionEntry) -> bool:
        return "message" not in entry and entry.get("id") in self.slots

    def fill(self, entries: Iterable[SessionEntry]) -> None:
        """Complete every stub among ``entries`` (in place) from the file."""
        wanted = [e for e in entries if self.is_stub(e)]
        if not wanted:
            return
        slots, offsets, lengths = self.slots, self.offsets, self.lengths
        wanted.sort(key=lambda e: offsets[slots[e["id"]]])
        try:
            with open(self.path, "rb") as handle:
                fd = handle.fileno()
                for entry in wanted:
                    slot = slots[entry["id"]]
                    record = _parse(os.pread(fd, lengths[slot], offsets[slot]))
                    if record is None or record.get("id") != entry["id"] or record.get("type") != "message":
                        raise ValueError("the session file changed")
                    _complete(entry, record)
                    del slots[entry["id"]]
        except (OSError, ValueError):
            # The file was rewritten since it was opened (another program migrated or edited it):
            # take what it holds now, by id, and give a stub nothing can be found for an empty
            # message of its role rather than fail the session.
            self._fill_from_rewritten([e for e in wanted if self.is_stub(e)])

    def _fill_from_rewritten(self, stubs: list[SessionEntry]) -> None:
        self.unsaved = None  # the scan no longer describes the file
        found = {e.get("id"): e for e in read_session_file(self.path).entries}
        for entry in stubs:
            record = found.get(entry["id"])
            if isinstance(record, dict) and record.get("type") == "message" and isinstance(record.get("message"), dict):
                _complete(entry, record)
            else:
                role = ROLES[self.roles[self.slots[entry["id"]]]]
                cast(dict[str, object], entry)["message"] = {"role": role, "content": []}
            del self.slots[entry["id"]]


def context_part(path: list[SessionEntry], deferred: DeferredMessages) -> list[SessionEntry]:
    """The entries of the active path whose content the model context reads: everything from
    the latest compaction's first kept entry on (the whole path without one), and the latest
    assistant message before that, which still names the model."""
    start = 0
    for index in range(len(path) - 1, -1, -1):
        entry = path[index]
        if entry["type"] == "compaction":
            first_kept = entry.get("firstKeptEntryId")
            start = index
            for earlier in range(index - 1, -1, -1):
                if path[earlier]["id"] == first_kept:
                    start = earlier
                    break
            break
    part = path[start:]
    for index in range(start - 1, -1, -1):
        entry = path[index]
        if entry["type"] == "model_change":
            break
        if deferred.role(entry) == "assistant" or (
            entry["type"] == "message"
            and isinstance(entry.get("message"), dict)
            and cast(dict[str, object], entry["message"]).get("role") == "assistant"
        ):
            part.append(entry)
            break
    return part


def _complete(entry: SessionEntry, record: dict[str, object]) -> None:
    """Turn the stub into the full entry, keeping what the store's repairs decided for it."""
    from pi_harness.coding.session_store.repair import repaired_content

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


_COMPACTION = b'{"type":"compaction"'
_CHUNK = 1 << 20


def last_compaction_offset(path: Path, size: int, floor: int = 0) -> int | None:
    """Where the file's last compaction line starts (as Pi and we write it), searched from the
    end in chunks down to ``floor``; None when there is none at or after it."""
    with open(path, "rb") as handle:
        end = size
        while end > floor:
            start = max(floor, end - _CHUNK)
            handle.seek(start)
            # Overlap the next chunk by the marker's length so a marker across the seam is found.
            chunk = handle.read(end - start + len(_COMPACTION) - 1)
            found = chunk.rfind(_COMPACTION)
            while found > 0 and chunk[found - 1 : found] != b"\n":
                found = chunk.rfind(_COMPACTION, 0, found)
            if found >= 0 and (found > 0 or start == 0 or _preceded_by_newline(handle, start)):
                return start + found
            end = start
    return None


def _preceded_by_newline(handle: BinaryIO, offset: int) -> bool:
    handle.seek(offset - 1)
    return handle.read(1) == b"\n"


@dataclass
class _Scan:
    """The state of one scan, which may start from an index (``scan_index.load``)."""

    path: Path
    header: dict[str, object] | None = None
    entries: list[dict[str, object]] = field(default_factory=list)
    seen: set[object] = field(default_factory=set)
    deferred: DeferredMessages = field(init=False)
    covered: CoveredLines = field(default_factory=CoveredLines)

    def __post_init__(self) -> None:
        self.deferred = DeferredMessages(self.path)


class _Refused(Exception):
    """The file is better read in full (old format, duplicate ids)."""


def _scan_lines(scan: _Scan, handle: BinaryIO, offset: int, tail: int) -> bytes:
    """Scan the lines from ``offset`` (a line start) to the end; lines before ``tail`` may become
    stubs and are recorded in ``scan.covered``. Returns the last line read."""
    from pi_harness.coding.session_store.line_shape import DecodeError as decode_error
    from pi_harness.coding.session_store.line_shape import decode_line as decode

    entries, seen, deferred, covered = scan.entries, scan.seen, scan.deferred, scan.covered
    last = b""
    previous: object = scan.covered.stub_ids[-1] if scan.covered.stub_ids else None
    handle.seek(offset)
    for raw in handle:
        start, offset, last = offset, offset + len(raw), raw
        if scan.header is None:
            line = raw[len(_BOM) :] if raw.startswith(_BOM) else raw
            record = loads_tolerant(line)
            if not isinstance(record, dict):
                continue  # unparsable or not an object: skipped, as the full reader does
            if not is_header(record) or record.get("version") != CURRENT_SESSION_VERSION:
                raise _Refused
            scan.header = record
            if start < tail:
                covered.add(b"h", start, len(raw))
            continue
        shape = None
        if start < tail:
            try:
                shape = decode(raw)
            except decode_error:
                pass
        if (
            shape is not None
            and shape.type == "message"
            and isinstance(shape.id, str)
            and shape.message is not None
            and isinstance(shape.message.role, str)
            and shape.message.role in _ROLE_CODE
            and (shape.parentId is None or isinstance(shape.parentId, str))
        ):
            if shape.id in seen:
                raise _Refused
            seen.add(shape.id)
            # Most parents are the line before: that entry's own id object, not a copy of it.
            parent = previous if shape.parentId == previous else shape.parentId
            previous = shape.id
            entries.append({"type": "message", "id": shape.id, "parentId": parent})
            role = _ROLE_CODE[shape.message.role]
            deferred.add(shape.id, start, len(raw), role)
            covered.add(b"s", start, len(raw))
            covered.stub_ids.append(shape.id)
            covered.stub_parents.append(parent)
            covered.stub_roles.append(role)
            continue
        record = loads_tolerant(raw)
        if not isinstance(record, dict):
            continue
        previous = record.get("id") if isinstance(record.get("id"), str) else None
        if isinstance(record.get("id"), str):
            if record["id"] in seen:
                raise _Refused
            seen.add(record["id"])
        entries.append(record)
        if start < tail:
            covered.add(b"f", start, len(raw))
    covered.end = max(covered.end, min(tail, offset))
    return last


def scan_session_file(path: Path, *, use_index: bool = True) -> ScannedSession | None:
    """The file as stubs and entries, or None when it is better read in full (small, missing,
    old format, no header first, duplicate ids)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size < DEFER_MIN_BYTES:
        return None
    try:
        import pi_harness.coding.session_store.line_shape  # noqa: F401
    except ImportError:  # msgspec missing from a broken install: the full reader still works
        return None
    from pi_harness.coding.session_store import scan_index

    scan = _Scan(path)
    try:
        with open(path, "rb") as handle:
            start = scan_index.load(path, handle, size, scan) if use_index else 0
            # Without a compaction the whole branch reaches the model and would be parsed anyway;
            # after the latest one everything is parsed at once (it is the part the model reads).
            tail = last_compaction_offset(path, size, start)
            if tail is None and start == 0:
                return None
            known = scan.covered.end
            last = _scan_lines(scan, handle, start, start if tail is None else tail)
            if scan.covered.end > known:
                scan.covered.sample = scan_index.sample(handle, scan.covered.end)
    except _Refused:
        return None
    except OSError:
        return None
    if scan.header is None:
        return None
    unsaved = scan.covered if scan.covered.end > known else None
    scan.deferred.unsaved = unsaved
    return ScannedSession(scan.header, scan.entries, scan.deferred, not last or last.endswith(b"\n"), unsaved)
