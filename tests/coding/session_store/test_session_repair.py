"""Unit tests of the in-memory repairs of damaged entry lists (repair.py) and of the tolerant
header read and private directories (jsonl.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import cast

import pytest

from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.jsonl import encode_record, make_private_dirs, read_header
from pi_harness.coding.session_store.repair import repair_entries


def _entry(entry_id: str, parent: str | None, **fields: object) -> SessionEntry:
    return cast(SessionEntry, {"type": "custom", "id": entry_id, "parentId": parent, "timestamp": "t", **fields})


def _parents(entries: list[SessionEntry]) -> list[tuple[str, str | None]]:
    return [(e["id"], e["parentId"]) for e in entries]


def test_cycle_is_cut_at_its_first_entry_in_the_file_whatever_the_start() -> None:
    entries = [_entry("a", "c"), _entry("b", "a"), _entry("c", "b"), _entry("d", "c")]
    result = repair_entries(entries)
    assert _parents(result.entries) == [("a", None), ("b", "a"), ("c", "b"), ("d", "c")]
    assert result.diagnostics == ["1 parent cycles were cut"]
    assert entries[0]["parentId"] == "c"  # the input is not modified


def test_duplicate_ids_are_renamed_and_later_references_mean_the_latest() -> None:
    entries = [
        _entry("a", None),
        _entry("a", "a"),
        _entry("a~2", "a"),  # already taken by the file: the next duplicate skips it
        _entry("a", "a"),
        _entry("l", "a", targetId="a"),
    ]
    result = repair_entries(entries)
    assert _parents(result.entries) == [("a", None), ("a~3", "a"), ("a~2", "a~3"), ("a~4", "a~3"), ("l", "a~4")]
    assert result.entries[-1].get("targetId") == "a~4"
    assert repair_entries(entries).entries == result.entries  # deterministic


def test_mistyped_blocks_are_repaired_keeping_what_they_said() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": 5},
            "loose",
            {"type": "thinking", "thinking": None},
            {"type": "toolCall", "id": "c", "name": "bash", "arguments": "ls"},
            {"text": True},
        ],
    }
    result = repair_entries([_entry("m", None, type="message", message=message)])
    repaired = cast(dict[str, object], cast(dict[str, object], result.entries[0])["message"])
    assert repaired["content"] == [
        {"type": "text", "text": "5"},
        {"type": "text", "text": "loose"},
        {"type": "thinking", "thinking": ""},
        {"type": "toolCall", "id": "c", "name": "bash", "arguments": {}},
        {"type": "text", "text": "true"},
    ]
    assert result.diagnostics == ["1 messages with mistyped content blocks were repaired"]


def test_well_formed_entries_are_returned_as_they_are() -> None:
    entries = [_entry("a", None), _entry("b", "a")]
    result = repair_entries(entries)
    assert all(x is y for x, y in zip(result.entries, entries, strict=True))
    assert result.diagnostics == []


def test_read_header_skips_unparsable_lines_and_huge_ones(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"garbage\n" + b"x" * 200_000 + b"\n" + b'{"type":"session","id":"abc"}\n')
    header = read_header(path)
    assert header is not None and header["id"] == "abc"
    path.write_bytes(b'garbage\n{"type":"message","id":"m"}\n{"type":"session","id":"abc"}\n')
    assert read_header(path) is None


def test_make_private_dirs_sets_0700_on_created_directories_only(tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    make_private_dirs(existing / "a" / "b")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755
    assert stat.S_IMODE((existing / "a").stat().st_mode) == 0o700
    assert stat.S_IMODE((existing / "a" / "b").stat().st_mode) == 0o700


def test_the_same_damage_is_reported_once_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_harness.coding.session_store import SessionManager, repair

    notices: list[str] = []
    monkeypatch.setattr(repair, "reporter", notices.append)
    path = tmp_path / "s.jsonl"
    records = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(tmp_path)},
        {"type": "message", "id": "a", "parentId": "a", "timestamp": "t", "message": {"role": "user", "content": 7}},
    ]
    path.write_bytes(b"".join(encode_record(r) for r in records))
    SessionManager.open(path)
    SessionManager.open(path)
    assert len(notices) == 1
    assert str(path) in notices[0] and "themselves as parent" in notices[0] and "mistyped" in notices[0]
