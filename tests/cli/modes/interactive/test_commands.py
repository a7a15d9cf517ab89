"""Built-in slash commands: /model, /tree, /compact, /export, /session, /name, ! and !!."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi


def _answer(text: str) -> ScriptedResponse:
    return ScriptedResponse(steps=[TextStep(text)])


def _session_entries(pi_session_file: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in pi_session_file.read_text().splitlines() if line.strip()]


async def test_model_selector_switches_the_model_of_the_next_request(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("From the other model."))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/model")
        await pi.wait_for(lambda: "to set as default" in pi.screen(), "the model selector")
        pi.type("other")
        await pi.wait_for(lambda: "other-model" in pi.selected_row(), "the filtered selection")
        await pi.press("enter")
        # one provider in use: the footer names the model alone, as Pi's does
        await pi.wait_for(lambda: pi.screen().rstrip().endswith(" other-model"), "the footer naming the new model")
        await pi.submit("Hello")
        await pi.wait_for(lambda: "From the other model." in pi.scrollback(), "the answer")
    assert server.requests[0].json["model"] == "other-model"


async def test_ctrl_l_opens_the_selector_and_ctrl_p_cycles_models(server: FakeLLMServer, project: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await pi.press("ctrl+l")
        await pi.wait_for(lambda: "to set as default" in pi.screen(), "the model selector")
        await pi.press("escape")
        await pi.wait_for(lambda: "to set as default" not in pi.screen(), "the selector closed")
        pi.type("\x10")  # ctrl+p
        await pi.wait_for(lambda: (pi.mode.session.model or {}).get("id") == "other-model", "the next model")


async def test_tree_moves_the_leaf_back_and_puts_the_message_in_the_editor(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(_answer("First answer."), _answer("Second answer."))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("first question")
        await pi.wait_for(lambda: "First answer." in pi.scrollback(), "the first answer")
        await pi.idle()
        await pi.submit("second question")
        await pi.wait_for(lambda: "Second answer." in pi.scrollback(), "the second answer")
        await pi.idle()
        manager = pi.mode.session.session_manager
        first = next(e for e in manager.get_entries() if e["type"] == "message" and e["message"]["role"] == "user")
        footer = pi.mode.shell.footer.data
        assert footer.context_tokens == 15  # the second answer's context (Pi's footer shows it as 0.0%/128k)
        await pi.submit("/tree")
        await pi.wait_for(lambda: "Session Tree" in pi.screen(), "the tree selector")
        await pi.press("up", "up", "up")
        await pi.wait_for(lambda: "user: first question" in pi.screen(), "the first message in view")
        await pi.press("enter")
        await pi.wait_for(lambda: "Summarize the branch you are leaving?" in pi.screen(), "the summary question")
        await pi.press("enter")  # No summary
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "first question", "the message back in the editor")
        assert manager.get_leaf_id() == first["parentId"]
        assert "Second answer." not in pi.scrollback()  # the screen shows the new position
        # The footer's context figure follows the new position (issue 20, defect 5).
        await pi.wait_for(lambda: footer.context_tokens != 15, "the context figure of the new position")
    assert len(server.requests) == 2


async def test_tree_does_not_ask_about_a_summary_with_branch_summary_skip_prompt(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    settings["branchSummary"] = {"skipPrompt": True}
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    server.push(_answer("First answer."), _answer("Second answer."))
    async with run_pi() as pi:
        await pi.started()
        for question, answer in (("first question", "First answer."), ("second question", "Second answer.")):
            await pi.submit(question)
            await pi.wait_for(lambda answer=answer: answer in pi.scrollback(), "an answer")
            await pi.idle()
        await pi.submit("/tree")
        await pi.wait_for(lambda: "Session Tree" in pi.screen(), "the tree selector")
        await pi.press("up", "up", "up")
        await pi.wait_for(lambda: "user: first question" in pi.screen(), "the first message in view")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "first question", "the message back in the editor")
        assert "Summarize the branch you are leaving?" not in pi.screen()
    assert len(server.requests) == 2  # no summary request


async def test_compact_writes_a_compaction_entry_from_the_summary_request(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    settings["compaction"] = {"keepRecentTokens": 1}
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    server.push(_answer("First answer."), _answer("Second answer."))
    server.default = _answer("## Goal\nThe summary of it all.")  # the summary (and a split turn's prefix)
    async with run_pi() as pi:
        await pi.started()
        for question, answer in (("first question", "First answer."), ("second question", "Second answer.")):
            await pi.submit(question)
            await pi.wait_for(lambda answer=answer: answer in pi.scrollback(), "an answer")
            await pi.idle()
        await pi.submit("/compact keep the numbers")
        await pi.wait_for(lambda: "Compacted the conversation" in pi.scrollback(), "the compaction notice")
        await pi.idle()
        # The summary block shows at once, not only after a reload (issue 20, defect 7).
        assert "[compaction] Conversation compacted" in pi.scrollback()
        assert "?/128k" in pi.screen()  # context size unknown until the next response
        session_file = pi.mode.session.session_manager.get_session_file()
    assert session_file is not None
    compaction = [e for e in _session_entries(session_file) if e["type"] == "compaction"]
    assert len(compaction) == 1 and "The summary of it all." in str(compaction[0]["summary"])
    summary_request = json.dumps(server.requests[2].json)
    assert "keep the numbers" in summary_request and "first question" in summary_request


async def test_export_writes_an_html_page_with_the_messages(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("An answer worth keeping."))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Keep this <question>")
        await pi.wait_for(lambda: "An answer worth keeping." in pi.scrollback(), "the answer")
        await pi.idle()
        await pi.submit("/export out/session.html")
        await pi.wait_for(lambda: "Session exported to:" in pi.scrollback(), "the export notice")
    page = (project / "out" / "session.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "An answer worth keeping." in page and "Keep this \\u003cquestion\\u003e" in page  # JSON, escaped


async def test_session_name_and_user_bash(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("Seen it."))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/name Release prep")
        await pi.wait_for(lambda: "Release prep" in pi.screen(), "the name in the footer")
        await pi.submit("!echo visible-output")
        await pi.wait_for(lambda: "visible-output" in pi.scrollback(), "the command output")
        await pi.submit("!!echo hidden-output")
        await pi.wait_for(lambda: "hidden-output" in pi.scrollback(), "the second command output")
        await pi.submit("What did you see?")
        await pi.wait_for(lambda: "Seen it." in pi.scrollback(), "the answer")
        await pi.submit("/session")
        # "/name" already printed the name: wait for what only the session info shows.
        await pi.wait_for(lambda: "Session Info" in pi.scrollback(), "the session info")
        await pi.wait_for(lambda: "Name: Release prep" in pi.scrollback(), "the name in the session info")
        assert "Tools: 0 calls, 0 results" in pi.scrollback()
    request = json.dumps(server.requests[0].json)
    assert "visible-output" in request and "hidden-output" not in request
