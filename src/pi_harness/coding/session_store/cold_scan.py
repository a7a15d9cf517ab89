"""Scanning the covered part of a large session (the lines before its latest compaction) into
columns (``cold_part.py``), a megabyte at a time and without a Python step per line.

For each chunk of whole lines, one pass of ``msgspec`` in C validates every line and decodes
only its ``type``, ``id``, ``parentId`` and message ``role`` (the rest is skipped without building
objects). The line starts are found at memchr speed; every line must start with ``{`` and end with
``}`` and give exactly one value, so a blank, torn, doubled, padded or split line fails the whole
chunk: one value per line, as the full reader (``jsonl.read_session_file``) takes them. A message
of role ``user``, ``assistant`` or ``toolResult`` with a string id and a parent (a string or null)
becomes a stub; every other line is parsed in full, as the full reader parses it.

A chunk that fails is scanned line by line (``scan_lines``), which decides each line as the full
reader does: a line that is no JSON object is no entry.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq, itemgetter, ne
from typing import BinaryIO, cast

import msgspec

from pi_harness.coding.session_store.cold_ids import ColdIds
from pi_harness.coding.session_store.cold_part import FULL, ROLE_CODE, ColdPart, resolve_runs
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.jsonl import loads_tolerant

CHUNK = 1 << 20


class _Role(msgspec.Struct, gc=False):
    role: str | None = None


class _Shape(msgspec.Struct, gc=False):
    """What the scan decodes of a line: every entry as Pi and pi-harness write it has a type, an
    id and a parent; a line without them, or with one of another type, fails its chunk (and is
    then decided by ``scan_lines``)."""

    type: str
    id: str
    parentId: str | None
    message: _Role = msgspec.field(default_factory=_Role)  # (``"message": null`` fails the chunk)


_decode_lines = msgspec.json.Decoder(_Shape).decode_lines
_ROLE_CODES: dict[str | None, int] = {role: code for role, code in ROLE_CODE.items()}  # None: FULL
_CHUNK_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)
_FIRST = object()  # the "entry before" the first one: no parent is it, so position 0 starts a run


def _offsets() -> array[int]:
    return array("q")


@dataclass
class ColdColumns:
    """The columns of ``ColdPart`` as a scan fills them, in file order."""

    ids: list[str] = field(default_factory=list)
    roles: bytearray = field(default_factory=bytearray)
    offsets: array[int] = field(default_factory=_offsets)
    records: dict[int, SessionEntry] = field(default_factory=dict)
    # Position → parent of the entries that are not the child of the entry before them.
    breaks: dict[int, str | None] = field(default_factory=dict)
    clean: bool = True  # False once an entry parsed in full has an id, type or parent of the wrong type
    previous: object = _FIRST  # the id of the last entry so far
    runs: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))  # resolved before (an index)

    def checked(self, record: dict[str, object], position: int) -> tuple[str, str | None]:
        """Keep ``record`` (parsed in full) for ``position``: its id and parent for the columns."""
        entry_id, parent = record.get("id"), record.get("parentId")
        if not isinstance(entry_id, str) or not isinstance(record.get("type"), str):
            self.clean = False
            entry_id = f"\x00{position}"  # a stand-in no other entry has (a clash refuses the scan)
        if parent is not None and not isinstance(parent, str):
            self.clean = False
            parent = None
        self.records[position] = cast(SessionEntry, record)  # an entry: the store checks its shape
        return entry_id, parent

    def add(self, entry_id: str, parent: str | None, role: int, offset: int) -> None:
        """One line: a stub's id and parent, or what ``checked`` gave for a record (role FULL)."""
        if parent != self.previous or self.previous is _FIRST:
            self.breaks[len(self.ids)] = parent
        self.ids.append(entry_id)
        self.roles.append(role)
        self.offsets.append(offset)
        self.previous = entry_id

    def parents(self) -> list[str | None]:
        """Each entry's parent as written (an entry parsed in full with a bad one: None)."""
        parents: list[str | None] = [None, *self.ids[:-1]] if self.ids else []
        for position, parent in self.breaks.items():
            parents[position] = parent
        return parents

    @classmethod
    def extending(cls, part: ColdPart) -> ColdColumns:
        """Columns that go on from ``part`` (read from an index), to scan the lines after it."""
        ids = list(part.ids.as_list())
        columns = cls(ids, bytearray(part.roles), array("q", part.offsets), dict(part.records))
        columns.previous = ids[-1] if ids else _FIRST
        columns.runs = (list(part.starts), list(part.start_parents))
        return columns

    def finish(self, part: ColdPart, known: set[str]) -> bool:
        """Give ``part`` these columns and their runs; False when the part is not clean (a
        parent missing, later or of the wrong type: the repairs decide)."""
        ids = ColdIds(self.ids)
        ids.with_set(known)
        part.ids, part.roles, part.offsets = ids, self.roles, self.offsets
        part.records = self.records
        part.recount()
        runs = resolve_runs(ids, self.breaks, *self.runs) if self.clean else None
        if runs is None:
            return False
        part.starts, part.start_parents = runs
        return True


