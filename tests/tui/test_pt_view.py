from __future__ import annotations

import asyncio
import io

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.footer import Footer, FooterData
from pi_harness.tui.pt_keys import build_key_bindings
from pi_harness.tui.pt_view import TerminalView, ansi_to_fragments
from pi_harness.tui.screen import BottomPane
from pi_harness.tui.transcript import Transcript

from .scenario import first_turn


def test_ansi_lines_become_prompt_toolkit_fragments() -> None:
    line = "\x1b[1;38;2;10;20;30mbold\x1b[22m plain\x1b[0m \x1b[31mred\x1b[39m\x1b[48;5;196mbg\x1b[0m\x1b]0;t\x07!"
    assert ansi_to_fragments(line) == [
        ("bold fg:#0a141e", "bold"), ("fg:#0a141e", " plain"), ("", " "), ("fg:ansired", "red"),
        ("bg:#ff0000", "bg"), ("", "!"),
    ]  # fmt: skip
    assert ansi_to_fragments("plain") == [("", "plain")]


async def test_view_redraws_on_keys_and_prints_finished_blocks_into_the_scrollback(context: RenderContext) -> None:
    stdout = io.StringIO()
    output = Vt100_Output(stdout, lambda: Size(rows=30, columns=80), term="xterm-256color")
    editor = Editor()
    transcript = Transcript(context)
    submitted: list[str] = []
    view_holder: list[TerminalView] = []

    def typed(text: str) -> None:
        editor.insert(text)
        view_holder[0].refresh()

    def submit() -> None:
        submission = editor.submit()
        if submission is not None:
            submitted.append(submission.text)
        view_holder[0].refresh()

    with create_pipe_input() as pipe:
        bindings = build_key_bindings(context.keymap, {"tui.input.submit": submit}, on_text=typed)
        pane = BottomPane(
            transcript, EditorView(editor, context.theme), Footer(FooterData(cwd="/work/p"), context.theme)
        )
        view = TerminalView(pane, bindings, input=pipe, output=output)
        view_holder.append(view)
        task = asyncio.create_task(view.run())
        await asyncio.sleep(0.05)
        pipe.send_text("hello")
        await asyncio.sleep(0.1)
        assert "hello" in strip_ansi(stdout.getvalue())
        pipe.send_text("\r")
        await asyncio.sleep(0.05)
        assert submitted == ["hello"]
        for event in first_turn():
            transcript.handle(event)
            view.refresh()
            await asyncio.sleep(0)
        await asyncio.sleep(0.2)
        view.exit()
        await task
    text = strip_ansi(stdout.getvalue())
    assert text.index("Please fix the failing test") < text.index("$ pytest -q tests/test_app.py")
    assert "The test compares 1 with 2" in text
    assert not transcript.has_live
