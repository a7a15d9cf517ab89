"""The index file beside a large session (``scan_index.py``): written when the session is closed,
used by the next open, and ignored whenever it does not describe the file any more.

Each test ends by comparing everything a caller sees (context, entries, tree) with a full read of
the same file, so an index that were trusted wrongly would show up as a difference.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_deferred_open import _line, _message, covered_part, dump, flatten, open_both, scanned_always, write_session

from pi_harness.coding.session_store import scan_index
from pi_harness.coding.session_store.listing import session_file_names
from pi_harness.coding.session_store.store import SessionManager

__all__ = ["scanned_always"]  # the fixture, imported for the tests below


def assert_same_as_full_read(path: Path) -> SessionManager:
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)
    assert lazy.get_leaf_id() == full.get_leaf_id()
    assert flatten(lazy.get_tree()) == flatten(full.get_tree())
    lazy, full = open_both(path)
    assert dump(lazy.get_entries()) == dump(full.get_entries())
    return lazy


def index_record(index: Path) -> dict[str, Any]:
    return dict(orjson.loads(index.read_bytes().split(b"\n", 2)[1]))


def indexed(path: Path) -> Path:
    """Open and close the session once, which leaves its index beside it."""
    manager = SessionManager.open(path)
    manager.build_session_context()
    manager.close()
    index = scan_index.index_path(path)
    assert index.exists()
    return index


def used_index(path: Path) -> bool:
    """Whether opening the file now takes the index as it is (nothing new to save)."""
    manager = SessionManager.open(path)
    part = covered_part(manager)
    try:
        return part is not None and not part.unsaved
    finally:
        if part is not None:
            part.unsaved = False  # do not rewrite the index from this probe
        manager.close()


def test_the_index_is_written_on_close_and_used_by_the_next_open(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    assert not scan_index.index_path(path).exists()
    indexed(path)
    assert used_index(path)
    assert_same_as_full_read(path)


def test_read_only_opens_leave_no_index(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    SessionManager.open(path, read_only=True).close()
    assert not scan_index.index_path(path).exists()


def test_listings_see_only_the_session(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    indexed(path)
    assert session_file_names(tmp_path) == [path]


def test_bytes_appended_after_the_index_are_scanned(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    indexed(path)
    manager = SessionManager.open(path)
    manager.append_message({"role": "user", "content": [{"type": "text", "text": "appended"}], "timestamp": 2})
    manager.close()
    assert used_index(path)
    lazy = assert_same_as_full_read(path)
    assert lazy.build_session_context().messages[-1]["content"][0]["text"] == "appended"  # type: ignore[index,typeddict-item]


def test_an_external_append_with_a_new_compaction_extends_the_index(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    index = indexed(path)
    before = index_record(index)["end"]
    leaf = SessionManager.open(path, read_only=True).get_leaf_id()
    more = [_line(_message(f"x{n}", leaf if n == 0 else f"x{n - 1}", "user", f"more {n}")) for n in range(30)]
    compaction = {
        "type": "compaction",
        "id": "c-late",
        "parentId": "x29",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "summary": "late summary",
        "firstKeptEntryId": "x25",
        "tokensBefore": 10,
    }
    with open(path, "a", encoding="utf-8") as out:  # another program appends, no index update
        out.write("".join(more) + _line(compaction) + _line(_message("x30", "c-late", "user", "after")))
    assert not used_index(path)  # the new compaction moves the covered part on
    assert_same_as_full_read(path)
    indexed(path)
    assert index_record(index)["end"] > before
    assert used_index(path)
    assert_same_as_full_read(path)


def test_a_rewritten_file_makes_the_index_stale(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    indexed(path)
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    # The same entries in another layout (non-ASCII escaped): the offsets move.
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")
    assert not used_index(path)
    assert_same_as_full_read(path)


def test_an_edit_in_the_covered_part_makes_the_index_stale(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    indexed(path)
    data = path.read_bytes()
    # One message early in the file renamed to an id of another length.
    path.write_bytes(data.replace(b'"0003us', b'"0003user', 2))
    assert not used_index(path)
    assert_same_as_full_read(path)


def test_a_truncated_file_makes_the_index_stale(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    index = indexed(path)
    end = index_record(index)["end"]
    data = path.read_bytes()
    cut = data.rindex(b"\n", 0, end // 2) + 1
    path.write_bytes(data[:cut])
    lazy, full = open_both(path)
    assert dump(lazy.get_entries()) == dump(full.get_entries())
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\x00\xff not json",
        b"[1, 2, 3]",
        b'6b6fc1e5cd1f2a2ce5ec20c4e4a2b1fe\n{"format": "pi-harness session index", "version": 1}',
        b'{"format": "something else", "version": 1, "end": 10}\n',
    ],
)
def test_a_garbage_index_is_ignored_and_replaced(tmp_path: Path, scanned_always: None, garbage: bytes) -> None:
    path = write_session(tmp_path / "s.jsonl")
    index = scan_index.index_path(path)
    index.write_bytes(garbage)
    assert not used_index(path)
    assert_same_as_full_read(path)
    indexed(path)
    assert used_index(path)


def _read_index(index: Path) -> tuple[bytes, dict[str, Any], list[bytes]]:
    checksum, _, body = index.read_bytes().partition(b"\n")
    meta, _, rest = body.partition(b"\n")
    record = orjson.loads(meta)
    sections: list[bytes] = []
    for size in record["sizes"]:
        sections.append(rest[:size])
        rest = rest[size:]
    return checksum, record, sections


def _rewrite_index(index: Path, record: dict[str, object], sections: list[bytes]) -> None:
    """Store ``record`` and ``sections`` as the index with a valid checksum, as a buggy writer could."""
    body = orjson.dumps(record) + b"\n" + b"".join(sections)
    index.write_bytes(b"%08x" % zlib.crc32(body) + b"\n" + body)


def test_an_index_with_altered_fields_is_ignored(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    index = indexed(path)
    checksum, good, sections = _read_index(index)
    body = index.read_bytes().partition(b"\n")[2]
    index.write_bytes(checksum + b"\n" + body.replace(b"us", b"uz", 1))  # altered, checksum not
    assert not used_index(path)
    index.write_bytes(checksum + b"\n" + body[: len(body) // 2])  # torn
    assert not used_index(path)
    count = good["count"]
    for key, value in (
        ("count", count - 1),
        ("end", good["end"] + 1),
        ("version", 99),
        ("header", [0]),
        ("starts", [1]),  # the first entry starts a run
        ("starts", [0, 0]),
        ("startParents", [0]),  # a run's parent comes before it
        ("full", good["full"][1:]),  # every entry parsed in full is named
        ("full", [count]),
        ("sizes", [1, 2, 3, 4]),
        ("checked", "x"),
    ):
        _rewrite_index(index, {**good, key: value}, sections)
        assert not used_index(path), key
        assert_same_as_full_read(path)
    ids, roles, offsets, checked = sections
    for altered in (
        [ids.rsplit(b"\x00", 1)[0], roles, offsets, checked],  # an id missing
        [ids, roles[:-1] + b"\x07", offsets, checked],  # no such role
        [ids, roles, offsets[:-8], checked],
    ):
        _rewrite_index(index, {**good, "sizes": [len(section) for section in altered]}, altered)
        assert not used_index(path)
    _rewrite_index(index, good, sections)  # the same fields again: accepted
    assert used_index(path)


def test_a_concurrent_writer_after_the_index(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    indexed(path)
    writer = SessionManager.open(path)  # another live session keeps appending to the file
    writer.append_message({"role": "user", "content": [{"type": "text", "text": "one"}], "timestamp": 2})
    lazy = SessionManager.open(path, read_only=True)
    writer.append_message({"role": "user", "content": [{"type": "text", "text": "two"}], "timestamp": 3})
    with open(path, "ab") as out:
        out.write(b'{"type":"message","id":"torn","parentId":null,"mess')  # a write in progress
    full = SessionManager.open(path, read_only=True)
    assert dump(lazy.build_session_context().messages)[:-1] in dump(full.build_session_context().messages)
    writer.close()
    assert_same_as_full_read(path)


def test_ids_with_escapes_are_read_as_strings(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    data = path.read_bytes().replace(b'"0002us', b'"0002\\u00fcus', 2)  # the id and its child's parent
    path.write_bytes(data)
    indexed(path)
    assert used_index(path)
    assert_same_as_full_read(path)
    # An id with a NUL character the index cannot hold: no index, the same reading.
    path.write_bytes(data.replace(b"\\u00fcus", b"\\u0000us"))
    manager = SessionManager.open(path)
    manager.close()
    assert not used_index(path)
    assert_same_as_full_read(path)


def test_stub_ids_the_index_cannot_hold_leave_no_index(tmp_path: Path) -> None:
    from pi_harness.coding.session_store.cold_ids import ColdIds
    from pi_harness.coding.session_store.cold_part import ColdPart

    path = write_session(tmp_path / "s.jsonl")
    part = ColdPart(path, 10, (0, 10), ColdIds(["a\x00b"]), bytearray([0]), sample="x", unsaved=True)
    assert not scan_index.save(path, part)
    assert not scan_index.index_path(path).exists()
