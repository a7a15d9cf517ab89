"""Migrations v1 → v2 → v3, on hand-written and real files."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
from _session_helpers import read_lines, write_lines

from pi_harness.coding.session_store import SessionManager

V1_HEADER = {"type": "session", "id": "old-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}


def _msg(role: str, text: str, ts: str = "2025-01-01T00:00:01.000Z") -> dict[str, object]:
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    message: dict[str, object] = {"role": role, "content": content, "timestamp": 1}
    if role == "assistant":
        message.update(api="x", provider="p", model="m", usage={}, stopReason="stop")
    return {"type": "message", "timestamp": ts, "message": message}


def test_v1_file_gets_ids_a_chain_and_kept_entry_ids(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "v1.jsonl",
        [
            V1_HEADER,
            _msg("user", "first"),
            _msg("assistant", "answer"),
            {"type": "thinking_level_change", "timestamp": "2025-01-01T00:00:02.000Z", "thinkingLevel": "low"},
            _msg("user", "second"),
            # index 4 in the file array (header = 0) is the second user message
            {
                "type": "compaction",
                "timestamp": "2025-01-01T00:00:03.000Z",
                "summary": "S",
                "firstKeptEntryIndex": 4,
                "tokensBefore": 10,
            },
            _msg("assistant", "after"),
        ],
    )
    manager = SessionManager.open(path)
    header, *entries = read_lines(path)
    assert header["version"] == 3 and header["id"] == "old-1"
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == len(ids) and all(len(i) == 8 for i in ids)
    assert [e["parentId"] for e in entries] == [None, *ids[:-1]]
    compaction = entries[4]
    assert "firstKeptEntryIndex" not in compaction and compaction["firstKeptEntryId"] == ids[3]
    assert manager.get_entries() == entries

    context = manager.build_session_context()
    assert [m["role"] for m in context.messages] == ["compactionSummary", "user", "assistant"]
    assert context.messages[1]["content"] == "second"
    assert context.thinking_level == "low"

    # Reopening a migrated file changes nothing (ids are stable).
    data = path.read_bytes()
    assert SessionManager.open(path).get_entries() == entries
    assert path.read_bytes() == data


def test_v1_compaction_pointing_at_the_header_keeps_nothing(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "v1.jsonl",
        [
            V1_HEADER,
            _msg("user", "a"),
            {
                "type": "compaction",
                "timestamp": "2025-01-01T00:00:03.000Z",
                "summary": "S",
                "firstKeptEntryIndex": 0,
                "tokensBefore": 1,
            },
        ],
    )
    entries = SessionManager.open(path).get_entries()
    assert "firstKeptEntryId" not in entries[1] and "firstKeptEntryIndex" not in entries[1]


def test_v2_hook_messages_become_custom(tmp_path: Path) -> None:
    hook = {
        "type": "message",
        "id": "bbbbbbbb",
        "parentId": "aaaaaaaa",
        "timestamp": "2025-01-01T00:00:02.000Z",
        "message": {"role": "hookMessage", "customType": "ext", "content": "hi", "display": True, "timestamp": 2},
    }
    path = write_lines(
        tmp_path / "v2.jsonl",
        [{**V1_HEADER, "version": 2}, {**_msg("user", "a"), "id": "aaaaaaaa", "parentId": None}, hook],
    )
    manager = SessionManager.open(path)
    header, first, second = read_lines(path)
    assert header["version"] == 3
    assert second["message"]["role"] == "custom" and second["id"] == "bbbbbbbb"
    assert first["id"] == "aaaaaaaa"  # v2 ids are kept
    assert [m["role"] for m in manager.build_session_context().messages] == ["user", "custom"]


def test_migration_rewrites_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "dir" / "v1.jsonl", [V1_HEADER, _msg("user", "a")])
    path.chmod(0o600)
    SessionManager.open(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["v1.jsonl"]  # no temp file left behind


def test_read_only_open_migrates_in_memory_only(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "v1.jsonl", [V1_HEADER, _msg("user", "a")])
    data = path.read_bytes()
    manager = SessionManager.open(path, read_only=True)
    assert manager.get_header()["version"] == 3
    assert len(manager.get_entries()[0]["id"]) == 8
    assert path.read_bytes() == data


def test_real_v1_session(shared_data: Path, tmp_path: Path) -> None:
    path = tmp_path / "real.jsonl"
    shutil.copyfile(shared_data / "pi-sessions" / "v1-real-session.jsonl", path)
    source_records = [orjson.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]
    manager = SessionManager.open(path)
    entries = manager.get_entries()
    assert len(entries) == len(source_records) - 1 == 1018
    assert [e["parentId"] for e in entries[1:]] == [e["id"] for e in entries[:-1]]
    # Apart from the new id/parentId, every record is unchanged.
    for before, after in zip(source_records[1:], entries, strict=True):
        assert {k: v for k, v in after.items() if k not in ("id", "parentId")} == before
    header = manager.get_header()
    assert header["version"] == 3 and header["id"] == source_records[0]["id"]

    context = manager.build_session_context()
    counts: dict[str, int] = {}
    for message in context.messages:
        counts[message["role"]] = counts.get(message["role"], 0) + 1
    assert counts == {"user": 88, "assistant": 453, "toolResult": 373}
    assert context.model is not None
    reopened = SessionManager.open(path)
    assert reopened.get_entries() == entries
    assert reopened.build_session_context().messages == context.messages
