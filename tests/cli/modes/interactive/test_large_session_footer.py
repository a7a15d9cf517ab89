"""A large session on the interactive screen: the footer's totals cover the whole file, and
showing them leaves the older part's messages unread (``session_store/usage_summary.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_harness.coding.session_store import deferred
from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi

TURNS = 200


def _write_session(path: Path, cwd: Path) -> None:
    stamp = "2026-01-01T00:00:00.000Z"
    lines = [{"type": "session", "version": 3, "id": "big", "timestamp": stamp, "cwd": str(cwd)}]
    parent: str | None = None
    for n in range(TURNS):
        user = {"role": "user", "content": [{"type": "text", "text": f"question {n}"}], "timestamp": 1}
        usage = {"input": 3, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 5, "cost": {"total": 0.01}}
        reply = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"answer {n}"}],
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-model",
            "usage": usage,
            "stopReason": "stop",
            "timestamp": 1,
        }
        for kind, message in (("u", user), ("a", reply)):
            entry_id = f"{kind}{n:05d}"
            lines.append(
                {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}
            )
            parent = entry_id
    compaction = {
        "type": "compaction",
        "id": "c1",
        "parentId": parent,
        "timestamp": stamp,
        "summary": "what came before",
        "firstKeptEntryId": f"u{TURNS - 1:05d}",
        "tokensBefore": 1000,
    }
    lines.append(compaction)
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))  # as Pi writes


async def test_the_footer_counts_the_whole_file_without_reading_its_older_messages(
    server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deferred, "DEFER_MIN_BYTES", 0)  # opened as a large file is
    session = project / "big.jsonl"
    _write_session(session, project)
    async with run_pi(["--session", str(session)]) as pi:
        await pi.started()
        await pi.wait_for(lambda: f"↑{3 * TURNS} ↓{2 * TURNS}" in pi.screen(), "the whole file's totals")
        manager = pi.mode.session.session_manager
        cold = manager._cold or manager._stubs
        # Only the few messages around the compaction were read (what the model is sent, the
        # latest response); a walk over every entry would have read all of them.
        assert cold is not None and cold.unfilled() >= 2 * TURNS - 4
        assert await pi.quit() == 0
