"""``app.message.copy`` (Ctrl+X) and keys reported in the extended forms, in-process."""

from __future__ import annotations

from pathlib import Path

from pi_harness.cli.modes.interactive.clipboard import osc52
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi

CTRL_X = "\x18"
ANSWER = "The copied answer, with ünïcode."


async def test_ctrl_x_copies_the_last_assistant_message(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep(ANSWER)]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Say something to copy")
        await pi.wait_for(lambda: pi.scrollback_has(ANSWER) or pi.screen_has(ANSWER), "the answer")
        await pi.idle()
        pi.type(CTRL_X)
        await pi.wait_for(lambda: osc52(ANSWER) in pi.buffer.getvalue(), "the answer sent to the clipboard")
        await pi.wait_for(lambda: pi.screen_has("Copied"), "the confirmation")


async def test_ctrl_x_with_nothing_to_copy_says_so(server: FakeLLMServer, project: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        pi.type(CTRL_X)
        await pi.wait_for(
            lambda: (
                pi.scrollback_has("No agent messages to copy yet.") or pi.screen_has("No agent messages to copy yet.")
            ),
            "the error",
        )
        assert "\x1b]52;" not in pi.buffer.getvalue()


async def test_ctrl_x_in_the_tree_copies_the_selected_entry(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep(ANSWER)]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("A question for the tree")
        await pi.wait_for(lambda: pi.scrollback_has(ANSWER) or pi.screen_has(ANSWER), "the answer")
        await pi.idle()
        await pi.submit("/tree")
        await pi.wait_for(lambda: "A question for the tree" in pi.screen(), "the tree")
        pi.type(CTRL_X)  # the selected entry: the answer, where the conversation is
        await pi.wait_for(lambda: osc52(ANSWER) in pi.buffer.getvalue(), "the entry copied")
        await pi.wait_for(lambda: pi.screen_has("Copied selected message to clipboard"), "the confirmation")


async def test_keys_in_kitty_and_modify_other_keys_forms_reach_the_editor(server: FakeLLMServer, project: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        pi.type("one")
        pi.type("\x1b[27;2;13~")  # shift+enter, modifyOtherKeys
        pi.type("two")
        pi.type("\x1b[13;2u")  # shift+enter, CSI-u
        pi.type("three")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "one\ntwo\nthree", "three lines")
        pi.type("\x1b[107;6u")  # ctrl+shift+k: bound to nothing, so nothing happens
        pi.type("\x1b[13;2:3u")  # a key release
        pi.type("\x1b[119;5u")  # ctrl+w deletes the word before the cursor
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "one\ntwo\n", "the last word deleted")
        pi.type("\x1b[97;2u!")  # shift+a types "A"
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "one\ntwo\nA!", "typed text")
        assert not server.requests
        assert not pi.task.done()
