"""Regular mode's full redraws (``/tree``, ``/new``, ``/resume``) leave nothing stale behind
(issue 20, defect 3): right after clearing the screen and the scrollback the conversation is
printed, not a frame of the bottom pane that the terminal would scroll into its history."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep
from pi_harness.tui.ansi import strip_ansi

from .harness import TUI_MODE, run_pi

CLEAR = "\x1b[H\x1b[2J\x1b[3J"


@pytest.fixture(autouse=True)
def tui_mode() -> Iterator[str]:
    TUI_MODE["mode"] = "regular"
    yield "regular"
    TUI_MODE["mode"] = "fullscreen"


async def test_tree_redraw_prints_the_conversation_first(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("First answer.")]), ScriptedResponse(steps=[TextStep("Second.")]))
    async with run_pi() as pi:
        await pi.started()
        for question, answer in (("first question", "First answer."), ("second question", "Second.")):
            await pi.submit(question)
            await pi.wait_for(lambda answer=answer: answer in pi.scrollback(), "an answer")
            await pi.idle()
        await pi.submit("/tree")
        await pi.wait_for(lambda: "Session Tree" in pi.screen(), "the tree selector")
        await pi.press("up", "up", "up")
        await pi.wait_for(lambda: "user: first question" in pi.screen(), "the first message in view")
        await pi.press("enter")
        await pi.wait_for(lambda: "Summarize the branch you are leaving?" in pi.screen(), "the summary question")
        await pi.press("enter")  # No summary
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "first question", "the message back in the editor")
        await pi.wait_for(lambda: CLEAR in pi.buffer.getvalue(), "the full redraw")
        await pi.wait_for(lambda: "pi v" in strip_ansi(pi.buffer.getvalue().rsplit(CLEAR, 1)[1]), "the redrawn header")
        after = pi.buffer.getvalue().rsplit(CLEAR, 1)[1]
        # What is written together with the clear, before prompt_toolkit draws the next frame
        # (its frames start with private modes, ``ESC [ ?``): the conversation, here the header.
        printed = strip_ansi(after.split("\x1b[?", 1)[0])
        assert printed.lstrip().startswith("pi v") and "builtin:codemode" in printed
        assert strip_ansi(after).count("pi v") == 1
