"""The on-disk format: every entry type round-trips, lines are compact JSON, creation is lazy."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest
from _session_helpers import assistant, read_lines, tool_result, usage, user

from pi_harness.coding.session_store import SessionManager, read_session_file

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _every_entry_type(manager: SessionManager) -> dict[str, str]:
    ids: dict[str, str] = {}
    ids["model_change"] = manager.append_model_change("anthropic", "claude-sonnet-4-5")
    ids["thinking_level_change"] = manager.append_thinking_level_change("high")
    ids["message"] = manager.append_message(user("héllo wörld ✓\u2028second line"))  # type: ignore[arg-type]
    ids["usage"] = manager.append_usage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(5), note="warm")  # type: ignore[arg-type]
    ids["custom"] = manager.append_custom("my-ext", {"count": 1})
    ids["custom_message"] = manager.append_custom_message("my-ext", "injected", True, {"k": "v"})
    ids["context_edit"] = manager.append_context_edit(ids["message"], {"content": "edited"})
    ids["label"] = manager.append_label(ids["message"], "start")
    ids["session_info"] = manager.append_session_info("  My  session \n name ")
    ids["compaction"] = manager.append_compaction(
        "## Goal\nx",
        ids["message"],
        1234,
        {"readFiles": ["a"], "modifiedFiles": []},
        None,
        usage(3),  # type: ignore[arg-type]
    )
    ids["branch_summary"] = manager.branch_with_summary(ids["thinking_level_change"], "summary text", None, True)
    return ids


def test_every_entry_type_round_trips(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path / "proj"), tmp_path / "sessions")
    ids = _every_entry_type(manager)
    path = manager.get_session_file()
    assert path is not None and path.exists()

    reopened = SessionManager.open(path)
    assert reopened.get_entries() == manager.get_entries()
    assert reopened.get_header() == manager.get_header()
    assert {e["type"] for e in reopened.get_entries()} == set(ids)
    # On load the leaf is the last entry in file order.
    assert reopened.get_leaf_id() == ids["branch_summary"]
    assert reopened.get_session_name() == "My  session   name"  # trimmed, newline -> space
    assert reopened.get_label(ids["message"]) == "start"

    by_type = {e["type"]: e for e in reopened.get_entries()}
    assert by_type["usage"] == {**by_type["usage"], "kind": "cache_warm", "note": "warm", "model": "claude-sonnet-4-5"}
    assert by_type["custom"]["data"] == {"count": 1}  # type: ignore[typeddict-item]
    assert by_type["custom_message"]["details"] == {"k": "v"}  # type: ignore[typeddict-item]
    assert by_type["context_edit"]["replacement"] == {"content": "edited"}  # type: ignore[typeddict-item]
    assert by_type["compaction"]["firstKeptEntryId"] == ids["message"]  # type: ignore[typeddict-item]
    assert "fromHook" not in by_type["compaction"]
    assert by_type["branch_summary"]["fromHook"] is True  # type: ignore[typeddict-item]
    assert by_type["branch_summary"]["parentId"] == ids["thinking_level_change"]
    assert by_type["branch_summary"]["fromId"] == ids["thinking_level_change"]  # type: ignore[typeddict-item]


def test_lines_are_compact_json_with_pi_key_order(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path / "proj"), tmp_path / "s")
    manager.append_message(user("naïve ✓\u2028x"))  # type: ignore[arg-type]
    manager.append_custom("ext")
    manager.append_label(manager.get_entries()[0]["id"])
    path = manager.get_session_file()
    assert path is not None
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b"" and len(lines) == 5
    assert "naïve ✓\u2028x".encode() in raw  # non-ASCII kept, U+2028 not escaped or split
    for line in lines[:-1]:
        assert line == orjson.dumps(orjson.loads(line))  # compact separators
    header, *entries = read_lines(path)
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["version"] == 3 and header["cwd"] == str(tmp_path / "proj")
    assert ISO.match(header["timestamp"])
    for entry in entries:
        if entry["type"] == "custom":  # Pi 1.4 writes a custom entry's own fields first
            assert list(entry) == ["type", "customType", "id", "parentId", "timestamp"]
        else:
            assert list(entry)[:4] == ["type", "id", "parentId", "timestamp"]
        assert re.fullmatch(r"[0-9a-f]{8}", entry["id"])
        assert ISO.match(entry["timestamp"])
    assert entries[0]["parentId"] is None and entries[1]["parentId"] == entries[0]["id"]
    assert "data" not in entries[1]  # optional fields are omitted, not null
    assert "label" not in entries[2]
    # The message's own timestamp (epoch ms) is stored untouched.
    assert isinstance(entries[0]["message"]["timestamp"], int)


def test_file_is_created_at_first_user_or_assistant_message(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path / "proj"), tmp_path / "s")
    path = manager.get_session_file()
    assert path is not None
    assert path.name.endswith(f"_{manager.get_session_id()}.jsonl")
    manager.append_model_change("p", "m")
    manager.append_thinking_level_change("off")
    manager.append_message(tool_result("c1", "orphan"))  # type: ignore[arg-type]
    assert not path.exists()
    manager.append_message(assistant("hi"))  # type: ignore[arg-type]
    assert path.exists()
    records = read_lines(path)
    assert [r["type"] for r in records] == ["session", "model_change", "thinking_level_change", "message", "message"]
    manager.append_custom("later")
    assert len(read_lines(path)) == 6


def test_exclusive_create_refuses_an_existing_file(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path / "proj"), tmp_path / "s")
    path = manager.get_session_file()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_text('{"someone":"else"}\n')
    with pytest.raises(FileExistsError):
        manager.append_message(user("hi"))  # type: ignore[arg-type]
    assert path.read_text() == '{"someone":"else"}\n'
    assert manager.get_entries() == []  # nothing half-applied in memory


def test_in_memory_session_never_touches_disk(tmp_path: Path, agent_dir: Path) -> None:
    before = sorted(agent_dir.rglob("*"))
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_message(user("hi"))  # type: ignore[arg-type]
    manager.append_message(assistant("hello"))  # type: ignore[arg-type]
    assert manager.get_session_file() is None
    assert manager.get_session_dir() == ""
    assert not manager.is_persisted()
    assert manager.create_branched_session(manager.get_leaf_id()) is None
    assert sorted(agent_dir.rglob("*")) == before
    assert [m["role"] for m in manager.build_session_context().messages] == ["user", "assistant"]


def test_session_id_may_be_chosen(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "s", session_id="my-task.v1_2")
    assert manager.get_session_id() == "my-task.v1_2"
    for bad in ("-x", "x-", "a b", "ä", ""):
        with pytest.raises(ValueError, match="Invalid session id"):
            SessionManager.create(str(tmp_path), tmp_path / "s", session_id=bad)


def test_summaries_are_not_message_entries(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    with pytest.raises(ValueError, match="compactionSummary"):
        manager.append_message({"role": "compactionSummary", "summary": "x", "tokensBefore": 1, "timestamp": 0})


PI_EXAMPLE = Path(__file__).with_name("pi_0_73_example.jsonl")


def test_pi_written_file_loads_and_rebuilds_the_same_context(tmp_path: Path) -> None:
    path = tmp_path / "pi.jsonl"
    original = PI_EXAMPLE.read_bytes()
    path.write_bytes(original)
    manager = SessionManager.open(path)
    assert path.read_bytes() == original  # a current-version file is not rewritten
    assert manager.get_leaf_id() == "3d4e5f60"
    assert [e["id"] for e in manager.get_branch()] == ["a1f0c3d2", "b2e1d4c3", "2c3d4e5f", "3d4e5f60"]
    context = manager.build_session_context()
    assert [m["role"] for m in context.messages] == ["branchSummary", "user"]
    assert context.messages[0]["fromId"] == "b2e1d4c3"  # type: ignore[typeddict-item]
    assert context.thinking_level == "medium"
    assert context.model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert manager.get_session_name() == "README checks"
    assert manager.get_label("c3d2e5f4") == "line-count"

    # Appending keeps Pi's format: the old lines are untouched and the new one chains on the leaf.
    new_id = manager.append_message(user("and characters?"))  # type: ignore[arg-type]
    data = path.read_bytes()
    assert data.startswith(original)
    added = orjson.loads(data[len(original) :])
    assert added["parentId"] == "3d4e5f60" and added["id"] == new_id
    assert read_session_file(path).valid


def test_header_without_cwd_falls_back_to_process_cwd(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text('{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z"}\n')
    manager = SessionManager.open(path)
    assert manager.get_cwd() == os.getcwd()
    assert manager.get_session_dir() == str(tmp_path)


def test_pi_1_4_entry_shapes_load(tmp_path: Path) -> None:
    """The 1.4.0 fragments of sessions.md §12 (system message, context_edit, usage, compaction)."""
    path = tmp_path / "pi14.jsonl"
    original = PI_EXAMPLE.read_bytes() + PI_EXAMPLE.with_name("pi_1_4_fragments.jsonl").read_bytes()
    path.write_bytes(original)
    manager = SessionManager.open(path)
    assert path.read_bytes() == original  # Pi's shapes need no upgrade
    assert manager.get_leaf_id() == "0c1d2e3f"
    context = manager.build_session_context()
    assert [m["role"] for m in context.messages] == ["compactionSummary", "user"]
    assert context.messages[0]["tokensBefore"] == 183000  # type: ignore[typeddict-item]
    # the context_edit replaced the kept user message's content
    assert context.messages[1]["content"] == [{"type": "text", "text": "Count words in README.md instead."}]
    # the system message sits on another branch (a child of b2e1d4c3): its tools apply there only
    assert manager.get_system_state().tools == {}
    manager.branch("7e8f9a0b")
    state = manager.get_system_state()
    assert list(state.tools) == ["read"] and state.sections["cwd"] == "<cwd>\n/home/ann/proj\n</cwd>"
