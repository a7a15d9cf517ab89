"""The index file beside a large session: what a scan learnt, so the next open skips it.

``<session>.jsonl.idx`` records the columns of the covered part (the lines of the file before its
latest compaction, ``cold_part.py``) in their machine form, so an open reads them with a few
copies and no step per entry: every entry's id (NUL-joined), role and line offset; the
run starts of the chain and their parents; where the header and the entries parsed in full are
(those lines are read again from the session); the ids of the entries after the covered part
that were already found not to reuse a covered id; and, once they were counted, what the covered
entries count and cost (``usage_summary.py``). The index is a cache, never required: Pi and
our session listings only look at files ending in ``.jsonl``; a missing, unreadable, foreign or
stale index is ignored (and replaced when the session is closed), and an index is never trusted
for a file that changed under it.

Staleness is decided on a sample of the covered bytes, not on times: every open appends to the
session, so its size and mtime always change, while the covered part, written once, does not. The
sample is the header line, 16 blocks spread over the covered part and its last 64 KiB (ending at
the newline before the compaction); a rewrite that moves any line moves the bytes the sample sees.
The index's own first line is a checksum (CRC-32) of the rest, so a torn or altered index is
ignored; and whatever the index says, ``ColdPart`` still checks each message line's id and type
when it reads it, and falls back to a full read of the file.
"""

from __future__ import annotations

import os
import sys
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO, cast

import orjson

try:  # the BLAKE2 module alone: ``hashlib`` would load OpenSSL's first, a few ms of every reopen
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

from pi_harness.coding.session_store.cold_ids import ColdIds
from pi_harness.coding.session_store.cold_part import FULL, ColdPart
from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION, SessionEntry
from pi_harness.coding.session_store.jsonl import is_header, loads_tolerant
from pi_harness.coding.session_store.usage_summary import UsageSummary

SUFFIX = ".idx"
FORMAT = "pi-harness session index"
VERSION = 4
_BLOCKS = 16
_BLOCK = 4096
_TAIL = 64 * 1024
_BOM = b"\xef\xbb\xbf"
_SECTIONS = ("ids", "roles", "offsets", "checked")
_ROLE_BYTES = bytes([0, 1, 2, FULL])


def index_path(session: Path) -> Path:
    return session.with_name(session.name + SUFFIX)


