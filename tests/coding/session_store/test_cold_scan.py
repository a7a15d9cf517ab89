"""The fast open of a large session (``cold_scan.py``, ``cold_chain.py``): the covered part scanned
a chunk at a time, walked in slices, and only its entries parsed in full looked at by the store.

Every test checks what callers see against a full read of the same file, and that the fast path
was the one taken (a fast path that silently fell back would pass the first check alone)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from test_deferred_open import (
    _line,
    _message,
    covered_part,
    dump,
    flatten,
    open_both,
    scanned_always,
    write_session,
)

from pi_harness.coding.session_store import cold_scan
from pi_harness.coding.session_store.store import SessionManager

__all__ = ["scanned_always"]  # the fixture, imported for the tests below

_T = "2026-01-01T00:00:00.000Z"


def _entry(kind: str, entry_id: str, parent: str | None, **fields: object) -> str:
    return _line({"type": kind, "id": entry_id, "parentId": parent, "timestamp": _T, **fields})


def assert_same(lazy: SessionManager, full: SessionManager) -> None:
    lazy_projection, full_projection = lazy.build_session_projection(), full.build_session_projection()
    assert dump(lazy_projection.messages) == dump(full_projection.messages)
    assert lazy_projection.thinking_level == full_projection.thinking_level
    assert lazy_projection.model == full_projection.model
    assert dump(lazy_projection.system.copy().__dict__) == dump(full_projection.system.copy().__dict__)
    assert lazy.get_leaf_id() == full.get_leaf_id()
    assert lazy.get_session_name() == full.get_session_name()
    assert lazy.get_label("0005us21") == full.get_label("0005us21")
    assert [e["id"] for e in lazy.get_branch_outline()] == [e["id"] for e in full.get_branch()]
    assert flatten(lazy.get_tree()) == flatten(full.get_tree())
    assert dump(lazy.get_entries()) == dump(full.get_entries())


@pytest.fixture
def small_chunks() -> Iterator[None]:
    previous = cold_scan.CHUNK
    cold_scan.CHUNK = 700  # a few lines each; some lines are longer than that
    yield
    cold_scan.CHUNK = previous


def test_a_clean_file_opens_on_the_fast_path(tmp_path: Path, scanned_always: None) -> None:
    lazy, full = open_both(write_session(tmp_path / "s.jsonl"))
    assert lazy._cold is not None  # clean covered part: kept as columns, only the others repaired
    walked = lazy._walk_active_path()
    assert walked.relevant is not None and len(walked.relevant) < len(walked.entries) // 2
    lazy.build_session_context()
    # Entries were made only of the messages the context reads.
    assert lazy._cold is not None and len(lazy._cold.made) < 10
    assert_same(lazy, full)


@pytest.mark.parametrize("chunk", [64, 700, 1 << 20])
def test_chunks_of_any_size_read_the_same(tmp_path: Path, scanned_always: None, chunk: int) -> None:
    previous = cold_scan.CHUNK
    cold_scan.CHUNK = chunk
    try:
        lazy, full = open_both(write_session(tmp_path / "s.jsonl", turns=80))
    finally:
        cold_scan.CHUNK = previous
    assert lazy._cold is not None
    assert_same(lazy, full)


@pytest.mark.parametrize(
    "damage",
    [
        b'{"type":"message","id":"torn","parentId":"0003as14","timestamp":"x","message":{"role":"user","content":[{"ty',
        b"",
        b"   ",
        b'{"type":"message","id":"two","parentId":null,"message":{"role":"user","content":"a"}}{"x":1}',
        b'  {"type":"message","id":"padded","parentId":null,"message":{"role":"user","content":"a"}}',
        b'{"type":"message","id":"bad-utf8","parentId":"0003as14","timestamp":"x","message":{"role":"user","content":"\xff"}}',
        b'{"type":"message","id":"\xff\xfe","parentId":null,"timestamp":"x","message":{"role":"user","content":"x"}}',
    ],
)
def test_a_damaged_line_leaves_only_its_chunk_to_the_line_by_line_scan(
    tmp_path: Path, scanned_always: None, small_chunks: None, damage: bytes
) -> None:
    path = write_session(tmp_path / "s.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(20, damage + b"\n")
    path.write_bytes(b"".join(lines))
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert_same(lazy, full)


def _covered_extra(tmp_path: Path, extra: list[str]) -> Path:
    """A session whose covered part (before the latest compaction) holds ``extra`` early on."""
    path = write_session(tmp_path / "s.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:12] + extra + lines[12:]), encoding="utf-8")
    return path


def test_parents_the_repairs_decide_take_the_full_path(tmp_path: Path, scanned_always: None) -> None:
    # A parent later in the file, and one that is missing: the covered part is not clean.
    for extra in (
        [_line(_message("early", "0040us164", "user", "names a later parent"))],
        [_line(_message("orphan", "nowhere", "user", "names a missing parent"))],
    ):
        lazy, full = open_both(_covered_extra(tmp_path, extra))
        assert lazy._stubs is not None and lazy._chain is None  # every entry made at once, no runs
        assert_same(lazy, full)


def test_entries_of_the_covered_part_still_set_level_model_and_system(tmp_path: Path, scanned_always: None) -> None:
    system = {"role": "system", "content": "", "sections": {"preamble": "Be careful."}, "timestamp": 1}
    header = {"type": "session", "version": 3, "id": "s2", "timestamp": _T, "cwd": str(tmp_path)}
    lines = [
        _line(header),
        _entry("thinking_level_change", "lvl", None, thinkingLevel="high"),
        _entry("model_change", "mod", "lvl", provider="other", modelId="covered-model"),
        _entry("message", "sys", "mod", message=system),
        _entry("session_info", "name", "sys", name="covered name"),
    ]
    parent = "name"
    for n in range(30):  # no assistant anywhere: the model is the covered model change
        for role in ("user", "toolResult"):
            lines.append(_line(_message(f"{role[:2]}{n}", parent, role, f"{role} {n}")))
            parent = f"{role[:2]}{n}"
    # A compaction written without a system checkpoint: the system messages of the whole path count.
    lines.append(_entry("compaction", "cmp", parent, summary="s", firstKeptEntryId="us28", tokensBefore=1))
    lines.append(_line(_message("after", "cmp", "user", "after the compaction")))
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    lazy, full = open_both(path)
    assert lazy._cold is not None
    context = lazy.build_session_context()
    assert context.thinking_level == "high"
    assert context.model == {"provider": "other", "modelId": "covered-model"}
    assert lazy.get_system_state().sections == {"preamble": "Be careful."}
    assert lazy.get_session_name() == "covered name"
    assert_same(lazy, full)


def test_a_leaf_inside_the_covered_part_is_walked_in_ranges(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    lazy, full = open_both(path)
    for manager in (lazy, full):
        manager.branch("0010as42")
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)
    assert lazy._cold is not None  # moving the leaf there made no entry of the whole file
    assert [e["id"] for e in lazy.get_branch()] == [e["id"] for e in full.get_branch()]
    side = SessionManager.open(path)
    side.branch("side1")  # the side branch leaves the chain in the middle of the covered part
    side.append_message({"role": "user", "content": [{"type": "text", "text": "on the side"}], "timestamp": 3})
    side.close()
    assert_same(*open_both(path))


def test_the_fast_scan_agrees_with_the_line_by_line_scan(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    data = path.read_bytes()
    start = data.index(b"\n") + 1
    tail = data.rindex(b'\n{"type":"compaction"') + 1
    fast, slow = cold_scan.ColdColumns(), cold_scan.ColdColumns()
    assert cold_scan.scan_chunk(data[start : tail - 1], start, fast)
    with open(path, "rb") as handle:
        cold_scan.scan_lines(handle, start, tail, slow)
    assert fast.ids == slow.ids
    assert fast.roles == slow.roles
    assert list(fast.offsets) == list(slow.offsets)
    assert fast.records == slow.records
    assert fast.breaks == slow.breaks
    ends = [*fast.offsets[1:], tail]
    assert [orjson.loads(data[o:n]) for o, n in zip(fast.offsets, ends, strict=True)] == [
        orjson.loads(line) for line in data[start:tail].splitlines()
    ]


@pytest.mark.parametrize(
    "damage",
    [
        b'{"type":"message","id":"torn","parentId":null,"timestamp":"x","message":{"role":"user","content":[{"ty',
        b"",
        b"[1, 2]",
        b'{"type":"custom","id":"c9","parentId":null,"customType":"x"}  ',
        b'{"type":"message","id":"bad-utf8","parentId":null,"timestamp":"x","message":{"role":"user","content":"\xff"}}',
    ],
)
def test_damage_after_the_latest_compaction_is_read_as_the_full_reader_reads_it(
    tmp_path: Path, scanned_always: None, damage: bytes
) -> None:
    path = write_session(tmp_path / "s.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(len(lines) - 3, damage + b"\n")
    path.write_bytes(b"".join(lines))
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert_same(lazy, full)


@pytest.mark.parametrize(
    "unterminated",
    [
        b'{"type":"message","id":"torn","parentId":null,"mess',
        b'{"type":"label","id":"no-newline","parentId":"edit1","timestamp":"x","targetId":"c40","label":"l"}',
    ],
)
def test_a_last_line_without_its_newline_is_noticed(tmp_path: Path, scanned_always: None, unterminated: bytes) -> None:
    path = write_session(tmp_path / "s.jsonl")
    with open(path, "ab") as out:
        out.write(unterminated)
    manager = SessionManager.open(path)
    manager.append_message({"role": "user", "content": [{"type": "text", "text": "after"}], "timestamp": 5})
    manager.close()
    assert path.read_bytes().endswith(b"\n")
    lazy, full = open_both(path)
    assert lazy.get_entries()[-1]["message"]["content"][0]["text"] == "after"  # type: ignore[typeddict-item]
    assert_same(lazy, full)


_CUSTOM = b'{"type":"custom","id":"%s","parentId":null,"customType":"t"}'


@pytest.mark.parametrize(
    "lines",
    [
        # A value split over two lines and a line with two values: as many values as lines.
        [
            b'{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":',
            b'"x"}}',
            _CUSTOM % b"b" + b" " + _CUSTOM % b"c",
        ],
        [b'{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":{', b"}}}"],
        [b'{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}\r'],
        [b'{"type":"message","id":"a","message":{"role":"user","content":"no parent"}}'],
        [b'{"type":"message","id":"a","parentId":null,"message":null}'],
        [b'{"type":"label","id":7,"parentId":null}'],
    ],
)
def test_lines_the_fast_scan_refuses_are_decided_one_by_one(
    tmp_path: Path, scanned_always: None, small_chunks: None, lines: list[bytes]
) -> None:
    from pi_harness.coding.session_store.cold_scan import ColdColumns, scan_chunk

    assert not scan_chunk(b"\n".join(lines), 0, ColdColumns())
    path = write_session(tmp_path / "s.jsonl")
    data = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(data[:20] + [line + b"\n" for line in lines] + data[20:]))
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert_same(lazy, full)


def test_only_messages_of_the_three_roles_become_stubs(tmp_path: Path, scanned_always: None) -> None:
    # An entry of another type that names a role, and messages of other roles: parsed in full.
    extra = [
        _entry("custom", "c1", "0003as14", customType="t", message={"role": "user", "content": "not a message"}),
        _entry("message", "m1", "c1", message={"role": "bashExecution", "command": "ls", "output": ""}),
        _entry("message", "m2", "m1", message={"role": None}),
    ]
    path = _covered_extra(tmp_path, extra)
    data = path.read_bytes()
    start = data.index(b"\n") + 1
    tail = data.rindex(b'\n{"type":"compaction"') + 1
    fast, slow = cold_scan.ColdColumns(), cold_scan.ColdColumns()
    assert cold_scan.scan_chunk(data[start : tail - 1], start, fast)
    with open(path, "rb") as handle:
        cold_scan.scan_lines(handle, start, tail, slow)
    assert fast.roles == slow.roles and fast.records == slow.records
    full = [fast.ids[p] for p in sorted(fast.records)]
    assert {"c1", "m1", "m2"} <= set(full)
    lazy, whole = open_both(path)
    assert covered_part(lazy) is not None
    assert_same(lazy, whole)
