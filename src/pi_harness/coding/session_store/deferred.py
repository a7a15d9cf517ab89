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
A file that needs migration or has duplicate ids is read in full instead. The lines before the
latest compaction are scanned a megabyte at a time (``cold_scan.py``); the lines from it on are
parsed in full, since the model context reads them.

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

from pi_harness.coding.session_store.cold_chain import ColdChain, materialize
from pi_harness.coding.session_store.covered import CoveredLines
from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION, SessionEntry
from pi_harness.coding.session_store.jsonl import is_header, loads_tolerant, read_session_file

DEFER_MIN_BYTES = 4 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
ROLES = ("user", "assistant", "toolResult")
_ROLE_CODE = {role: code for code, role in enumerate(ROLES)}


@dataclass
class ScannedSession:
    header_record: dict[str, object]
    entries: list[dict[str, object]]
    deferred: DeferredMessages
    ends_with_newline: bool = True
    covered: CoveredLines | None = None  # to be saved as the index (None: the index is current)
    # The entries that are not stubs (file order), and the chain of the covered part when that
    # part is clean (``cold_chain.py``): the store then repairs and searches only the others.
    others: list[dict[str, object]] = field(default_factory=list)
    chain: ColdChain | None = None
    by_id: dict[str, SessionEntry] | None = None  # the covered entries by id, with the chain


_RECENT = 4096  # how many of the newest stubs are searched before the map of all is built


@dataclass
class DeferredMessages:
    """The stubs of one opened file: their ids, and in compact arrays in the same order, their
    line offsets, line lengths and message roles (a dict of tuples would cost three objects per
    stub). The map id → slot is built only when a stub beyond the newest few is asked for: an
    open fills only the ones the model context reads, which are among the newest."""

    path: Path
    ids: list[str] = field(default_factory=list)
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))
    roles: bytearray = field(default_factory=bytearray)
    # What to save as the index file when the session is closed (``scan_index.save``).
    unsaved: CoveredLines | None = None
    _slots: dict[str, int] | None = field(default=None, repr=False)
    _recent: dict[str, int] | None = field(default=None, repr=False)
    _left: int = field(default=0, repr=False)  # stubs not filled yet

    def __post_init__(self) -> None:
        self._left = len(self.ids)

    def __bool__(self) -> bool:
        return self._left > 0

    def __len__(self) -> int:
        return self._left

    def _slot(self, entry_id: object) -> int | None:
        if not isinstance(entry_id, str):
            return None
        if self._slots is None:
            # First a map of the newest stubs only: the ones an open fills are among them.
            ids = self.ids
            if self._recent is None:
                low = max(0, len(ids) - _RECENT)
                self._recent = dict(zip(ids[low:], range(low, len(ids)), strict=True))
            slot = self._recent.get(entry_id)
            if slot is not None:
                return slot
            self._slots = dict(zip(ids, range(len(ids)), strict=True))
        return self._slots.get(entry_id)

    def _stub_slot(self, entry: SessionEntry) -> int | None:
        """The slot of the entry if it is a stub not filled yet (stubs are message entries)."""
        if entry["type"] != "message" or "message" in entry:
            return None
        return self._slot(entry["id"])

    def role(self, entry: SessionEntry) -> str | None:
        slot = self._stub_slot(entry)
        return ROLES[self.roles[slot]] if slot is not None else None

    def is_stub(self, entry: SessionEntry) -> bool:
        return self._stub_slot(entry) is not None

    def fill(self, entries: Iterable[SessionEntry]) -> None:
        """Complete every stub among ``entries`` (in place) from the file."""
        if not self._left:
            return
        wanted: list[tuple[int, SessionEntry]] = []
        for entry in entries:
            slot = self._stub_slot(entry)
            if slot is not None:
                wanted.append((slot, entry))
        if not wanted:
            return
        offsets, lengths = self.offsets, self.lengths
        wanted.sort(key=lambda item: offsets[item[0]])
        try:
            with open(self.path, "rb") as handle:
                fd = handle.fileno()
                for slot, entry in wanted:
                    record = _parse(os.pread(fd, lengths[slot], offsets[slot]))
                    if record is None or record.get("id") != entry["id"] or record.get("type") != "message":
                        raise ValueError("the session file changed")
                    _complete(entry, record)
                    self._left -= 1
        except (OSError, ValueError):
            # The file was rewritten since it was opened (another program migrated or edited it):
            # take what it holds now, by id, and give a stub nothing can be found for an empty
            # message of its role rather than fail the session.
            self._fill_from_rewritten([(slot, e) for slot, e in wanted if "message" not in e])

    def _fill_from_rewritten(self, stubs: list[tuple[int, SessionEntry]]) -> None:
        self.unsaved = None  # the scan no longer describes the file
        found = {e.get("id"): e for e in read_session_file(self.path).entries}
        for slot, entry in stubs:
            record = found.get(entry["id"])
            if isinstance(record, dict) and record.get("type") == "message" and isinstance(record.get("message"), dict):
                _complete(entry, record)
            else:
                cast(dict[str, object], entry)["message"] = {"role": ROLES[self.roles[slot]], "content": []}
            self._left -= 1


