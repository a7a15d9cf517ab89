"""``/export <file>.jsonl`` writes the active branch as a session file (issue 20, defect 6)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.session_store.store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi


async def test_export_to_jsonl_writes_the_branch_as_a_session(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("First answer.")]), ScriptedResponse(steps=[TextStep("Second.")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("first question")
        await pi.wait_for(lambda: "First answer." in pi.scrollback(), "the first answer")
        await pi.idle()
        await pi.submit("second question")
        await pi.wait_for(lambda: "Second." in pi.scrollback(), "the second answer")
        await pi.idle()
        session_id = pi.mode.session.session_manager.get_session_id()
        branch_ids = [e["id"] for e in pi.mode.session.session_manager.get_branch()]
        await pi.submit("/export out/branch.jsonl")
        await pi.wait_for(lambda: "Session exported to:" in pi.scrollback(), "the export notice")
    target = project / "out" / "branch.jsonl"
    text = target.read_text()
    assert not text.lstrip().startswith("<")  # JSON lines, not the HTML page
    records = [json.loads(line) for line in text.splitlines()]
    header, entries = records[0], records[1:]
    assert (header["type"], header["id"], header["cwd"]) == ("session", session_id, str(project))
    assert [e["id"] for e in entries] == branch_ids
    # One straight branch: each entry's parent is the entry before it.
    assert [e["parentId"] for e in entries] == [None, *branch_ids[:-1]]
    texts = [
        part["text"]
        for e in entries
        if e["type"] == "message"
        for part in e["message"]["content"]
        if part["type"] == "text"
    ]
    assert texts == ["first question", "First answer.", "second question", "Second."]
    # It opens like any session, with the same conversation.
    reopened = SessionManager.open(target, read_only=True)
    roles = [m["role"] for m in reopened.build_session_context().messages if m["role"] != "system"]
    assert roles == ["user", "assistant", "user", "assistant"]


async def test_export_failure_is_one_line_and_the_session_goes_on(server: FakeLLMServer, project: Path) -> None:
    (project / "blocker").write_text("a file, not a directory")
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/export blocker/branch.jsonl")
        await pi.wait_for(lambda: "Failed to export session:" in pi.scrollback(), "the error")
        assert pi.task.done() is False
