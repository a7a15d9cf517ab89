"""/fork lists the user messages of every branch (issue 20, defect 11); /tree folds a segment."""

from __future__ import annotations

from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep
from pi_harness.tui.components.content import content_text, first_line
from pi_harness.tui.components.tree_selector import TreeSelector, describe_entry

from .harness import Pi, run_pi


def _answer(text: str) -> ScriptedResponse:
    return ScriptedResponse(steps=[TextStep(text)])


async def _converse(pi: Pi, prompt: str, answer: str) -> None:
    await pi.submit(prompt)
    await pi.wait_for(lambda: answer in pi.scrollback(), f"the answer {answer!r}")
    await pi.idle()


async def _branch_back_to_the_first_question(pi: Pi) -> None:
    """/tree to the first question (no summary): the second question's branch is left behind."""
    await pi.submit("/tree")
    await pi.wait_for(lambda: "Session Tree" in pi.screen(), "the tree selector")
    await pi.press("up", "up", "up")
    await pi.wait_for(lambda: "user: first question" in _selected_tree_row(pi), "the first question selected")
    await pi.press("enter")
    await pi.wait_for(lambda: "Summarize the branch you are leaving?" in pi.screen(), "the summary question")
    await pi.press("enter")  # No summary
    await pi.wait_for(lambda: pi.mode.shell.editor.text == "first question", "the message back in the editor")
    pi.mode.shell.editor.clear()


def _user_texts(pi: Pi) -> list[str]:
    return [first_line(content_text(m["content"])) for m in pi.mode.session.get_messages() if m["role"] == "user"]


def _selected_tree_row(pi: Pi) -> str:
    """The text of the entry selected in the open tree selector."""
    overlays = pi.mode.shell.overlays
    tree = overlays[-1] if overlays else None
    if not isinstance(tree, TreeSelector) or not tree.rows:
        return ""
    return describe_entry(tree.rows[tree.index].node.entry)


async def test_fork_offers_a_message_of_another_branch_and_forks_from_it(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("Alpha."), _answer("Beta."), _answer("Gamma."))
    async with run_pi() as pi:
        await pi.started()
        await _converse(pi, "first question", "Alpha.")
        await _converse(pi, "second question", "Beta.")
        await _branch_back_to_the_first_question(pi)
        await _converse(pi, "third question", "Gamma.")
        manager = pi.mode.session.session_manager
        assert _user_texts(pi) == ["third question"]  # a branch of its own beside the first question's
        old_file = manager.get_session_file()

        await pi.submit("/fork")
        await pi.wait_for(lambda: "Fork from Message" in pi.screen(), "the fork selector")
        assert "third question" in pi.selected_row()  # the newest is selected
        assert pi.screen_has("second question") and pi.screen_has("Message 2 of 3")
        await pi.press("up")
        await pi.wait_for(lambda: "second question" in pi.selected_row(), "the other branch's message selected")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "second question", "the message in the editor")

        forked = pi.mode.session.session_manager
        assert forked.get_session_file() != old_file
        assert forked.get_header().get("parentSession") == str(old_file)
        assert _user_texts(pi) == ["first question"]  # the path of the chosen message, up to it
        assert pi.mode.session.get_last_assistant_text() == "Alpha."


async def test_tree_folds_a_segment_and_unfolds_it(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("Alpha."), _answer("Beta."), _answer("Gamma."))
    async with run_pi() as pi:
        await pi.started()
        await _converse(pi, "first question", "Alpha.")
        await _converse(pi, "second question", "Beta.")
        await _branch_back_to_the_first_question(pi)
        await _converse(pi, "third question", "Gamma.")

        await pi.submit("/tree")
        await pi.wait_for(lambda: "Session Tree" in pi.screen(), "the tree selector")
        await pi.wait_for(lambda: pi.screen_has("⊟ user: first question"), "the foldable segment")
        while "first question" not in _selected_tree_row(pi):
            await pi.press("up")
        pi.type("\x1b[1;5D")  # ctrl+left: fold
        await pi.wait_for(lambda: pi.screen_has("⊞ user: first question"), "the folded marker")
        assert "second question" not in pi.screen() and "Beta." not in pi.screen()  # its entries are hidden
        assert "user: third question" in pi.screen()  # the other branch is not
        pi.type("\x1b[1;5C")  # ctrl+right: unfold
        await pi.wait_for(lambda: "user: second question" in pi.screen(), "the unfolded segment")
        assert pi.screen_has("⊟ user: first question")
        await pi.press("escape")
        await pi.wait_for(lambda: "Session Tree" not in pi.screen(), "the tree closed")