def context_part(path: list[SessionEntry], deferred: DeferredMessages) -> tuple[list[SessionEntry], int]:
    """The entries of the active path whose content the model context reads: everything from
    the latest compaction's first kept entry on (the whole path without one), and the latest
    assistant message before that, which still names the model; and the index of the first of
    them on the path (no stub before it can matter to the projection, ``context.WalkedPath``)."""
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
            return part, index
    return part, start


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
    covered: CoveredLines = field(default_factory=CoveredLines)
    records: list[dict[str, object]] = field(default_factory=list)  # the covered ``f`` lines
    after: list[dict[str, object]] = field(default_factory=list)  # the entries from the tail on


class _Refused(Exception):
    """The file is better read in full (old format, duplicate ids)."""


def _scan_header(scan: _Scan, handle: BinaryIO) -> int:
    """Read up to the header (unparsable lines before it are skipped, as the full reader does);
    the offset after its line."""
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
        scan.header = record
        scan.covered.add_line(b"h", start, len(raw))
        return offset
    raise _Refused


def _scan_lines(scan: _Scan, handle: BinaryIO, offset: int, tail: int, end: int | None = None) -> bytes:
    """Scan the lines from ``offset`` (a line start) to ``end`` (default: the end of the file)
    one by one: lines before ``tail`` may become stubs and are recorded in ``scan.covered``, the
    others are parsed into ``scan.after``. Returns the last line read."""
    if offset < tail:
        from pi_harness.coding.session_store.line_shape import DecodeError as decode_error
        from pi_harness.coding.session_store.line_shape import decode_line as decode

    covered = scan.covered
    last = b""
    previous: object = covered.stub_ids[-1] if covered.stub_ids else None
    handle.seek(offset)
    for raw in handle:
        if end is not None and offset >= end:
            break
        start, offset, last = offset, offset + len(raw), raw
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
            # Most parents are the line before: that entry's own id object, not a copy of it.
            parent = previous if shape.parentId == previous else shape.parentId
            previous = shape.id
            covered.add_stub(shape.id, parent, _ROLE_CODE[shape.message.role], start, len(raw))
            continue
        record = loads_tolerant(raw)
        if not isinstance(record, dict):
            continue
        previous = record.get("id") if isinstance(record.get("id"), str) else None
        if start < tail:
            covered.add_line(b"f", start, len(raw))
            scan.records.append(record)
        else:
            scan.after.append(record)
    covered.end = max(covered.end, min(tail, offset))
    return last


_AFTER_MAX = 32 << 20  # the most bytes after the covered part read in one piece


def _read_after(scan: _Scan, handle: BinaryIO, offset: int, size: int) -> bytes:
    """The lines from ``offset`` (a line start) to ``size``, parsed in full into ``scan.after``
    as the full reader parses them (without the line-by-line scan's shape decoding, so a
    reopened session does not need ``msgspec``). Returns the last line."""
    if not 0 < size - offset <= _AFTER_MAX:
        return _scan_lines(scan, handle, offset, offset)
    data = os.pread(handle.fileno(), size - offset, offset)
    if len(data) != size - offset:
        return _scan_lines(scan, handle, offset, offset)
    after, loads = scan.after, orjson.loads
    for line in data.split(b"\n"):
        if not line:
            continue
        try:
            record = loads(line)
        except orjson.JSONDecodeError:
            record = loads_tolerant(line)
        if isinstance(record, dict):
            after.append(record)
    return data[data.rfind(b"\n", 0, len(data) - 1) + 1 :]


