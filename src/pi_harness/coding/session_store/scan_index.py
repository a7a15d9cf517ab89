"""The index file beside a large session: what a scan learnt, so the next open skips it.

``<session>.jsonl.idx`` records, for the lines of the file before its latest compaction (the
part whose messages stay stubs, ``deferred.py``), each line's kind, each stub's id, parent, role,
offset and length, and the offset and length of the other lines (``covered.py``); stub
parents are stored only where they are not the stub before. Opening the session again reads the
index and scans only the bytes after it. The index is a cache, never required: Pi and our
session listings only look at files ending in ``.jsonl``; a missing, unreadable, foreign or stale
index is ignored (and replaced when the session is closed), and an index is never trusted for a
file that changed under it.

Staleness is decided on a sample of the covered bytes, not on times: every open appends to the
session, so its size and mtime always change, while the covered part, written once, does not. The
sample is the header line, 16 blocks spread over the covered part and its last 64 KiB (ending at
the newline before the compaction); a rewrite that moves any line moves the bytes the sample sees.
The index's own first line is a checksum (CRC-32) of the rest, so a torn or altered index is
ignored; and whatever the index says, ``DeferredMessages.fill`` still checks each line's id and
type when it reads the message, and falls back to a full read of the file.
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import tempfile
import zlib
from array import array
from dataclasses import dataclass
from itertools import compress
from operator import ne
from pathlib import Path
from typing import BinaryIO

import orjson

from pi_harness.coding.session_store.covered import CoveredLines
from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION
from pi_harness.coding.session_store.jsonl import is_header, loads_tolerant

SUFFIX = ".idx"
FORMAT = "pi-harness session index"
VERSION = 3
_BLOCKS = 16
_BLOCK = 4096
_TAIL = 64 * 1024
_BOM = b"\xef\xbb\xbf"


def index_path(session: Path) -> Path:
    return session.with_name(session.name + SUFFIX)


def sample(handle: BinaryIO, end: int) -> str:
    """A digest of the header line, spread blocks and the last bytes of ``[0, end)``."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(end.to_bytes(8, "little"))
    fd = handle.fileno()
    first = os.pread(fd, min(end, _TAIL), 0)
    digest.update(first.split(b"\n", 1)[0])
    for block in range(_BLOCKS):
        digest.update(os.pread(fd, _BLOCK, end * block // _BLOCKS))
    digest.update(os.pread(fd, min(end, _TAIL), max(0, end - _TAIL)))
    return digest.hexdigest()


def _checksum(body: bytes | memoryview, crc: int = 0) -> bytes:
    """A CRC-32 of the index's body: enough to notice a torn or damaged cache file (whose
    fields are also checked for shape, and whose stubs are checked when they are read)."""
    return b"%08x" % zlib.crc32(body, crc)


def _ints(values: array[int]) -> str:
    return base64.b64encode(values.tobytes()).decode("ascii")


def _array(text: object, count: int) -> array[int] | None:
    if not isinstance(text, str):
        return None
    values = array("q")
    try:
        values.frombytes(base64.b64decode(text, validate=True))
    except ValueError:
        return None
    return values if len(values) == count else None


def _breaks(ids: list[str], parents: list[str | None]) -> list[list[object]]:
    """The stubs whose parent is not the stub before them (a root, an entry parsed in full, a
    branch point), as ``[stub number, parent]``: the rest follows from the ids alone."""
    before: list[str | None] = [None, *ids[:-1]]
    return [[k, parents[k]] for k in compress(range(len(ids)), map(ne, parents, before))]


def save(session: Path, covered: CoveredLines) -> bool:
    """Write the index of ``covered`` atomically; False when the file no longer matches it (or the
    directory refuses the write). Called when the session is closed, off the first request's path.

    The file: a checksum of the rest, a line of JSON with the small fields and the arrays (base64
    of their machine form), then the stub ids joined by NUL bytes (a session whose ids hold one
    gets no index)."""
    target = index_path(session)
    blob = "\x00".join(covered.stub_ids).encode("utf-8")
    if blob.count(b"\x00") != max(0, len(covered.stub_ids) - 1):
        return False
    try:
        with open(session, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < covered.end or sample(handle, covered.end) != covered.sample:
                return False
        meta = orjson.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "byteorder": sys.byteorder,
                "end": covered.end,
                "sample": covered.sample,
                "kinds": covered.kinds.decode("ascii"),
                "lineOffsets": _ints(covered.line_offsets),
                "lineLengths": _ints(covered.line_lengths),
                "stubs": len(covered.stub_ids),
                "stubOffsets": _ints(covered.stub_offsets),
                "stubLengths": _ints(covered.stub_lengths),
                "roles": covered.stub_roles.hex(),
                "breaks": _breaks(covered.stub_ids, covered.stub_parents),
            }
        )
        checksum = _checksum(blob, zlib.crc32(b"\n", zlib.crc32(meta)))
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(checksum + b"\n")
                out.write(meta)
                out.write(b"\n")
                out.write(blob)
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
    """What an index gave: the covered lines, the header and the entries parsed in full."""

    covered: CoveredLines
    header: dict[str, object]
    records: list[dict[str, object]]


def _parents(ids: list[str], breaks: object) -> list[str | None] | None:
    if not isinstance(breaks, list):
        return None
    parents: list[str | None] = [None, *ids[:-1]] if ids else []
    for item in breaks:
        if not isinstance(item, list) or len(item) != 2:
            return None
        k, parent = item
        if type(k) is not int or not 0 <= k < len(ids) or not (parent is None or isinstance(parent, str)):
            return None
        parents[k] = parent
    return parents


def _record(body: memoryview) -> tuple[dict[str, object], str] | None:
    split = _find_newline(body)
    if split < 0:
        return None
    try:
        record = orjson.loads(body[:split])
        blob = body[split + 1 :].tobytes().decode("utf-8")
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("version") != VERSION:
        return None
    return record, blob


def load(session: Path, handle: BinaryIO, size: int) -> Loaded | None:
    """The covered lines as the session's index records them, when it matches the file."""
    try:
        raw = memoryview(index_path(session).read_bytes())
    except OSError:
        return None
    newline = raw[:64].tobytes().find(b"\n")
    if newline < 0 or raw[:newline].tobytes() != _checksum(raw[newline + 1 :]):
        return None  # torn or altered: the fields below are checked for shape, not for meaning
    found = _record(raw[newline + 1 :])
    if found is None:
        return None
    record, blob = found
    end, kinds, stubs, roles = (record.get(k) for k in ("end", "kinds", "stubs", "roles"))
    if (
        record.get("byteorder") != sys.byteorder
        or not isinstance(end, int)
        or not 0 < end <= size
        or not isinstance(kinds, str)
        or not kinds.isascii()
        or not isinstance(stubs, int)
        or not isinstance(roles, str)
        or kinds.count("s") != stubs
        or kinds.count("h") != 1
        or not kinds.startswith("h")
        or kinds.count("f") + 1 + stubs != len(kinds)
    ):
        return None
    ids = blob.split("\x00") if stubs else []
    lines = len(kinds) - stubs
    counts = {"lineOffsets": lines, "lineLengths": lines, "stubOffsets": stubs, "stubLengths": stubs}
    arrays = [_array(record.get(key), count) for key, count in counts.items()]
    parents = _parents(ids, record.get("breaks")) if len(ids) == stubs else None
    try:
        role_codes = bytearray.fromhex(roles)
    except ValueError:
        return None
    if parents is None or len(role_codes) != stubs or role_codes.translate(None, b"\x00\x01\x02"):
        return None
    line_offsets, line_lengths, stub_offsets, stub_lengths = arrays
    if line_offsets is None or line_lengths is None or stub_offsets is None or stub_lengths is None:
        return None
    if sample(handle, end) != record.get("sample"):
        return None
    covered = CoveredLines(
        end=end,
        kinds=bytearray(kinds, "ascii"),
        line_offsets=line_offsets,
        line_lengths=line_lengths,
        stub_ids=ids,
        stub_parents=parents,
        stub_roles=role_codes,
        stub_offsets=stub_offsets,
        stub_lengths=stub_lengths,
        sample=str(record["sample"]),
    )
    return _read_lines(handle, covered)


def _find_newline(body: memoryview) -> int:
    """The first newline of a large buffer, found without copying all of it."""
    step = 1 << 16
    for start in range(0, len(body), step):
        found = body[start : start + step].tobytes().find(b"\n")
        if found >= 0:
            return start + found
    return -1


def _read_lines(handle: BinaryIO, covered: CoveredLines) -> Loaded | None:
    """The header and the entries parsed in full, read again from the lines the index names;
    None when one of them does not read as it says."""
    fd = handle.fileno()
    header: dict[str, object] | None = None
    records: list[dict[str, object]] = []
    for offset, length in zip(covered.line_offsets, covered.line_lengths, strict=True):
        line = os.pread(fd, length, offset)
        if header is None:
            record = loads_tolerant(line[len(_BOM) :] if line.startswith(_BOM) else line)
            if not isinstance(record, dict) or not is_header(record):
                return None
            if record.get("version") != CURRENT_SESSION_VERSION:
                return None
            header = record
            continue
        record = loads_tolerant(line)
        if not isinstance(record, dict):
            return None
        records.append(record)
    if header is None:
        return None
    return Loaded(covered, header, records)


def remove(session: Path) -> None:
    """Delete the session's index, if any (when the session file itself is deleted)."""
    try:
        index_path(session).unlink()
    except OSError:
        pass
