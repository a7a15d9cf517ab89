"""New session files from existing ones, and finding sessions (sessions.md 10.1, 11)."""

from __future__ import annotations

import os
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from _session_helpers import assistant, read_lines, roles, user, write_lines

from pi_harness.coding.session_store import SessionManager, default_session_dir


def _session(tmp_path: Path, cwd: str = "proj") -> tuple[SessionManager, list[str]]:
    manager = SessionManager.create(str(tmp_path / cwd), tmp_path / "sessions")
    ids = [
        manager.append_model_change("anthropic", "claude"),
        manager.append_message(user("first")),  # type: ignore[arg-type]
        manager.append_message(assistant("one")),  # type: ignore[arg-type]
    ]
    ids.append(manager.append_label(ids[1], "start"))
    ids += [
        manager.append_message(user("second")),  # type: ignore[arg-type]
        manager.append_message(assistant("two")),  # type: ignore[arg-type]
    ]
    return manager, ids


def test_create_branched_session_writes_the_path_with_fresh_labels(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path)
    old_file = manager.get_session_file()
    old_id = manager.get_session_id()
    new_file = manager.create_branched_session(ids[4])
    assert new_file is not None and new_file != old_file and new_file.exists()
    assert manager.get_session_file() == new_file and manager.get_session_id() != old_id
    header, *entries = read_lines(new_file)
    assert header["parentSession"] == str(old_file) and header["version"] == 3
    assert header["cwd"] == str(tmp_path / "proj")
    # path without the old label entry, entries keep their ids; the label is re-added at the end
    assert [e["id"] for e in entries[:4]] == [ids[0], ids[1], ids[2], ids[4]]
    assert entries[3]["parentId"] == ids[2]  # re-parented past the dropped label
    label = entries[4]
    assert label["type"] == "label" and label["targetId"] == ids[1] and label["label"] == "start"
    assert label["parentId"] == ids[4] and label["id"] not in ids
    assert manager.get_label(ids[1]) == "start"
    assert roles(manager.build_session_context().messages) == ["user", "assistant", "user"]
    assert manager.get_leaf_id() == label["id"]
    # the source file is untouched
    assert old_file is not None and len(read_lines(old_file)) == 7


def test_branched_session_without_messages_is_written_lazily(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path)
    new_file = manager.create_branched_session(ids[0])  # only the model change
    assert new_file is not None and not new_file.exists()
    manager.append_message(user("now"))  # type: ignore[arg-type]
    assert [r["type"] for r in read_lines(new_file)] == ["session", "model_change", "message"]


def test_clone_duplicates_the_active_branch(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path)
    manager.branch(ids[2])
    manager.append_message(user("alt"))  # type: ignore[arg-type]
    before = manager.build_session_context().messages
    clone = manager.clone()
    assert clone is not None and clone.exists()
    assert manager.build_session_context().messages == before
    reopened = SessionManager.open(clone)
    assert roles(reopened.build_session_context().messages) == ["user", "assistant", "user"]
    assert ids[4] not in {e["id"] for e in reopened.get_entries()}


def test_fork_from_copies_another_project_session(tmp_path: Path, agent_dir: Path) -> None:
    source_manager, _ = _session(tmp_path, "other")
    source = source_manager.get_session_file()
    assert source is not None
    target_cwd = str(tmp_path / "here")
    forked = SessionManager.fork_from(source, target_cwd)
    path = forked.get_session_file()
    assert path is not None and path.parent == default_session_dir(target_cwd)
    header, *entries = read_lines(path)
    assert header["cwd"] == target_cwd and header["parentSession"] == str(source)
    assert header["id"] != source_manager.get_session_id()
    assert entries == read_lines(source)[1:]  # verbatim, ids unchanged
    assert forked.get_leaf_id() == entries[-1]["id"]


def test_fork_from_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(
        ValueError, match="^" + re.escape(f"Cannot fork: source session file is empty or invalid: {empty}") + "$"
    ):
        SessionManager.fork_from(empty, str(tmp_path))
    with pytest.raises(ValueError, match="empty or invalid"):
        SessionManager.fork_from(tmp_path / "missing.jsonl", str(tmp_path))
    headless = write_lines(tmp_path / "headless.jsonl", [{"type": "message", "id": "a", "parentId": None}])
    with pytest.raises(
        ValueError, match="^" + re.escape(f"Cannot fork: source session has no header: {headless}") + "$"
    ):
        SessionManager.fork_from(headless, str(tmp_path))


