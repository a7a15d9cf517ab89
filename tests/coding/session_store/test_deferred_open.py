"""Opening a large session file with its older messages left unparsed (``deferred.py``).

Every test opens the same file twice, once scanned (the threshold lowered to 0) and once read in
full, and checks that everything a caller can see is the same: the model context, the entries,
the tree, the branch, the file written by later appends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import orjson
import pytest

from pi_harness.coding.session_store import deferred
from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.session_store.tree import SessionTreeNode


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def _message(entry_id: str, parent: str | None, role: str, text: str) -> dict[str, object]:
    if role == "assistant":
        message: dict[str, object] = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-model",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
            "stopReason": "stop",
            "timestamp": 1,
        }
    elif role == "toolResult":
        message = {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "bash",
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "timestamp": 1,
        }
    else:
        message = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": message,
    }


def write_session(path: Path, turns: int = 60, *, extra: Sequence[str] = ()) -> Path:
    """A linear session with two compactions, a side branch, a label and a context edit."""
    lines = [
        _line(
            {
                "type": "session",
                "version": 3,
                "id": "s1",
                "timestamp": "2026-01-01T00:00:00.000Z",
                "cwd": str(path.parent),
            }
        )
    ]
    parent: str | None = None
    users: list[str] = []
    for n in range(turns):
        for role in ("user", "assistant", "toolResult", "assistant"):
            entry_id = f"{n:04d}{role[:2]}{len(lines)}"
            lines.append(_line(_message(entry_id, parent, role, f"{role} says {n} ü")))
            if role == "user":
                users.append(entry_id)
            parent = entry_id
        if n in (20, 40):
            compaction_id = f"c{n}"
            lines.append(
                _line(
                    {
                        "type": "compaction",
                        "id": compaction_id,
                        "parentId": parent,
                        "timestamp": "2026-01-01T00:00:00.000Z",
                        "summary": f"summary {n}",
                        "firstKeptEntryId": users[-2],
                        "tokensBefore": 1000,
                    }
                )
            )
            parent = compaction_id
        if n == 30:
            side = _message("side1", users[10], "user", "a side branch")
            lines.append(_line(side))
            lines.append(
                _line(
                    {
                        "type": "label",
                        "id": "lab1",
                        "parentId": parent,
                        "timestamp": "2026-01-01T00:00:00.000Z",
                        "targetId": users[5],
                        "label": "start",
                    }
                )
            )
            parent = "lab1"
    lines.append(
        _line(
            {
                "type": "context_edit",
                "id": "edit1",
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "targetId": users[-1],
                "replacement": {"content": "edited"},
            }
        )
    )
    lines.extend(extra)
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def scanned_always() -> Iterator[None]:
    previous = deferred.DEFER_MIN_BYTES
    deferred.DEFER_MIN_BYTES = 0
    yield
    deferred.DEFER_MIN_BYTES = previous


def open_both(path: Path) -> tuple[SessionManager, SessionManager]:
    lazy = SessionManager.open(path, read_only=True)
    previous = deferred.DEFER_MIN_BYTES
    deferred.DEFER_MIN_BYTES = 1 << 62
    try:
        full = SessionManager.open(path, read_only=True)
    finally:
        deferred.DEFER_MIN_BYTES = previous
    return lazy, full


def covered_part(manager: SessionManager) -> ColdPart | None:
    """The covered part of a large file the store opened by a scan (kept as columns, or made into
    entries with stubs), None when the file was read in full."""
    return manager._cold or manager._stubs


def unread(manager: SessionManager) -> int:
    """How many messages of the covered part have not been read from the file."""
    part = covered_part(manager)
    return part.unfilled() if part is not None else 0


def dump(value: object) -> bytes:
    return orjson.dumps(value, default=repr)


def flatten(roots: list[SessionTreeNode]) -> list[bytes]:
    """The tree in pre-order, without recursion (a long session is one deep chain)."""
    out: list[bytes] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        out.append(dump([node.entry, node.label, len(node.children)]))
        stack.extend(reversed(node.children))
    return out


def test_context_is_the_same_and_older_messages_stay_unparsed(tmp_path: Path, scanned_always: None) -> None:
    lazy, full = open_both(write_session(tmp_path / "s.jsonl"))
    assert lazy._cold is not None  # the scan was used; the covered part stays columns
    context_lazy, context_full = lazy.build_session_context(), full.build_session_context()
    assert dump(context_lazy.messages) == dump(context_full.messages)
    assert (context_lazy.model, context_lazy.thinking_level) == (context_full.model, context_full.thinking_level)
    assert context_lazy.messages[0]["role"] == "compactionSummary"
    # Only the part after the latest compaction's cut was read: most messages are still stubs,
    # and but those few no entry was made of them.
    assert unread(lazy) > 150
    assert lazy._cold is not None and len(lazy._cold.made) < 10
    outline = lazy.get_branch_outline()
    assert [e["id"] for e in outline] == [e["id"] for e in full.get_branch()]


def test_every_accessor_sees_complete_entries(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    for accessor in ("get_entries", "get_tree", "get_branch", "entries_by_id"):
        lazy, full = open_both(path)
        if accessor == "entries_by_id":
            assert dump(dict(lazy.entries_by_id())) == dump(dict(full.entries_by_id()))
        elif accessor == "get_tree":
            assert flatten(lazy.get_tree()) == flatten(full.get_tree())
        else:
            assert dump(getattr(lazy, accessor)()) == dump(getattr(full, accessor)())
    lazy, full = open_both(path)
    some_user = next(e["id"] for e in full.get_entries() if e["type"] == "message")
    assert dump(lazy.get_entry(some_user)) == dump(full.get_entry(some_user))
    assert dump(lazy.get_children(some_user)) == dump(full.get_children(some_user))
    assert lazy.get_label(some_user) == full.get_label(some_user)
    assert lazy.get_session_name() == full.get_session_name()


def test_appending_and_branching_after_a_scanned_open(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    manager = SessionManager.open(path)
    assert manager._cold is not None
    manager.append_message({"role": "user", "content": [{"type": "text", "text": "more"}], "timestamp": 2})
    first_user = next(e for e in SessionManager.open(path, read_only=True).get_entries() if e["type"] == "message")
    branched = manager.create_branched_session(first_user["id"])
    assert branched is not None
    copy = [orjson.loads(line) for line in branched.read_bytes().splitlines()]
    # The copy holds full entries, never stubs.
    assert all("message" in r for r in copy[1:] if r.get("type") == "message")
    reopened = SessionManager.open(path, read_only=True)
    assert reopened.get_entries()[-1]["message"]["content"][0]["text"] == "more"  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    "damage",
    [
        b'{"type":"message","id":"broken","parentId":null,"timestamp":"x","message":{"role":"user","content":[{"ty',
        b'{"type":"message","id":"bad-utf8","parentId":null,"timestamp":"x","message":{"role":"user","content":"\xff"}}',
        b"not json at all",
        b"[1, 2, 3]",
        b'{"type":"message","id":7,"parentId":null,"message":{"role":"user","content":"numeric id"}}',
        b'{"type":"message","id":"self","parentId":"self","timestamp":"x","message":{"role":"user","content":"loop"}}',
    ],
)
def test_damaged_lines_are_read_as_the_full_reader_reads_them(
    tmp_path: Path, scanned_always: None, damage: bytes
) -> None:
    path = write_session(tmp_path / "s.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(len(lines) // 3, damage + b"\n")
    path.write_bytes(b"".join(lines))
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert dump(lazy.build_session_context().messages) == dump(full.build_session_context().messages)
    assert dump(lazy.get_entries()) == dump(full.get_entries())


def test_files_the_scan_leaves_to_the_full_reader(tmp_path: Path, scanned_always: None) -> None:
    # Duplicate ids need the repair's renaming; an old version needs migration; no compaction
    # means the whole branch is read anyway.
    duplicate = write_session(tmp_path / "dup.jsonl", extra=[_line(_message("0001us5", None, "user", "again"))])
    assert covered_part(SessionManager.open(duplicate, read_only=True)) is None
    no_compaction = tmp_path / "plain.jsonl"
    lines = [
        line
        for line in write_session(tmp_path / "tmp.jsonl").read_text().splitlines(keepends=True)
        if '"compaction"' not in line
    ]
    no_compaction.write_text("".join(lines))
    assert covered_part(SessionManager.open(no_compaction, read_only=True)) is None
    old = tmp_path / "old.jsonl"
    old.write_text(write_session(tmp_path / "tmp2.jsonl").read_text().replace('"version":3', '"version":2', 1))
    assert covered_part(SessionManager.open(old, read_only=True)) is None


def test_a_file_rewritten_by_another_program_is_still_read(tmp_path: Path, scanned_always: None) -> None:
    path = write_session(tmp_path / "s.jsonl")
    lazy = SessionManager.open(path, read_only=True)
    expected = [orjson.loads(line) for line in path.read_bytes().splitlines()[1:]]
    # Another program rewrites the file with the same entries in another layout (pretty keys).
    path.write_text(
        "".join(json.dumps(r, indent=None) + "\n" for r in [orjson.loads(path.read_bytes().splitlines()[0]), *expected])
    )
    entries = lazy.get_entries()
    by_id = {e["id"]: e for e in expected}
    assert all(dump(e) == dump(by_id[e["id"]]) for e in entries if e["id"] in by_id)


def test_compaction_plans_on_the_outline_without_reading_older_messages(tmp_path: Path, scanned_always: None) -> None:
    from pi_harness.coding.compaction import CompactionSettings, prepare_compaction

    lazy, full = open_both(write_session(tmp_path / "s.jsonl"))
    lazy.build_session_context()
    stubs = unread(lazy)
    settings = CompactionSettings(keep_recent_tokens=20)
    planned, expected = (
        prepare_compaction(lazy.get_branch_outline(), settings),
        prepare_compaction(full.get_branch(), settings),
    )
    assert planned is not None and expected is not None
    assert dump(planned) == dump(expected)
    assert unread(lazy) == stubs > 150  # nothing before the latest compaction was read