def _by_line(scan: _Scan, handle: BinaryIO, begin: int, tail: int, end: int) -> None:
    _scan_lines(scan, handle, begin, tail, end)


def _cold_ids(
    cold: list[dict[str, object]], ids: list[object], after: list[dict[str, object]]
) -> dict[str, dict[str, object]]:
    """The covered entries by id (all strings: the chain checked), when no id is used twice in
    the file; raises ``_Refused`` otherwise."""
    by_id = dict(zip(cast(list[str], ids), cold, strict=True))
    if len(by_id) != len(ids):
        raise _Refused
    seen: set[object] = set()
    for record in after:
        entry_id = record.get("id")
        if isinstance(entry_id, str):
            if entry_id in by_id or entry_id in seen:
                raise _Refused
            seen.add(entry_id)
    return by_id


def _unique(ids: list[object], after: list[dict[str, object]]) -> None:
    """Raises ``_Refused`` when a string id is used twice in the covered entries and the entries
    after them (the repairs' renaming needs the full reader)."""
    seen = set(ids)
    if len(seen) != len(ids):
        named = [i for i in ids if isinstance(i, str)]
        seen = set(named)
        if len(seen) != len(named):
            raise _Refused
    for record in after:
        entry_id = record.get("id")
        if isinstance(entry_id, str):
            if entry_id in seen:
                raise _Refused
            seen.add(entry_id)


def _scan(scan: _Scan, handle: BinaryIO, size: int, use_index: bool) -> tuple[int, bytes] | None:
    """Fill ``scan`` (see ``scan_session_file``); the covered end known before, and the last line."""
    from pi_harness.coding.session_store import scan_index

    loaded = scan_index.load(scan.path, handle, size) if use_index else None
    if loaded is not None:
        scan.header, scan.covered, scan.records = loaded.header, loaded.covered, loaded.records
        start = loaded.covered.end
    else:
        start = 0
    known = scan.covered.end
    # Without a compaction the whole branch reaches the model and would be parsed anyway;
    # after the latest one everything is parsed at once (it is the part the model reads).
    tail = last_compaction_offset(scan.path, size, start)
    if tail is None and start == 0:
        return None
    if start == 0:
        start = _scan_header(scan, handle)
    if tail is not None and start < tail:
        try:
            from pi_harness.coding.session_store import cold_scan, line_shape  # noqa: F401
        except ImportError:  # msgspec missing from a broken install: the full reader still works
            raise _Refused from None
        cold_scan.scan_covered(
            handle.fileno(),
            start,
            tail,
            scan.covered,
            scan.records,
            lambda begin, end: _by_line(scan, handle, begin, tail, end),
        )
        scan.covered.end = max(scan.covered.end, tail)
    after = start if tail is None else max(start, tail)
    last = _read_after(scan, handle, after, size)
    if scan.covered.end > known:
        scan.covered.sample = scan_index.sample(handle, scan.covered.end)
    return known, last


def scan_session_file(path: Path, *, use_index: bool = True) -> ScannedSession | None:
    """The file as stubs and entries, or None when it is better read in full (small, missing,
    old format, no header first, duplicate ids)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size < DEFER_MIN_BYTES:
        return None
    scan = _Scan(path)
    try:
        with open(path, "rb") as handle:
            scanned = _scan(scan, handle, size, use_index)
        if scanned is None or scan.header is None:
            return None
        known, last = scanned
        covered = scan.covered
        cold, ids, parents, full = materialize(covered, scan.records)
        entries = cold + scan.after
        chain = ColdChain.build(cast(list[SessionEntry], entries), ids, parents, full) if cold else None
        by_id = _cold_ids(cold, ids, scan.after) if chain is not None else None
        if by_id is None:
            _unique(ids, scan.after)
    except (_Refused, OSError):
        return None
    deferred = DeferredMessages(path, covered.stub_ids, covered.stub_offsets, covered.stub_lengths, covered.stub_roles)
    unsaved = covered if covered.end > known else None
    deferred.unsaved = unsaved
    return ScannedSession(
        scan.header,
        entries,
        deferred,
        not last or last.endswith(b"\n"),
        unsaved,
        others=scan.records + scan.after,
        chain=chain,
        by_id=cast(dict[str, SessionEntry], by_id),
    )