def test_fork_from_an_old_format_file_migrates_the_copy_only(tmp_path: Path) -> None:
    source = write_lines(
        tmp_path / "v1.jsonl",
        [
            {"type": "session", "id": "v1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/x"},
            {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": user("hi")},
        ],
    )
    data = source.read_bytes()
    forked = SessionManager.fork_from(source, str(tmp_path / "p"), tmp_path / "out")
    assert source.read_bytes() == data
    assert roles(forked.build_session_context().messages) == ["user"]


def test_continue_recent_opens_the_newest_file(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    assert SessionManager.continue_recent(str(tmp_path), directory).get_entries() == []
    older, _ = _session(tmp_path)
    newer, _ = _session(tmp_path)
    older_file, newer_file = older.get_session_file(), newer.get_session_file()
    assert older_file is not None and newer_file is not None
    now = time.time()
    os.utime(older_file, (now, now))
    os.utime(newer_file, (now - 100, now - 100))
    (directory / "zz-invalid.jsonl").write_text("junk\n")
    os.utime(directory / "zz-invalid.jsonl", (now + 100, now + 100))
    assert SessionManager.continue_recent(str(tmp_path), directory).get_session_id() == older.get_session_id()


def test_listing_reports_session_info(tmp_path: Path, agent_dir: Path) -> None:
    cwd = str(tmp_path / "proj")
    manager = SessionManager.create(cwd)
    manager.append_message(user("hello there"))  # type: ignore[arg-type]
    reply = assistant("general kenobi")
    manager.append_message(reply)  # type: ignore[arg-type]
    manager.append_session_info("greeting")
    other = SessionManager.create(str(tmp_path / "elsewhere"))
    other.append_message(user("other project"))  # type: ignore[arg-type]
    SessionManager.create(cwd)  # never written: not listed

    progress: list[tuple[int, int]] = []
    infos = SessionManager.list(cwd, on_progress=lambda done, total: progress.append((done, total)))
    assert len(infos) == 1 and progress == [(1, 1)]
    info = infos[0]
    assert info.id == manager.get_session_id() and info.cwd == cwd and info.name == "greeting"
    assert info.message_count == 2 and info.first_message == "hello there"
    assert info.all_messages_text == "hello there general kenobi"
    assert info.path == manager.get_session_file()
    # modified = the newest user/assistant message time (its epoch-ms timestamp)
    assert info.modified == datetime.fromtimestamp(reply["timestamp"] / 1000, UTC)
    everything = SessionManager.list_all()
    assert {i.id for i in everything} == {manager.get_session_id(), other.get_session_id()}


def test_find_by_id_prefers_exact_then_local(tmp_path: Path, agent_dir: Path) -> None:
    here = str(tmp_path / "here")
    there = str(tmp_path / "there")
    made = {}
    for cwd, sid in ((here, "abc-local"), (there, "abc"), (there, "xyz-remote")):
        manager = SessionManager.create(cwd, session_id=sid)
        manager.append_message(user("x"))  # type: ignore[arg-type]
        made[sid] = manager.get_session_file()
    exact = SessionManager.find_by_id("abc", here)
    assert exact is not None and exact.id == "abc" and not exact.local and exact.path == made["abc"]
    prefix = SessionManager.find_by_id("abc-", here)
    assert prefix is not None and prefix.id == "abc-local" and prefix.local
    remote = SessionManager.find_by_id("xyz", here)
    assert remote is not None and remote.id == "xyz-remote" and not remote.local and remote.cwd == there
    assert SessionManager.find_by_id("nothing", here) is None


def test_fork_at_a_user_message(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path)
    old_file = manager.get_session_file()
    assert manager.fork(ids[4]) == "second"
    new_file = manager.get_session_file()
    assert new_file is not None and new_file != old_file
    assert roles(manager.build_session_context().messages) == ["user", "assistant"]
    assert manager.get_header()["parentSession"] == str(old_file)
    with pytest.raises(ValueError, match=r"^Invalid entry ID for forking$"):
        manager.fork(ids[2])  # an assistant message
    with pytest.raises(ValueError, match=r"^Invalid entry ID for forking$"):
        manager.fork("missing0")


def test_fork_at_the_first_message_gives_an_empty_session(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "s")
    first = manager.append_message(user("very first"))  # type: ignore[arg-type]
    manager.append_message(assistant("reply"))  # type: ignore[arg-type]
    old_file = manager.get_session_file()
    assert manager.fork(first) == "very first"
    assert manager.get_entries() == [] and manager.get_header()["parentSession"] == str(old_file)


def test_fork_from_a_message_of_another_branch(tmp_path: Path) -> None:
    """As in Pi, a fork may start at a user message off the active branch: it keeps that path."""
    manager, ids = _session(tmp_path)
    manager.branch(ids[2])
    manager.append_message(user("other way"))  # type: ignore[arg-type]
    assert manager.fork(ids[4]) == "second"  # on the abandoned branch
    assert roles(manager.build_session_context().messages) == ["user", "assistant"]
    assert ids[1] in {e["id"] for e in manager.get_entries()}
