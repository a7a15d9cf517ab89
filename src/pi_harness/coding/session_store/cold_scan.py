"""Scanning the covered part of a large session (the lines before its latest compaction) a
megabyte at a time, without a Python step per line.

For each chunk of whole lines, three passes run in C:

* ``msgspec`` checks that every line is exactly one JSON value (``decode_lines`` into ``Raw``:
  validated, nothing built), and the values joined by newlines must give the chunk again, so a
  torn, doubled, blank or padded line is noticed;
* one regular expression matched at every line start says whether the line is a simple message
  entry as Pi and pi-harness write it, ``{"type":"message","id":…,"parentId":…,"timestamp":…,
  "message":{"role":…`` with the role ``user``, ``assistant`` or ``toolResult`` and ids free of
  escapes (so the bytes are the strings), and captures its id, parent and role;
* the offsets follow from the lengths of the values.

Such a line becomes a stub (``deferred.py``); every other line is parsed in full, as the full
reader parses it. A chunk that fails the first check is left to the line-by-line scan, which
decides each of its lines as the full reader does.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable
from itertools import accumulate, compress
from operator import ne, not_

import msgspec

from pi_harness.coding.session_store.covered import CoveredLines
from pi_harness.coding.session_store.jsonl import loads_tolerant

CHUNK = 1 << 20
_LINE = re.compile(
    rb'\n(?:\{"type":"message","id":"([^"\\\n]+)","parentId":(?:"([^"\\\n]*)"|(null)),'
    rb'(?:"timestamp":"[^"\\\n]*",)?"message":\{"role":"(user|assistant|toolResult)"|)'
)
_ROLE_CODE = {b"user": 0, b"assistant": 1, b"toolResult": 2}
_values = msgspec.json.Decoder(msgspec.Raw).decode_lines


def one_value_per_line(text: bytes, skip: int = 0) -> list[msgspec.Raw] | None:
    """The JSON value of each line of ``text[skip:]`` (lines separated by newlines, no newline
    at its end), or None when a line is not exactly one JSON value with nothing around it."""
    try:
        values = _values(memoryview(text)[skip:])
    except msgspec.DecodeError:
        return None
    # The values joined by newlines are the text again only when every line is one value with
    # nothing around it (no blank, padded or doubled line).
    joined = b"\n".join(values)
    return values if len(joined) == len(text) - skip and text.endswith(joined) else None


def scan_chunk(buffer: bytes, base: int, covered: CoveredLines, records: list[dict[str, object]]) -> bool:
    """Add the lines of ``buffer`` to ``covered`` (the full records of the non-stub lines to
    ``records``); False, with nothing added, when a line is not exactly one JSON value (or a
    stub's id is not UTF-8).

    ``buffer`` is a newline followed by whole lines separated by newlines, without the newline
    that ends the last one; ``base`` is the file offset of its first line (after that newline)."""
    values = one_value_per_line(buffer, 1)
    if values is None:
        return False
    shapes = _LINE.findall(buffer)
    if len(shapes) != len(values):
        return False
    lengths = [n + 1 for n in map(len, values)]  # each line with its newline
    offsets = list(accumulate(lengths[:-1], initial=base))
    ids, parents, nulls, roles = (list(column) for column in zip(*shapes, strict=True))
    kinds = bytearray(b"s") * len(ids)
    found: list[dict[str, object]] = []
    full_offsets: list[int] = []
    full_lengths: list[int] = []
    # The few other lines, parsed in full (those that are no object are dropped, as the full
    # reader skips them), then taken out of the stub columns.
    others = list(compress(range(len(ids)), map(not_, ids)))
    for k in others:
        record = loads_tolerant(bytes(values[k]))
        if isinstance(record, dict):
            kinds[k] = ord("f")
            found.append(record)
            full_offsets.append(offsets[k])
            full_lengths.append(lengths[k])
    for k in reversed(others):
        if kinds[k] != ord("f"):
            del kinds[k]
        for column in (ids, parents, nulls, roles, offsets, lengths):
            del column[k]
    try:
        new_ids = list(map(bytes.decode, ids))
    except UnicodeDecodeError:
        return False
    covered.stub_parents.extend(_parents(covered, ids, parents, nulls, new_ids))
    covered.stub_ids.extend(new_ids)
    covered.stub_roles.extend(map(_ROLE_CODE.__getitem__, roles))
    covered.stub_offsets.extend(array("q", offsets))
    covered.stub_lengths.extend(array("q", lengths))
    covered.line_offsets.extend(array("q", full_offsets))
    covered.line_lengths.extend(array("q", full_lengths))
    covered.kinds += kinds
    records.extend(found)
    return True


def _parents(
    covered: CoveredLines, raw_ids: list[bytes], parents: list[bytes], nulls: list[bytes], ids: list[str]
) -> list[str | None]:
    """Each new stub's parent: most are the stub before it (its very id object, shared); the
    others are decoded one by one."""
    if not ids:
        return []
    previous = covered.stub_ids[-1] if covered.stub_ids else None
    shared: list[str | None] = [previous, *ids[:-1]]
    before = [previous.encode() if previous is not None else None, *raw_ids[:-1]]
    for k in compress(range(len(ids)), map(ne, parents, before)):  # compared as bytes, in C
        shared[k] = parents[k].decode("utf-8", "replace")
    for k in compress(range(len(ids)), nulls):
        shared[k] = None
    return shared


def _line_end(fd: int, offset: int, tail: int) -> int:
    """The offset of the first newline at or after ``offset`` (there is one before ``tail``)."""
    while offset < tail:
        found = os.pread(fd, min(CHUNK, tail - offset), offset).find(b"\n")
        if found >= 0:
            return offset + found
        offset += CHUNK
    return tail - 1


def scan_covered(
    fd: int,
    start: int,
    tail: int,
    covered: CoveredLines,
    records: list[dict[str, object]],
    by_line: Callable[[int, int], None],
) -> None:
    """Scan the lines of ``[start, tail)`` (``start`` just after a newline, ``tail`` a line start)
    chunk by chunk; a chunk this scan cannot take is handed to ``by_line(begin, end)``, the
    line-by-line scan of the same range."""
    position = start
    while position < tail:
        want = min(tail, position + CHUNK)
        buffer = os.pread(fd, want - position + 1, position - 1)
        if len(buffer) != want - position + 1:
            by_line(position, tail)  # the file shrank under us: the slow scan sees what is there
            return
        if want < tail:
            cut = buffer.rfind(b"\n")
            if cut <= 0:  # one line longer than a chunk: the chunk is that line
                end = _line_end(fd, want, tail)
                buffer = os.pread(fd, end - position + 1, position - 1)
                if len(buffer) != end - position + 1:
                    by_line(position, tail)
                    return
            else:
                buffer = buffer[:cut]
        else:
            buffer = buffer[:-1]
        if not scan_chunk(buffer, position, covered, records):
            by_line(position, position + len(buffer))
        position += len(buffer)
