"""Fullscreen mode (Pi's default): the transcript scrolls inside the application above the pinned
editor; PageUp/PageDown/Ctrl+Home/Ctrl+End, the jump bar, search, the mouse, and the transcript
written to the terminal when pi exits."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import HEIGHT, TUI_MODE, WIDTH, Pi, run_pi

ITEMS = 60
JUMP_BAR = "Jump to latest message · Ctrl+End"


@pytest.fixture(autouse=True)
def tui_mode() -> Iterator[str]:
    """These scenarios are fullscreen's own (overrides the conftest's mode parameter)."""
    TUI_MODE["mode"] = "fullscreen"
    yield "fullscreen"
    TUI_MODE["mode"] = "fullscreen"


def view_of(pi: Pi) -> FullscreenView:
    view = pi.mode.shell.view
    assert isinstance(view, FullscreenView)
    return view


def screen_rows(pi: Pi) -> list[str]:
    """The whole terminal as drawn: the transcript area, then the pinned bottom (editor, footer)."""
    bottom = pi.mode.shell.pane.render_bottom(WIDTH, HEIGHT - 3).lines
    content = view_of(pi).area.create_content(WIDTH, HEIGHT - len(bottom))
    area = ["".join(fragment[1] for fragment in content.get_line(row)) for row in range(content.line_count)]
    from pi_harness.tui.ansi import strip_ansi

    return [row.rstrip() for row in area] + [strip_ansi(line).rstrip() for line in bottom]


def area_text(pi: Pi) -> str:
    rows = screen_rows(pi)
    return "\n".join(rows[: len(rows) - len(pi.mode.shell.pane.render_bottom(WIDTH, HEIGHT - 3).lines)])


def long_answer() -> str:
    return "\n".join(f"{number}. item-{number:03d}" for number in range(1, ITEMS + 1))


async def converse(pi: Pi, server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep(long_answer(), chunks=12)]))
    await pi.started()
    await pi.submit("List sixty items")
    await pi.wait_for(lambda: f"item-{ITEMS:03d}" in pi.scrollback(), "the whole answer")
    await pi.idle()


async def test_fullscreen_is_the_default_and_keeps_the_editor_at_the_bottom(
    server: FakeLLMServer, project: Path
) -> None:
    async with run_pi([]) as pi:
        await converse(pi, server)
        rows = screen_rows(pi)
        assert len(rows) == HEIGHT
        assert rows[-1].endswith("fake-model")  # the footer is the last row
        area = area_text(pi)
        assert f"item-{ITEMS:03d}" in area and "item-001" not in area  # the end of the answer is shown
        assert JUMP_BAR not in area
        assert await pi.quit() == 0
    raw = pi.buffer.getvalue()
    assert "\x1b[?1049h" in raw  # the alternate screen


async def test_page_keys_scroll_and_ctrl_end_follows_again(server: FakeLLMServer, project: Path) -> None:
    async with run_pi([]) as pi:
        await converse(pi, server)
        view = view_of(pi)
        await pi.press("ctrl+home")
        await pi.wait_for(lambda: "pi v" in area_text(pi), "the header at the top")
        assert JUMP_BAR in area_text(pi)
        assert f"item-{ITEMS:03d}" not in area_text(pi)
        await pi.press("pageDown")
        await pi.wait_for(lambda: view.scroll.first_visible() > 0, "a page down")
        await pi.press("ctrl+end")
        await pi.wait_for(lambda: view.scroll.following, "following the end")
        assert f"item-{ITEMS:03d}" in area_text(pi) and JUMP_BAR not in area_text(pi)
        await pi.press("pageUp")
        await pi.wait_for(lambda: not view.scroll.following, "a page up")
        assert f"item-{ITEMS:03d}" not in area_text(pi)
        # New output while scrolled up does not move what the reader looks at.
        before = area_text(pi)
        pi.mode.shell.notice("info", "late-output-marker")
        await pi.wait_for(lambda: "late-output-marker" in pi.scrollback(), "the notice in the transcript")
        # (the scrollbar in the last column may move: the transcript grew)
        assert [row[:-1] for row in area_text(pi).split("\n")] == [row[:-1] for row in before.split("\n")]
        assert JUMP_BAR in before
        await pi.press("ctrl+end")
        await pi.wait_for(lambda: "late-output-marker" in area_text(pi), "the new output after Ctrl+End")


async def test_search_finds_moves_between_matches_and_closes(server: FakeLLMServer, project: Path) -> None:
    async with run_pi([]) as pi:
        await converse(pi, server)
        view = view_of(pi)
        await pi.press("ctrl+shift+f")
        await pi.wait_for(lambda: view.search is not None, "the search box")
        pi.type("item-00")
        # Nothing matches below the view: the nearest match above it is selected and shown.
        await pi.wait_for(lambda: "9/9" in area_text(pi), "nine matches, the last selected")
        assert "item-009" in area_text(pi)
        assert pi.mode.shell.editor.text == ""  # the query did not go into the editor
        await pi.press("enter")
        await pi.wait_for(lambda: "1/9" in area_text(pi), "the next match, wrapping around")
        await pi.press("shift+enter", "shift+enter")
        await pi.wait_for(lambda: "8/9" in area_text(pi), "two matches back")
        await pi.press("escape")
        await pi.wait_for(lambda: view.search is None, "the search closed")
        assert "8/9" not in area_text(pi)
        pi.type("still typing")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "still typing", "keys back in the editor")


async def test_the_wheel_scrolls_and_a_drag_copies_the_selection(server: FakeLLMServer, project: Path) -> None:
    async with run_pi([]) as pi:
        await converse(pi, server)
        view = view_of(pi)
        pi.type("\x1b[<64;10;5M" * 5)  # wheel up (SGR mouse), 3 lines each
        await pi.wait_for(lambda: not view.scroll.following, "scrolled by the wheel")
        pi.type("\x1b[<65;10;5M" * 6)  # wheel down, back to the end
        await pi.wait_for(lambda: view.scroll.following, "back at the end")
        rows = screen_rows(pi)
        row = next(index for index, text in enumerate(rows) if "item-050" in text)
        column = rows[row].index("item-050")
        # Press on "item-050", drag to the end of "item-051", release (SGR coordinates are 1-based).
        pi.type(f"\x1b[<0;{column + 1};{row + 1}M\x1b[<32;{column + 9};{row + 2}M\x1b[<0;{column + 9};{row + 2}m")
        expected = base64.b64encode(rows[row][column:].encode()).decode()[:8]
        await pi.wait_for(lambda: "\x1b]52;c;" in pi.buffer.getvalue(), "the selection copied (OSC 52)")
        copied = pi.buffer.getvalue().split("\x1b]52;c;", 1)[1].split("\x07", 1)[0]
        text = base64.b64decode(copied).decode()
        assert text.startswith("item-050") and text.endswith("item-051") and expected
        assert "\n" in text


async def test_quitting_writes_the_transcript_to_the_terminal(server: FakeLLMServer, project: Path) -> None:
    async with run_pi([]) as pi:
        await converse(pi, server)
        assert await pi.quit() == 0
    after = pi.output().rsplit("\x1b[?1049l", 1)[-1] if "\x1b[?1049l" in pi.buffer.getvalue() else pi.output()
    assert "List sixty items" in after and "item-001" in after and f"item-{ITEMS:03d}" in after
    raw = pi.buffer.getvalue()
    assert raw.rindex("item-001") > raw.rindex("\x1b[?1049l")  # written after leaving the alternate screen


async def test_exit_output_resume_hint_writes_no_transcript(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    (agent_dir / "settings.json").write_text(json.dumps({**settings, "fullscreenExitOutput": "resume-hint"}))
    async with run_pi([]) as pi:
        await converse(pi, server)
        assert await pi.quit() == 0
    raw = pi.buffer.getvalue()
    assert "item-001" not in raw.rsplit("\x1b[?1049l", 1)[-1]


async def test_previous_prompt_jumps_to_the_user_message(server: FakeLLMServer, project: Path) -> None:
    async with run_pi([]) as pi:
        await converse(pi, server)
        view = view_of(pi)
        await pi.press("ctrl+shift+up")
        await pi.wait_for(lambda: view.scroll.first_visible() == view.buffer.marks[-1], "the prompt at the top")
        assert "List sixty items" in "".join(area_text(pi).splitlines()[:3])


async def test_regular_mode_keeps_page_keys_for_the_editor(server: FakeLLMServer, project: Path) -> None:
    async with run_pi(["--tui-mode", "regular"]) as pi:
        await pi.started()
        assert not isinstance(pi.mode.shell.view, FullscreenView)
        pi.type("one")
        await pi.press("shift+enter")
        pi.type("two")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "one\ntwo", "two lines")
        await pi.press("pageUp")
        await pi.wait_for(lambda: pi.mode.shell.editor.row == 0, "the cursor on the first line")
        assert "\x1b[?1049h" not in pi.buffer.getvalue()
