"""A large session's covered part kept as columns (``cold_part.py``, ``cold_path.py``,
``cold_ids.py``): what an open and a first request need is answered without making an entry of
every message, and everything a caller sees is still what a full read gives.

Work is checked by counts (entries made, ids decoded, searches), never by time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_deferred_open import _line, _message, dump, open_both, scanned_always, write_session

from pi_harness.coding.session_runtime.building import recorded_tool_names
from pi_harness.coding.session_store import ids, scan_index
from pi_harness.coding.session_store.cold_ids import ColdIds
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.virtual_models import virtual_selection

__all__ = ["scanned_always"]  # the fixture, imported for the tests below

_T = "2026-01-01T00:00:00.000Z"


def _startup(manager: SessionManager) -> None:
    """What building a session and sending its first request ask of the store."""
    manager.build_session_context()
    records = manager.get_branch_records()
    recorded_tool_names(records)
    virtual_selection(records, lambda provider, model_id: False)
    manager.has_messages()
    manager.get_system_state()
    manager.build_session_projection()
    manager.get_latest_compaction()
    manager.entry_count()
    manager.get_session_name()


def test_ids_decoded_only_as_far_as_asked() -> None:
    ids = [f"id{n}" for n in range(200)]
    blob = "\x00".join(ids).encode()
    cold = ColdIds(blob=blob, count=len(ids))
    assert cold[199] == "id199" and cold[150] == "id150"
    assert cold._list is None  # the newest were decoded from the end of the bytes
    assert "id3" in cold and "id20" not in ColdIds(blob=b"id2\x00id200", count=2)
    assert "id" not in cold and "d3" not in cold  # whole ids only
    assert cold._list is None and cold._set is None and cold._searches == 3
    assert "id199" in cold and cold._searches == 3  # a newest one: no search
    for n in range(40):  # many tests: the set of every id is built once
        assert f"id{n}" in cold
    assert cold._set is not None
    assert cold[3] == "id3" and cold.position("id42") == 42 and cold.position("nope") is None
    assert cold.joined() == blob
    few = ColdIds(blob=b"a\x00b", count=2)
    assert (few[0], few[1], len(few)) == ("a", "b", 2)
    assert ColdIds(blob=b"", count=0).joined() == b"" and "x" not in ColdIds(blob=b"", count=0)


@pytest.mark.parametrize("reopened", [False, True])
def test_startup_makes_entries_of_the_context_only(tmp_path: Path, scanned_always: None, reopened: bool) -> None:
    path = write_session(tmp_path / "s.jsonl", turns=120)
    if reopened:
        SessionManager.open(path).close()
        assert scan_index.index_path(path).exists()
    manager = SessionManager.open(path)
    cold = manager._cold
    assert cold is not None
    _startup(manager)
    assert manager._cold is cold  # nothing asked for the whole file
    context = len(manager.build_session_context().messages)
    assert len(cold.made) <= context + 2  # the messages the context reads, no more
    assert cold.unfilled() > 100
    if reopened:
        assert cold.ids._list is None  # the index's ids were not even decoded
    lazy, full = open_both(path)
    _startup(lazy)
    assert lazy.entry_count() == len(full.get_entries())
    assert lazy.has_messages() and lazy.get_session_name() == full.get_session_name()
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)
    assert lazy._cold is not None


def test_branch_records_hold_every_entry_but_the_older_messages(tmp_path: Path, scanned_always: None) -> None:
    system = {"role": "system", "content": "", "sections": {"preamble": "Be brief."}, "timestamp": 1}
    extra = [
        _line(
            {"type": "model_change", "id": "m1", "parentId": "edit1", "timestamp": _T, "provider": "p", "modelId": "x"}
        ),
        _line({"type": "message", "id": "s1", "parentId": "m1", "timestamp": _T, "message": system}),
    ]
    path = write_session(tmp_path / "s.jsonl", extra=extra)
    lazy, full = open_both(path)
    records, branch = lazy.get_branch_records(), full.get_branch()
    window = {e["id"] for e in full.build_session_projection().entries}
    older = [e for e in branch if e["type"] == "message" and e["id"] not in window]
    assert len(records) < len(branch) // 2
    ids = [e["id"] for e in records]
    # Every entry that is not an older message is there, in path order (and complete).
    assert [e["id"] for e in branch if e["type"] != "message"] == [
        i for i in ids if i in {e["id"] for e in branch if e["type"] != "message"}
    ]
    assert all(e["id"] in ids for e in branch if e not in older and e["type"] != "message")
    assert all("message" in e for e in records if e["type"] == "message")
    assert recorded_tool_names(records) == recorded_tool_names(branch)
    assert virtual_selection(records, lambda *_: True) == virtual_selection(branch, lambda *_: True) == ("p", "x")
    assert lazy._cold is not None


def test_a_branch_back_into_the_covered_part_is_walked_in_ranges(tmp_path: Path, scanned_always: None) -> None:
    # After the latest compaction the user went back to an old entry and continued from there.
    extra = [
        _line(_message("back1", "0010as42", "user", "from an old point")),
        _line(_message("back2", "back1", "assistant", "answer on the old branch")),
    ]
    path = write_session(tmp_path / "s.jsonl", extra=extra)
    lazy, full = open_both(path)
    walked = lazy._walk_active_path()
    assert walked.relevant is not None
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)
    assert lazy.get_latest_compaction() == full.get_latest_compaction()
    assert [e["id"] for e in lazy.get_branch_records()][-2:] == ["back1", "back2"]
    assert lazy._cold is not None  # not made into entries for that
    assert [e["id"] for e in lazy.get_branch()] == [e["id"] for e in full.get_branch()]


def test_made_entries_stay_the_same_objects_when_the_whole_file_is_asked_for(
    tmp_path: Path, scanned_always: None
) -> None:
    manager, full = open_both(write_session(tmp_path / "s.jsonl"))
    sources = manager.build_session_projection().entries
    entries = manager.get_entries()  # every entry made now
    assert manager._cold is None and manager._stubs is not None
    by_identity = {id(e) for e in entries}
    assert all(id(source) in by_identity for source in sources)
    assert dump(entries) == dump(full.get_entries())
    assert dump(manager.build_session_context().messages) == dump(full.build_session_context().messages)


def test_a_new_entry_never_takes_a_covered_id(
    tmp_path: Path, scanned_always: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_session(tmp_path / "s.jsonl")
    manager = SessionManager.open(path)
    cold = manager._cold
    assert cold is not None
    covered = next(entry_id for entry_id in cold.ids.as_list() if len(entry_id) == 8)
    draws = iter([covered, "feedc0de"])
    monkeypatch.setattr(ids, "short_id", lambda: next(draws))
    new = manager.append_message({"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": 3})
    assert new == "feedc0de"
    assert manager._cold is not None


def test_the_ids_the_index_checked_are_not_searched_again(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    manager = SessionManager.open(path)
    for n in range(3):
        manager.append_message({"role": "user", "content": [{"type": "text", "text": f"t{n}"}], "timestamp": 3})
    manager.close()
    copy = tmp_path / "copy.jsonl"
    shutil.copy(path, copy)
    SessionManager.open(copy).close()  # the copy's own index, knowing the 3 appended entries
    for probe in (path, copy):
        reopened = SessionManager.open(probe, read_only=True)
        cold = reopened._cold
        assert cold is not None and not cold.unsaved
        assert cold.ids._searches == 0 and cold.ids._set is None
    # A copy of the file taken before the last session appended: the index knows more ids than
    # the file has, and still no id is searched for.
    older = tmp_path / "older.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    older.write_bytes(b"".join(lines[:-3]))
    shutil.copy(scan_index.index_path(path), scan_index.index_path(older))
    reopened = SessionManager.open(older, read_only=True)
    assert reopened._cold is not None and reopened._cold.ids._searches == 0
    lazy, full = open_both(older)
    assert dump(lazy.get_entries()) == dump(full.get_entries())


def test_a_torn_compaction_line_leaves_nothing_after_the_covered_part(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    with open(path, "ab") as out:
        out.write(b'{"type":"compaction","id":"late","parentId":"edit1","summ')
    lazy, full = open_both(path)
    assert lazy._cold is not None and lazy._entries == []
    assert lazy.get_leaf_id() == full.get_leaf_id() == "edit1"
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)
    assert dump(lazy.get_entries()) == dump(full.get_entries())


def test_the_path_reads_as_a_list_would(tmp_path: Path, scanned_always: None) -> None:
    lazy, full = open_both(write_session(tmp_path / "s.jsonl"))
    path = lazy.build_session_projection().path
    branch = full.get_branch()
    ids = [e["id"] for e in branch]
    assert len(path) == len(branch)
    for chosen in (slice(None), slice(3, 40), slice(-5, None), slice(None, None, -7), slice(100, 20, -3)):
        assert [e["id"] for e in path[chosen]] == ids[chosen]
    assert [path[i]["id"] for i in (0, 1, -1, len(path) // 2)] == [ids[i] for i in (0, 1, -1, len(ids) // 2)]
    assert [e["id"] for e in reversed(path)] == ids[::-1]
    with pytest.raises(IndexError):
        path[len(path)]
    assert lazy._cold is not None