def _line_starts(buffer: bytes, end: int) -> list[int] | None:
    """Where each line of ``buffer[:end]`` starts; None unless every line starts with ``{`` and
    ends with ``}`` (then no JSON value can span two lines: ``}`` then ``{`` is never valid inside
    one)."""
    if end <= 0:
        return None
    starts = [0]
    find, add = buffer.find, starts.append
    position = find(b"\n", 0, end) + 1  # memchr speed; the one step per line of the scan
    while position:
        add(position)
        position = find(b"\n", position, end) + 1
    if starts[-1] >= end:
        return None
    # The first and the last byte of every line, picked in one call each.
    firsts = bytes(itemgetter(*starts, 0)(buffer))
    lasts = bytes(itemgetter(*map((-2).__add__, starts[1:]), end - 1, end - 1)(buffer))
    if firsts.count(b"{") != len(starts) + 1 or lasts.count(b"}") != len(starts) + 1:
        return None
    return starts


def scan_chunk(buffer: bytes, base: int, columns: ColdColumns, end: int | None = None) -> bool:
    """Add the lines of ``buffer[:end]`` (whole lines separated by newlines, without the one that
    ends the last; default: all of it) to ``columns``; ``base`` is the file offset of its first
    line. False, with nothing added, when a line is not exactly one JSON object of the expected
    field types."""
    if end is None:
        end = len(buffer)
    starts = _line_starts(buffer, end)
    if starts is None:
        return False
    try:
        shapes = _decode_lines(memoryview(buffer)[:end])
    except _CHUNK_ERRORS:
        return False
    count = len(starts)
    if len(shapes) != count:  # a line holding two values
        return False
    ids: list[str] = [shape.id for shape in shapes]
    parents: list[str | None] = [shape.parentId for shape in shapes]
    # A stub is a message of one of those roles; the few other entries are parsed in full (an
    # entry of another type has FULL whatever role it names).
    codes = bytearray(map(_ROLE_CODES.get, [shape.message.role for shape in shapes], repeat(FULL)))
    for k in compress(range(count), map(ne, [shape.type for shape in shapes], repeat("message"))):
        codes[k] = FULL
    ends = [*starts[1:], end + 1]
    position = len(columns.ids)
    for k in compress(range(count), map(eq, codes, repeat(FULL))):
        record = loads_tolerant(buffer[starts[k] : ends[k] - 1])
        if not isinstance(record, dict):  # cannot happen for a line msgspec took as an object
            return False
        ids[k], parents[k] = columns.checked(record, position + k)
    previous = columns.previous
    breaks = columns.breaks
    # The entries that are not the child of the entry before, compared in C.
    for k in compress(range(count), map(ne, parents, [previous, *ids[:-1]])):
        breaks[position + k] = parents[k]
    if previous is _FIRST:
        breaks[position] = parents[0]
    columns.ids.extend(ids)
    columns.roles += codes
    columns.offsets.extend(map(base.__add__, starts))
    columns.previous = ids[-1]
    return True


def scan_lines(handle: BinaryIO, begin: int, end: int, columns: ColdColumns) -> None:
    """Add the lines of ``[begin, end)`` (both line starts) one by one, each decided as the full
    reader decides it: a line that is no JSON object is no entry."""
    from pi_harness.coding.session_store.line_shape import DecodeError, decode_line

    handle.seek(begin)
    offset = begin
    for raw in handle:
        if offset >= end:
            break
        start, offset = offset, offset + len(raw)
        try:
            shape = decode_line(raw)
        except DecodeError:
            shape = None
        if (
            shape is not None
            and shape.type == "message"
            and isinstance(shape.id, str)
            and shape.message is not None
            and isinstance(shape.message.role, str)
            and shape.message.role in ROLE_CODE
            and (shape.parentId is None or isinstance(shape.parentId, str))
        ):
            columns.add(shape.id, shape.parentId, ROLE_CODE[shape.message.role], start)
            continue
        record = loads_tolerant(raw)
        if isinstance(record, dict):
            entry_id, parent = columns.checked(record, len(columns.ids))
            columns.add(entry_id, parent, FULL, start)


def _line_end(fd: int, offset: int, tail: int) -> int:
    """The offset of the first newline at or after ``offset`` (there is one before ``tail``)."""
    while offset < tail:
        found = os.pread(fd, min(CHUNK, tail - offset), offset).find(b"\n")
        if found >= 0:
            return offset + found
        offset += CHUNK
    return tail - 1


def scan_covered(handle: BinaryIO, start: int, tail: int, columns: ColdColumns) -> None:
    """Scan the lines of ``[start, tail)`` (both line starts) chunk by chunk; a chunk the fast
    scan cannot take is scanned line by line."""
    fd = handle.fileno()
    position = start
    while position < tail:
        want = min(tail, position + CHUNK)
        buffer = os.pread(fd, want - position, position)
        if len(buffer) != want - position:
            scan_lines(handle, position, tail, columns)  # the file shrank under us: see what is there
            return
        # The chunk ends at its last newline (not copied out: the bytes after it are read again).
        end = len(buffer) - 1 if want == tail else buffer.rfind(b"\n")
        if end < 0:  # one line longer than a chunk: the chunk is that line
            end = _line_end(fd, want, tail) - position
            buffer = os.pread(fd, end, position)
            if len(buffer) != end:
                scan_lines(handle, position, tail, columns)
                return
        if not scan_chunk(buffer, position, columns, end):
            scan_lines(handle, position, position + end + 1, columns)
        position += end + 1
