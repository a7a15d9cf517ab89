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
VERSION = 2
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


def _checksum(body: bytes | memoryview) -> bytes:
    return hashlib.blake2b(body, digest_size=16).hexdigest().encode("ascii")


def _ints(values: array[int]) -> str:
    return base64.b64encode(values.tobytes()).decode("ascii")


def _array(text: object, count: int, typecode: str = "q") -> array[int] | None:
    if not isinstance(text, str):
        return None
    values = array(typecode)
    try:
        values.frombytes(base64.b64decode(text, validate=True))
    except ValueError:
        return None
    return values if len(values) == count else None


_PREVIOUS = -2  # a stub's parent code: the stub before it
_ROOT = -1  # no parent


def _parent_codes(ids: list[str], parents: list[str | None]) -> tuple[array[int], list[str]]:
    """Each stub's parent as a code: most are the stub before it, a few name another entry (a
    compaction, a branch point), kept in a list. Shared on load with the stubs' own ids, so a
    parent costs no string of its own."""
    codes = array("i")
    others: list[str] = []
    previous: str | None = None
    for entry_id, parent in zip(ids, parents, strict=True):
        if parent is None:
            codes.append(_ROOT)
        elif parent == previous:
            codes.append(_PREVIOUS)
        else:
            codes.append(len(others))
            others.append(parent)
        previous = entry_id
    return codes, others


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
    codes, others = _parent_codes(covered.stub_ids, covered.stub_parents)
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
                "offsets": _ints(covered.offsets),
                "lengths": _ints(covered.lengths),
                "stubs": len(covered.stub_ids),
                "parents": base64.b64encode(codes.tobytes()).decode("ascii"),
                "otherParents": others,
                "roles": covered.stub_roles.hex(),
            }
        )
        digest = hashlib.blake2b(meta, digest_size=16)
        digest.update(b"\n")
        digest.update(blob)
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(digest.hexdigest().encode("ascii") + b"\n")
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


def _parents(codes: array[int], others: list[str], ids: list[str]) -> list[str | None] | None:
    count = len(ids)
    if len(codes) != count or (count and (min(codes) < _PREVIOUS or max(codes) >= len(others))):
        return None
    if count and codes[0] == _PREVIOUS:
        return None
    return [ids[k - 1] if c == _PREVIOUS else None if c == _ROOT else others[c] for k, c in enumerate(codes)]


def load(session: Path, handle: BinaryIO, size: int, scan: _Scan) -> int:
    """Fill ``scan`` from the session's index when it matches the file; the offset to scan on
    from (0: no usable index, nothing filled)."""
    try:
        raw = memoryview(index_path(session).read_bytes())
    except OSError:
        return 0
    newline = raw[:64].tobytes().find(b"\n")
    if newline < 0 or raw[:newline].tobytes() != _checksum(raw[newline + 1 :]):
        return 0  # torn or altered: the fields below are checked for shape, not for meaning
    body = raw[newline + 1 :]
    split = _find_newline(body)
    if split < 0:
        return 0
    try:
        record = orjson.loads(body[:split])
        blob = body[split + 1 :].tobytes().decode("utf-8")
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return 0
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("version") != VERSION:
        return 0
    end, kinds, stubs, others, roles = (record.get(k) for k in ("end", "kinds", "stubs", "otherParents", "roles"))
    if (
        record.get("byteorder") != sys.byteorder
        or not isinstance(end, int)
        or not 0 < end <= size
        or not isinstance(kinds, str)
        or not isinstance(stubs, int)
        or not isinstance(others, list)
        or not set(map(type, others)) <= {str}
        or not isinstance(roles, str)
        or kinds.count("s") != stubs
        or kinds.count("h") != 1
        or not kinds.startswith("h")
    ):
        return 0
    ids = blob.split("\x00") if stubs else []
    offsets = _array(record.get("offsets"), len(kinds))
    lengths = _array(record.get("lengths"), len(kinds))
    codes = _array(record.get("parents"), stubs, "i")
    parents = _parents(codes, others, ids) if codes is not None and len(ids) == stubs else None
    try:
        role_codes = bytearray.fromhex(roles)
    except ValueError:
        return 0
    if offsets is None or lengths is None or parents is None:
        return 0
    if len(role_codes) != stubs or max(role_codes, default=0) > 2:
        return 0
    if sample(handle, end) != record.get("sample"):
        return 0
    return _fill(scan, handle, end, kinds, offsets, lengths, ids, parents, role_codes, str(record["sample"]))


def _find_newline(body: memoryview) -> int:
    """The first newline of a large buffer, found without copying all of it."""
    step = 1 << 16
    for start in range(0, len(body), step):
        found = body[start : start + step].tobytes().find(b"\n")
        if found >= 0:
            return start + found
    return -1


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
