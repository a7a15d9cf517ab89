"""Tolerant reading of damaged files."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from _session_helpers import assistant, user

from pi_harness.coding.session_store import (
    InvalidSessionFileError,
    SessionManager,
    read_header,
    read_session_file,
)

HEADER = b'{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'


def _entry(entry_id: str, parent: str | None, text: str) -> bytes:
    record = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1},
    }
    return orjson.dumps(record) + b"\n"


GOOD = HEADER + _entry("aaaaaaaa", None, "one") + _entry("bbbbbbbb", "aaaaaaaa", "two")


def _ids(path: Path) -> list[str]:
    return [e["id"] for e in SessionManager.open(path).get_entries()]


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("truncated-last-line", GOOD + b'{"type":"message","id":"cccc', ["aaaaaaaa", "bbbbbbbb"]),
        (
            "garbage-lines",
            HEADER
            + b"not json\n"
            + _entry("aaaaaaaa", None, "one")
            + b"\x00\xff\xfe\n[1,2]\n"
            + b"42\n"
            + _entry("bbbbbbbb", "aaaaaaaa", "two"),
            ["aaaaaaaa", "bbbbbbbb"],
        ),
        ("blank-lines", b"\n  \n" + HEADER + b"\r\n\t\n" + _entry("aaaaaaaa", None, "one") + b"\n\n", ["aaaaaaaa"]),
        ("crlf-line-endings", GOOD.replace(b"\n", b"\r\n"), ["aaaaaaaa", "bbbbbbbb"]),
        ("byte-order-mark", b"\xef\xbb\xbf" + GOOD, ["aaaaaaaa", "bbbbbbbb"]),
        ("unicode-line-separators", HEADER + _entry("aaaaaaaa", None, "a\u2028b\u2029c\x85d"), ["aaaaaaaa"]),
    ],
)
def test_damaged_files_load_what_can_be_read(tmp_path: Path, name: str, data: bytes, expected: list[str]) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(data)
    assert _ids(path) == expected


def test_unicode_separators_stay_inside_the_text(tmp_path: Path) -> None:
    path = tmp_path / "u.jsonl"
    path.write_bytes(HEADER + _entry("aaaaaaaa", None, "a\u2028b\u2029c\x85d"))
    message = SessionManager.open(path).build_session_context().messages[0]
    assert message["content"] == "a\u2028b\u2029c\x85d"


@pytest.mark.parametrize(
    "data",
    [
        _entry("aaaaaaaa", None, "no header"),
        b'{"type":"session","id":42}\n' + _entry("aaaaaaaa", None, "id not a string"),
        b"complete garbage\n",
        b'{"type":"message"}\n' + HEADER,
    ],
)
def test_invalid_file_opened_explicitly_raises_and_is_untouched(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    with pytest.raises(InvalidSessionFileError, match="Invalid session file") as info:
        SessionManager.open(path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == data
    assert not read_session_file(path).valid
    assert read_header(path) is None


@pytest.mark.parametrize("data", [b"", b"\n\n  \n"])
def test_empty_file_becomes_a_new_session_at_that_path(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(data)
    manager = SessionManager.open(path)
    assert manager.get_session_file() == path
    assert manager.get_entries() == []
    manager.append_message(user("hello"))  # type: ignore[arg-type]
    reopened = SessionManager.open(path)
    assert reopened.get_session_id() == manager.get_session_id()
    assert [e["type"] for e in reopened.get_entries()] == ["message"]


def test_missing_file_becomes_a_new_session_at_that_path(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "new.jsonl"
    manager = SessionManager.open(path)
    assert not path.exists()
    manager.append_message(user("hello"))  # type: ignore[arg-type]
    assert read_session_file(path).valid


def test_missing_trailing_newline_is_repaired_before_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    path.write_bytes(GOOD + b'{"type":"message","id":"torn')
    manager = SessionManager.open(path)
    new_id = manager.append_message(assistant("after the tear"))  # type: ignore[arg-type]
    assert manager.get_entries()[-1]["parentId"] == "bbbbbbbb"
    data = path.read_bytes()
    assert data.endswith(b"\n") and b'"id":"torn\n{' in data
    assert _ids(path) == ["aaaaaaaa", "bbbbbbbb", new_id]


def test_complete_last_line_without_newline_is_kept_and_terminated(tmp_path: Path) -> None:
    path = tmp_path / "nonl.jsonl"
    path.write_bytes(GOOD[:-1])
    manager = SessionManager.open(path)
    assert [e["id"] for e in manager.get_entries()] == ["aaaaaaaa", "bbbbbbbb"]
    new_id = manager.append_custom("x")
    assert _ids(path) == ["aaaaaaaa", "bbbbbbbb", new_id]


def test_entries_without_ids_are_skipped_in_current_files(tmp_path: Path) -> None:
    path = tmp_path / "noid.jsonl"
    path.write_bytes(
        HEADER + b'{"type":"message","message":{"role":"user","content":"x"}}\n' + _entry("aaaaaaaa", None, "ok")
    )
    assert _ids(path) == ["aaaaaaaa"]


def test_listing_skips_invalid_files(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    directory.mkdir()
    (directory / "good.jsonl").write_bytes(GOOD)
    (directory / "bad.jsonl").write_bytes(b"garbage\n")
    (directory / "empty.jsonl").write_bytes(b"")
    (directory / "notes.txt").write_bytes(GOOD)
    infos = SessionManager.list("/p", directory)
    assert [i.path.name for i in infos] == ["good.jsonl"]
    assert infos[0].message_count == 2 and infos[0].first_message == "one"
