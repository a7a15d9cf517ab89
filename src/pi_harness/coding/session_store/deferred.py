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
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

import orjson

from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION, SessionEntry
from pi_harness.coding.session_store.jsonl import is_header, read_session_file

DEFER_MIN_BYTES = 4 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_STUB_ROLES = frozenset({"user", "assistant", "toolResult"})


@dataclass
class ScannedSession:
    header_record: dict[str, object]
    entries: list[dict[str, object]]
    deferred: DeferredMessages
    ends_with_newline: bool = True


@dataclass
class DeferredMessages:
    """The stubs of one opened file: entry id → (line offset, line length, message role)."""

    path: Path
    lines: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.lines)

    def role(self, entry: SessionEntry) -> str | None:
        spot = self.lines.get(entry["id"]) if isinstance(entry.get("id"), str) else None
        return spot[2] if spot is not None else None

    def is_stub(self, entry: SessionEntry) -> bool:
        return "message" not in entry and entry.get("id") in self.lines

    def fill(self, entries: Iterable[SessionEntry]) -> None:
        """Complete every stub among ``entries`` (in place) from the file."""
        wanted = [e for e in entries if self.is_stub(e)]
        if not wanted:
            return
        wanted.sort(key=lambda e: self.lines[e["id"]][0])
        try:
            with open(self.path, "rb") as handle:
                fd = handle.fileno()
                for entry in wanted:
                    offset, length, _ = self.lines[entry["id"]]
                    record = _parse(os.pread(fd, length, offset))
                    if record is None or record.get("id") != entry["id"] or record.get("type") != "message":
                        raise ValueError("the session file changed")
                    _complete(entry, record)
                    del self.lines[entry["id"]]
        except (OSError, ValueError):
            # The file was rewritten since it was opened (another program migrated or edited it):
            # take what it holds now, by id, and give a stub nothing can be found for an empty
            # message of its role rather than fail the session.
            self._fill_from_rewritten([e for e in wanted if self.is_stub(e)])

    def _fill_from_rewritten(self, stubs: list[SessionEntry]) -> None:
        found = {e.get("id"): e for e in read_session_file(self.path).entries}
        for entry in stubs:
            record = found.get(entry["id"])
            if isinstance(record, dict) and record.get("type") == "message" and isinstance(record.get("message"), dict):
                _complete(entry, record)
            else:
                role = self.lines[entry["id"]][2]
                cast(dict[str, object], entry)["message"] = {"role": role, "content": []}
            del self.lines[entry["id"]]


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


def _last_compaction_offset(path: Path, size: int) -> int | None:
    """Where the file's last compaction line starts (as Pi and we write it), searched from the
    end in chunks; None when there is none."""
    with open(path, "rb") as handle:
        end = size
        while end > 0:
            start = max(0, end - _CHUNK)
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


def scan_session_file(path: Path) -> ScannedSession | None:
    """The file as stubs and entries, or None when it is better read in full (small, missing,
    old format, no header first, duplicate ids)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size < DEFER_MIN_BYTES:
        return None
    # Without a compaction the whole branch reaches the model and would be parsed anyway; after
    # the latest one everything is parsed at once (it is the part the model reads).
    tail = _last_compaction_offset(path, size)
    if tail is None:
        return None
    from pi_harness.coding.session_store.jsonl import loads_tolerant

    try:
        from pi_harness.coding.session_store.line_shape import DecodeError as decode_error
        from pi_harness.coding.session_store.line_shape import decode_line as decode
    except ImportError:  # msgspec missing from a broken install: the full reader still works
        return None

    header: dict[str, object] | None = None
    entries: list[dict[str, object]] = []
    deferred = DeferredMessages(path)
    seen: set[object] = set()
    offset = 0
    last = b""
    with open(path, "rb") as handle:
        for raw in handle:
            start, offset, last = offset, offset + len(raw), raw
            if header is None:
                line = raw[len(_BOM) :] if raw.startswith(_BOM) else raw
                record = loads_tolerant(line)
                if not isinstance(record, dict):
                    continue  # unparsable or not an object: skipped, as the full reader does
                if not is_header(record) or record.get("version") != CURRENT_SESSION_VERSION:
                    return None
                header = record
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
                and shape.message.role in _STUB_ROLES
                and (shape.parentId is None or isinstance(shape.parentId, str))
            ):
                if shape.id in seen:
                    return None
                seen.add(shape.id)
                stub: dict[str, object] = {"type": "message", "id": shape.id, "parentId": shape.parentId}
                entries.append(stub)
                deferred.lines[shape.id] = (start, len(raw), shape.message.role)
                continue
            record = loads_tolerant(raw)
            if not isinstance(record, dict):
                continue
            if isinstance(record.get("id"), str):
                if record["id"] in seen:
                    return None
                seen.add(record["id"])
            entries.append(record)
    if header is None:
        return None
    return ScannedSession(header, entries, deferred, ends_with_newline=not last or last.endswith(b"\n"))
