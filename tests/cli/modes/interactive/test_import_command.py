"""``/import <file.jsonl>``: a session file from elsewhere copied into this project and opened."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi

STAMP = "2026-01-02T03:04:05.000Z"


def write_session(path: Path, cwd: Path, question: str, answer: str) -> None:
    records = [
        {"type": "session", "version": 3, "id": "imported-1", "timestamp": STAMP, "cwd": str(cwd)},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": STAMP,
         "message": {"role": "user", "content": question, "timestamp": 1}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": STAMP,
         "message": {"role": "assistant", "content": [{"type": "text", "text": answer}], "api": "openai-completions",
                     "provider": "fake", "model": "fake-model", "stopReason": "stop", "timestamp": 2,
                     "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                               "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


async def test_import_opens_a_copy_of_the_file(server: FakeLLMServer, project: Path, tmp_path: Path) -> None:
    source = tmp_path / "elsewhere" / "saved.jsonl"
    source.parent.mkdir()
    write_session(source, source.parent, "what is the capital of peru", "Lima, of course")
    original = source.read_text()
    async with run_pi() as pi:
        await pi.started()
        await pi.submit(f"/import {source}")
        await pi.wait_for(lambda: pi.screen_has("Replace current session"), "the confirmation")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.scrollback_has("Session imported from"), "the notice")
        await pi.wait_for(lambda: pi.scrollback_has("Lima, of course"), "the imported conversation")
        copy = pi.mode.session.session_manager.get_session_file()
        assert copy is not None and copy != source and copy.exists()
    assert source.read_text() == original


async def test_import_without_a_file_or_with_a_missing_one_says_so(server: FakeLLMServer, project: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/import")
        await pi.wait_for(lambda: pi.scrollback_has("Usage: /import <file.jsonl>"), "the usage line")
        await pi.submit("/import nowhere.jsonl")
        await pi.wait_for(lambda: pi.scrollback_has("Cannot import nowhere.jsonl: no such file"), "the error")
