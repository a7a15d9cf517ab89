"""What a session counts and cost (``usage_summary.py``, ``usage_scan.py``): the same figures
whether the file was opened by a scan (its covered part's messages left unparsed) or read in
full, as a walk over every entry gives them, and kept up to date by appends."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_deferred_open import _line, _message, covered_part, open_both, write_session

from pi_harness.coding.session_store import deferred, scan_index, usage_scan
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.session_store.usage_summary import UsageSummary


@pytest.fixture
def scanned_always() -> Iterator[None]:
    previous = deferred.DEFER_MIN_BYTES
    deferred.DEFER_MIN_BYTES = 0
    yield
    deferred.DEFER_MIN_BYTES = previous


def _walked(manager: SessionManager) -> UsageSummary:
    summary = UsageSummary()
    summary.add_entries(manager.get_entries())
    return summary


def _figures(summary: UsageSummary) -> tuple[object, ...]:
    return (dict(summary.counts), dict(summary.tokens), round(summary.cost, 9), summary.last_assistant_usage)


def _priced(entry_id: str, parent: str, n: int, *, tool_calls: int = 0) -> str:
    """An assistant message with a full usage record (and ``tool_calls`` tool calls)."""
    record = _message(entry_id, parent, "assistant", f"priced {n}")
    message = record["message"]
    assert isinstance(message, dict)
    message["content"] = [
        {"type": "text", "text": "calls"},
        *({"type": "toolCall", "id": f"t{k}", "name": "read", "arguments": {}} for k in range(tool_calls)),
    ]
    message["usage"] = {
        "input": 100 + n,
        "output": 7,
        "cacheRead": 50,
        "cacheWrite": 3,
        "totalTokens": 0 if n % 2 else 160 + n,
        "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.25 + n / 1000},
    }
    return _line(record)


def _session_with_usage(path: Path, *, odd: str | None = None) -> Path:
    write_session(path, turns=60)
    lines = path.read_text().splitlines(keepends=True)
    # Priced responses (with tool calls) among the covered lines, before the latest compaction.
    compaction = max(i for i, line in enumerate(lines) if '"type":"compaction"' in line)
    parent = json.loads(lines[compaction - 1])["id"]
    extra = [_priced(f"priced{n}", parent, n, tool_calls=n % 3) for n in range(5)]
    if odd is not None:
        extra.append(odd)
    lines[compaction:compaction] = extra
    path.write_text("".join(lines))
    return path


@pytest.mark.usefixtures("scanned_always")
def test_a_scanned_session_counts_what_the_full_walk_counts(tmp_path: Path) -> None:
    path = _session_with_usage(tmp_path / "s.jsonl")
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None  # opened by a scan: its covered messages unparsed
    summary = lazy.usage_summary()
    assert covered_part(lazy) is not None  # and still unparsed after counting
    assert _figures(summary) == _figures(_walked(full)) == _figures(full.usage_summary())
    assert summary.counts["toolCalls"] == 0 + 1 + 2 + 0 + 1
    assert summary.tokens["cacheRead"] > 0 and summary.cost > 1.0


@pytest.mark.usefixtures("scanned_always")
def test_usage_of_other_types_is_counted_as_the_full_walk_counts_it(tmp_path: Path) -> None:
    """A float count, a string cost, a usage that is a list: the fast decoding refuses that run,
    which is then parsed line by line."""
    record = _message("odd1", "x", "assistant", "odd usage")
    message = record["message"]
    assert isinstance(message, dict)
    message["usage"] = {"input": 12.9, "output": "3", "cost": {"total": "0.5"}}
    path = _session_with_usage(tmp_path / "s.jsonl", odd=_line(record))
    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert _figures(lazy.usage_summary()) == _figures(_walked(full))


@pytest.mark.usefixtures("scanned_always")
def test_appends_are_counted_whether_before_or_after_the_first_question(tmp_path: Path) -> None:
    path = _session_with_usage(tmp_path / "s.jsonl")
    manager = SessionManager.open(path)
    usage = {"input": 5, "output": 6, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 11, "cost": {"total": 0.5}}
    reply = {"role": "assistant", "content": [], "usage": usage, "stopReason": "stop", "timestamp": 2}
    manager.append_message({"role": "user", "content": "more", "timestamp": 2})  # type: ignore[typeddict-item]
    manager.append_message(reply)  # type: ignore[arg-type]
    early = _figures(manager.usage_summary())
    manager.append_message(reply)  # type: ignore[arg-type]
    later = manager.usage_summary()
    manager.close()
    _lazy, full = open_both(path)
    assert _figures(later) == _figures(_walked(full))
    assert later.counts["assistantMessages"] == early[0]["assistantMessages"] + 1  # type: ignore[index]
    assert later.last_assistant_usage == usage


def test_a_run_of_lines_is_decoded_in_pieces_of_bounded_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deferred, "DEFER_MIN_BYTES", 0)
    path = _session_with_usage(tmp_path / "s.jsonl")
    lazy, full = open_both(path)
    monkeypatch.setattr(usage_scan, "RUN_BYTES", 300)  # about one line per run
    assert _figures(lazy.usage_summary()) == _figures(_walked(full))


def test_a_session_read_in_full_and_a_new_one_count_their_entries(tmp_path: Path) -> None:
    path = _session_with_usage(tmp_path / "s.jsonl")
    _lazy, full = open_both(path)
    assert covered_part(full) is None
    assert _figures(full.usage_summary()) == _figures(_walked(full))
    fresh = SessionManager.in_memory()
    assert fresh.usage_summary().counts["totalMessages"] == 0
    fresh.append_message({"role": "user", "content": "hi", "timestamp": 1})  # type: ignore[typeddict-item]
    assert fresh.usage_summary().counts == {
        "userMessages": 1,
        "assistantMessages": 0,
        "toolCalls": 0,
        "toolResults": 0,
        "totalMessages": 1,
    }


@pytest.mark.usefixtures("scanned_always")
def test_the_index_keeps_the_count_of_the_covered_part_for_the_next_open(tmp_path: Path) -> None:
    path = _session_with_usage(tmp_path / "s.jsonl")
    first = SessionManager.open(path)
    counted = _figures(first.usage_summary())
    first.close()  # writes the index, with the count
    index = scan_index.index_path(path)
    assert b'"usage":{"counts"' in index.read_bytes()

    again = SessionManager.open(path)
    cold = covered_part(again)
    assert cold is not None and cold.usage is not None  # nothing to decode this time
    assert _figures(again.usage_summary()) == counted
    again.close()

    # An index whose count is not what it wrote is counted anew, not trusted.
    data = index.read_bytes().replace(b'"usage":{"counts"', b'"usage":{"Counts"')
    meta_end = data.index(b"\n", 9)
    crc = zlib.crc32(memoryview(data)[9:])
    index.write_bytes(b"%08x" % crc + data[8:meta_end] + data[meta_end:])
    third = SessionManager.open(path, read_only=True)
    cold = covered_part(third)
    assert cold is not None and cold.usage is None
    assert _figures(third.usage_summary()) == counted


@pytest.mark.usefixtures("scanned_always")
def test_a_line_that_is_no_entry_among_the_messages_does_not_shift_the_latest_response(tmp_path: Path) -> None:
    """Every response covered (a compaction last), and a stray line before the latest one: the
    run is parsed line by line, and the latest response's usage is still that response's."""
    path = write_session(tmp_path / "s.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"role":"assistant"' in line)
    record = json.loads(lines[last])
    record["message"]["usage"] = {"input": 9, "output": 8, "cacheRead": 7, "cacheWrite": 0, "totalTokens": 24}
    lines[last] = _line(record)
    lines.insert(last, "this line is no JSON\n")
    final = json.loads(lines[-1])["id"]
    closing = {"type": "compaction", "id": "c-last", "parentId": final, "timestamp": "2026-01-01T00:00:00.000Z"}
    lines.append(_line({**closing, "summary": "all of it", "firstKeptEntryId": final, "tokensBefore": 10}))
    path.write_text("".join(lines))

    lazy, full = open_both(path)
    assert covered_part(lazy) is not None
    assert _figures(lazy.usage_summary()) == _figures(_walked(full))
    assert lazy.usage_summary().last_assistant_usage == record["message"]["usage"]