def sample(handle: BinaryIO, end: int) -> str:
    """A digest of the header line, spread blocks and the last bytes of ``[0, end)``."""
    digest = blake2b(digest_size=16)
    digest.update(end.to_bytes(8, "little"))
    fd = handle.fileno()
    first = os.pread(fd, min(end, _TAIL), 0)
    digest.update(first.split(b"\n", 1)[0])
    for block in range(_BLOCKS):
        digest.update(os.pread(fd, _BLOCK, end * block // _BLOCKS))
    digest.update(os.pread(fd, min(end, _TAIL), max(0, end - _TAIL)))
    return digest.hexdigest()


def _joined(ids: Sequence[object]) -> bytes | None:
    """Strings NUL-joined; None when one holds a NUL (the index cannot keep it) or is no string."""
    if not all(isinstance(i, str) for i in ids):
        return None
    blob = "\x00".join(cast(Sequence[str], ids)).encode("utf-8", "surrogatepass")
    return blob if blob.count(b"\x00") == max(0, len(ids) - 1) else None


def save(session: Path, cold: ColdPart, checked: Sequence[object] = ()) -> bool:
    """Write the index of ``cold`` atomically; False when the file no longer matches it (or the
    directory refuses the write). Called when the session is closed, off the first request's path.
    ``checked``: ids of entries after the covered part known not to be covered ids.

    The file: a checksum of the rest, a line of JSON with the small fields, then the sections of
    ``_SECTIONS`` one after the other (a session whose ids hold a NUL gets no index)."""
    import tempfile  # here, not at the top: it loads ``random`` and ``hashlib``, ~1.5 ms of every reopen

    ids = cold.ids.joined()
    if not cold.sample or ids.count(b"\x00") != max(0, cold.count - 1):
        return False
    after = _joined(checked) or b""
    sections = (ids, bytes(cold.roles), cold.offsets.tobytes(), after)
    target = index_path(session)
    try:
        with open(session, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < cold.end or sample(handle, cold.end) != cold.sample:
                return False
        meta = orjson.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "byteorder": sys.byteorder,
                "end": cold.end,
                "sample": cold.sample,
                "count": cold.count,
                "header": list(cold.header),
                "starts": cold.starts,
                "startParents": cold.start_parents,
                "full": cold.full_positions(),
                "checked": len(checked) if after else 0,
                "sizes": [len(section) for section in sections],
                "usage": cold.usage.to_json() if cold.usage is not None else None,
            }
        )
        crc = zlib.crc32(b"\n", zlib.crc32(meta))
        for section in sections:
            crc = zlib.crc32(section, crc)
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(b"%08x\n" % crc)
                out.write(meta)
                out.write(b"\n")
                for section in sections:
                    out.write(section)
            os.chmod(temp, os.stat(session).st_mode & 0o666)
            os.replace(temp, target)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        return False
    return True


@dataclass
class Loaded:
    """What an index gave: the covered part, its header, the ids checked after it."""

    cold: ColdPart
    header: dict[str, object]
    checked: list[str]


def _ints(data: bytes, count: int) -> array[int] | None:
    values = array("q")
    if len(data) != count * values.itemsize:
        return None
    values.frombytes(data)
    return values


def _positions(value: object, below: int) -> list[int] | None:
    """A list of increasing ints in ``[0, below)``."""
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        return None
    ints = cast(list[int], value)
    if any(b <= a for a, b in pairwise(ints)) or (ints and not 0 <= ints[0] <= ints[-1] < below):
        return None
    return ints


def _meta(data: bytes) -> tuple[dict[str, object], int] | None:
    """The checked JSON line of an index and where its sections start."""
    if data[8:9] != b"\n" or data[:8] != b"%08x" % zlib.crc32(memoryview(data)[9:]):
        return None  # torn or altered: the fields below are checked for shape, not for meaning
    end = data.find(b"\n", 9)
    if end < 0:
        return None
    try:
        meta = orjson.loads(memoryview(data)[9:end])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
        return None
    return meta, end + 1


def load(session: Path, handle: BinaryIO, size: int) -> Loaded | None:
    """The covered part as the session's index records it, when it matches the file."""
    try:
        data = index_path(session).read_bytes()
    except OSError:
        return None
    found = _meta(data)
    if found is None:
        return None
    meta, base = found
    raw = memoryview(data)
    end, count, header, sizes, checked = (meta.get(k) for k in ("end", "count", "header", "sizes", "checked"))
    if (
        meta.get("byteorder") != sys.byteorder
        or type(end) is not int
        or not 0 < end <= size
        or type(count) is not int
        or count < 0
        or type(checked) is not int
        or not isinstance(header, list)
        or len(header) != 2
        or not all(type(v) is int and v >= 0 for v in header)
        or not isinstance(sizes, list)
        or len(sizes) != len(_SECTIONS)
        or not all(type(v) is int and v >= 0 for v in sizes)
        or base + sum(sizes) != len(raw)
    ):
        return None
    sections: list[memoryview] = []  # copied once each below
    for length in sizes:
        sections.append(raw[base : base + length])
        base += length
    blob, role_bytes, offset_bytes, checked_blob = (bytes(section) for section in sections)
    roles = bytearray(role_bytes)
    offsets = _ints(offset_bytes, count)
    starts = _positions(meta.get("starts"), max(count, 1))
    full = _positions(meta.get("full"), count)
    parents = meta.get("startParents")
    if (
        offsets is None
        or len(roles) != count
        or roles.translate(None, _ROLE_BYTES)
        or full is None
        or len(full) != roles.count(FULL)
        or any(roles[p] != FULL for p in full)
        or starts is None
        or bool(starts) != bool(count)
        or (starts and starts[0] != 0)
        or not isinstance(parents, list)
        or len(parents) != len(starts)
        or not all(type(p) is int and -1 <= p < s for p, s in zip(parents, starts, strict=True))
        or (count and blob.count(b"\x00") != count - 1)
        or (not count and len(blob))
    ):
        return None
    if sample(handle, end) != meta.get("sample"):
        return None
    ids = ColdIds(blob=blob, count=count)
    cold = ColdPart(session, end, (header[0], header[1]), ids, roles, offsets)
    cold.starts, cold.start_parents, cold.sample = starts, cast(list[int], parents), str(meta["sample"])
    cold.usage = UsageSummary.from_json(meta.get("usage"))
    record = _read_records(handle, cold, full)
    if record is None:
        return None
    after = checked_blob.decode("utf-8", "surrogatepass").split("\x00") if checked else []
    return Loaded(cold, record, after if len(after) == checked else [])


def _read_records(handle: BinaryIO, cold: ColdPart, full: list[int]) -> dict[str, object] | None:
    """The header and the entries parsed in full, read again from the lines the index names; the
    header, or None when one of them does not read as it says."""
    fd = handle.fileno()
    line = os.pread(fd, cold.header[1], cold.header[0])
    header = loads_tolerant(line[len(_BOM) :] if line.startswith(_BOM) else line)
    if not is_header(header) or cast(dict[str, object], header).get("version") != CURRENT_SESSION_VERSION:
        return None
    records: dict[int, SessionEntry] = {}
    for position in full:
        record = loads_tolerant(cold.line(fd, position))
        if (
            not isinstance(record, dict)
            or not isinstance(record.get("id"), str)
            or not isinstance(record.get("type"), str)
        ):
            return None
        parent = record.get("parentId")
        if parent is not None and not isinstance(parent, str):
            return None
        records[position] = cast(SessionEntry, record)
    cold.records = records
    cold.recount()
    return cast(dict[str, object], header)


def remove(session: Path) -> None:
    """Delete the session's index, if any (when the session file itself is deleted)."""
    try:
        index_path(session).unlink()
    except OSError:
        pass
