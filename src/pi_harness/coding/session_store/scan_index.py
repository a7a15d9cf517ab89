"""The index file beside a large session: what a scan learnt, so the next open skips it.

``<session>.jsonl.idx`` records, for the lines of the file before its latest compaction (the
part whose messages stay stubs, ``deferred.py``), each line's offset, length and kind, and each
stub's id, parent and role. Opening the session again reads the index and scans only the bytes
after it. The index is a cache, never required: Pi and our session listings only look at files
ending in ``.jsonl``; a missing, unreadable, foreign or stale index is ignored (and replaced when
the session is closed), and an index is never trusted for a file that changed under it.

Staleness is decided on a sample of the covered bytes, not on times: every open appends to the
session, so its size and mtime always change, while the covered part, written once, does not. The
sample is the header line, 16 blocks spread over the covered part and its last 64 KiB (ending at
the newline before the compaction); a rewrite that moves any line moves the bytes the sample sees.
The index's own first line is a checksum of the rest, so a torn or altered index is ignored; and
whatever the index says, ``DeferredMessages.fill`` still checks each line's id and type when it
reads the message, and falls back to a full read of the file.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
import tempfile
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import orjson

from pi_harness.coding.session_store.entries import CURRENT_SESSION_VERSION
from pi_harness.coding.session_store.jsonl import is_header, loads_tolerant

if TYPE_CHECKING:
    from pi_harness.coding.session_store.deferred import CoveredLines, _Scan

SUFFIX = ".idx"
FORMAT = "pi-harness session index"
VERSION = 1
_BLOCKS = 16
_BLOCK = 4096
_TAIL = 64 * 1024
_BOM = b"\xef\xbb\xbf"
_RUNS = re.compile("s+|.")


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


def _checksum(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=16).hexdigest().encode("ascii")


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


def save(session: Path, covered: CoveredLines) -> bool:
    """Write the index of ``covered`` atomically; False when the file no longer matches it (or the
    directory refuses the write). Called when the session is closed, off the first request's path."""
    target = index_path(session)
    try:
        with open(session, "rb") as handle:
            if os.fstat(handle.fileno()).st_size < covered.end or sample(handle, covered.end) != covered.sample:
                return False
        body = orjson.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "byteorder": sys.byteorder,
                "end": covered.end,
                "sample": covered.sample,
                "kinds": covered.kinds.decode("ascii"),
                "offsets": _ints(covered.offsets),
                "lengths": _ints(covered.lengths),
                "ids": covered.stub_ids,
                "parents": covered.stub_parents,
                "roles": covered.stub_roles.hex(),
            }
        )
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(_checksum(body) + b"\n" + body)
            os.chmod(temp, os.stat(session).st_mode & 0o666)
            os.replace(temp, target)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        return False
    return True


def load(session: Path, handle: BinaryIO, size: int, scan: _Scan) -> int:
    """Fill ``scan`` from the session's index when it matches the file; the offset to scan on
    from (0: no usable index, nothing filled)."""
    try:
        raw = index_path(session).read_bytes()
    except OSError:
        return 0
    checksum, _, body = raw.partition(b"\n")
    if checksum != _checksum(body):
        return 0  # torn or altered: the fields below are checked for shape, not for meaning
    try:
        record = orjson.loads(body)
    except orjson.JSONDecodeError:
        return 0
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("version") != VERSION:
        return 0
    end, kinds, ids, parents, roles = (record.get(key) for key in ("end", "kinds", "ids", "parents", "roles"))
    if (
        record.get("byteorder") != sys.byteorder
        or not isinstance(end, int)
        or not 0 < end <= size
        or not isinstance(kinds, str)
        or not isinstance(ids, list)
        or not isinstance(parents, list)
        or not isinstance(roles, str)
        or len(ids) != len(parents)
        or kinds.count("s") != len(ids)
        or kinds.count("h") != 1
        or not kinds.startswith("h")
    ):
        return 0
    offsets = _array(record.get("offsets"), len(kinds))
    lengths = _array(record.get("lengths"), len(kinds))
    try:
        role_codes = bytearray.fromhex(roles)
    except ValueError:
        return 0
    if offsets is None or lengths is None or len(role_codes) != len(ids) or max(role_codes, default=0) > 2:
        return 0
    if sample(handle, end) != record.get("sample"):
        return 0
    if not set(map(type, ids)) <= {str} or not set(map(type, parents)) <= {str, type(None)}:
        return 0
    return _fill(scan, handle, end, kinds, offsets, lengths, ids, parents, role_codes, str(record["sample"]))


def _fill(
    scan: _Scan,
    handle: BinaryIO,
    end: int,
    kinds: str,
    offsets: array[int],
    lengths: array[int],
    ids: list[str],
    parents: list[str | None],
    roles: bytearray,
    digest: str,
) -> int:
    """The entries the index describes, as the scan would have found them; 0 (and ``scan`` left
    empty) when a line it names does not read as it says."""
    from pi_harness.coding.session_store.deferred import CoveredLines, DeferredMessages

    fd = handle.fileno()
    seen: set[object] = set(ids)
    if len(seen) != len(ids):
        return 0
    # The stubs are built in one comprehension and the few other lines spliced in between runs
    # of them: a loop over every line would cost more than the rest of the open.
    stubs: list[dict[str, object]] = [
        {"type": "message", "id": i, "parentId": p} for i, p in zip(ids, parents, strict=True)
    ]
    entries: list[dict[str, object]] = []
    header: dict[str, object] | None = None
    stub_positions: list[int] = []
    done = 0
    for run in _RUNS.finditer(kinds):
        position, kind = run.start(), run.group()
        if kind[0] == "s":
            stub_positions.extend(range(position, run.end()))
            entries.extend(stubs[done : done + len(kind)])
            done += len(kind)
            continue
        line = os.pread(fd, lengths[position], offsets[position])
        if kind == "h":
            record = loads_tolerant(line[len(_BOM) :] if line.startswith(_BOM) else line)
            if header is not None or not isinstance(record, dict) or not is_header(record):
                return 0
            if record.get("version") != CURRENT_SESSION_VERSION:
                return 0
            header = record
            continue
        record = loads_tolerant(line)
        if kind != "f" or not isinstance(record, dict):
            return 0
        entry_id = record.get("id")
        if isinstance(entry_id, str):
            if entry_id in seen:
                return 0
            seen.add(entry_id)
        entries.append(record)
    deferred = DeferredMessages(scan.path)
    deferred.slots = dict(zip(ids, range(len(ids)), strict=True))
    deferred.offsets = array("q", map(offsets.__getitem__, stub_positions))
    deferred.lengths = array("q", map(lengths.__getitem__, stub_positions))
    deferred.roles = bytearray(roles)  # its own: the scan goes on appending to both
    scan.header = header
    scan.entries = entries
    scan.seen = seen
    scan.deferred = deferred
    scan.covered = CoveredLines(
        end=end,
        kinds=bytearray(kinds, "ascii"),
        offsets=offsets,
        lengths=lengths,
        stub_ids=ids,
        stub_parents=parents,
        stub_roles=roles,
        sample=digest,
    )
    return end


def remove(session: Path) -> None:
    """Delete the session's index, if any (when the session file itself is deleted)."""
    try:
        index_path(session).unlink()
    except OSError:
        pass
