"""Links and kitty images in fullscreen mode, read from the byte stream pi writes.

No terminal here shows images (tmux has none), so the output of a run with a forced protocol is
fed into a small terminal model (``cell_terminal``) that records which URL each cell is linked
to and where each kitty graphics command arrived; the checks hold after scrolling, where
prompt_toolkit repaints only the cells that changed.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import sys
import zlib
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

from .cell_terminal import CellTerminal, Graphic
from .harness import HEIGHT, WIDTH, Pi, run_pi
from .test_inline_images import _png

LINES = 60


@pytest.fixture(autouse=True)
def fullscreen_only(tui_mode: str) -> None:
    if tui_mode != "fullscreen":
        pytest.skip("regular mode prints links and images into the scrollback (test_inline_images)")


@pytest.fixture
def kitty(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TMUX", "TERM_PROGRAM", "KITTY_WINDOW_ID", "WEZTERM_PANE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("PI_IMAGE_PROTOCOL", "kitty")
    monkeypatch.setenv("PI_HYPERLINKS", "1")


class Screen:
    """The terminal model fed with everything pi wrote so far."""

    def __init__(self, pi: Pi) -> None:
        self.pi = pi
        self.terminal = CellTerminal(HEIGHT, WIDTH)
        self.seen = 0

    def update(self) -> CellTerminal:
        data = self.pi.buffer.getvalue()
        self.terminal.feed(data[self.seen :])
        self.seen = len(data)
        return self.terminal

    def texts(self) -> list[str]:
        terminal = self.update()
        return [terminal.text(row) for row in range(terminal.rows)]

    def changed(self, before: list[str]) -> bool:
        return self.texts() != before

    def graphics_since(self, start: int) -> list[Graphic]:
        return self.update().graphics[start:]


def _answer() -> str:
    return "\n\n".join(f"Line {n}: see [docs {n}](https://example.com/{n}) for more." for n in range(LINES))


def _links_match_text(terminal: CellTerminal) -> list[int]:
    """The rows showing a "docs N" link; asserts each is linked to its URL, cell for cell, and nothing else is."""
    rows = []
    for row in range(terminal.rows):
        text = terminal.text(row)
        start = text.find("docs ")
        if start < 0 or "Line " not in text:
            assert terminal.links(row) == [], (row, text)
            continue
        number = text[start + 5 :].split(")")[0].split(" ")[0]
        assert terminal.links(row) == [(f"docs {number}", f"https://example.com/{number}")], (row, text)
        rows.append(row)
    return rows


async def test_links_are_osc8_on_exactly_their_cells_while_scrolling(
    server: FakeLLMServer, project: Path, kitty: None
) -> None:
    server.push(ScriptedResponse(steps=[TextStep(_answer())]))
    async with run_pi() as pi:
        await pi.started()
        screen = Screen(pi)
        await pi.submit("links please")
        await pi.wait_for(lambda: screen.update().find(f"docs {LINES - 1}") is not None, "the last link drawn")
        await pi.idle()
        assert len(_links_match_text(screen.update())) >= 5
        # A page up, then the wheel: rows shift by one to three lines, and prompt_toolkit repaints
        # only the characters that differ ("docs 41" becoming "docs 44" repaints one cell).
        await pi.press("pageUp")
        await pi.wait_for(lambda: screen.update().find(f"docs {LINES - 1}") is None, "the page up")
        assert len(_links_match_text(screen.update())) >= 5
        for _ in range(3):
            before = screen.texts()
            pi.type("\x1b[<65;10;5M")  # wheel down
            await pi.wait_for(functools.partial(screen.changed, before), "the wheel")
            assert len(_links_match_text(screen.update())) >= 5
        # A selection over a link repaints part of it in reverse video: still linked, cell for cell.
        row = _links_match_text(screen.update())[0]
        column = screen.terminal.text(row).find("docs") + 2
        view = pi.mode.shell.view
        assert isinstance(view, FullscreenView)
        pi.type(f"\x1b[<0;{column + 1};{row + 1}M\x1b[<32;{column + 6};{row + 2}M")
        await pi.wait_for(lambda: view.area.selection is not None and not view.area.selection.empty, "the selection")
        frames = view.app.render_counter
        await view.flush()
        await pi.wait_for(lambda: view.app.render_counter > frames, "the selection drawn")
        assert len(_links_match_text(screen.update())) >= 5
        await pi.quit()


async def _picture_then_text(server: FakeLLMServer, project: Path) -> None:
    """A read of a picture, answered shortly; the next prompt gets a long answer."""
    (project / "pic.png").write_bytes(_png(36, 18))
    server.push(ScriptedResponse(steps=[ToolCallStep("read", {"path": "pic.png"}, id="call_1")]))
    server.push(ScriptedResponse(steps=[TextStep("A small picture.")]))
    server.push(ScriptedResponse(steps=[TextStep("\n\n".join(f"Paragraph {n}." for n in range(LINES)))]))


async def _look_then_scroll_away(pi: Pi, screen: Screen) -> None:
    await pi.submit("look at pic.png")
    await pi.wait_for(lambda: screen.update().find("A small picture.") is not None, "the short answer")
    await pi.idle()
    await pi.submit("tell me more")
    await pi.wait_for(lambda: screen.update().find(f"Paragraph {LINES - 1}.") is not None, "the long answer")
    await pi.idle()


def _image_id(project: Path) -> str:
    data = base64.b64encode((project / "pic.png").read_bytes()).decode()
    return str(zlib.crc32(data.encode()) or 1)


async def test_kitty_image_is_placed_moved_cropped_and_freed(server: FakeLLMServer, project: Path, kitty: None) -> None:
    await _picture_then_text(server, project)
    image_id = _image_id(project)
    async with run_pi() as pi:
        await pi.started()
        screen = Screen(pi)
        await _look_then_scroll_away(pi, screen)
        shown = [g for g in screen.update().graphics if g.controls.get("i") == image_id]
        # Uploaded once with its data, then placed by id as the second prompt moved it up, until
        # the long answer pushed it out of view (all placements deleted, none made).
        assert [g.controls["a"] for g in shown][:1] == ["T"]
        assert sum(g.controls.get("a") == "T" for g in shown) == 1
        assert screen.terminal.graphics[-1].controls == {"a": "d", "d": "a", "q": "2"}

        # Back to the top: placed again by id alone, at the blank rows under the tool's title.
        start = len(screen.terminal.graphics)
        await pi.press("ctrl+home")
        await pi.wait_for(lambda: screen.update().find("read pic.png") is not None, "the top")
        await pi.wait_for(lambda: len(screen.graphics_since(start)) >= 2, "the placement")
        delete, place = screen.graphics_since(start)[:2]
        assert delete.controls == {"a": "d", "d": "a", "q": "2"}
        assert place.controls["a"] == "p" and place.controls["i"] == image_id
        assert place.controls["c"] == "60" and place.controls["r"] == "15" and "y" not in place.controls
        title = screen.terminal.find("read pic.png")
        assert title is not None and place.row > title[0]
        assert all(not screen.terminal.text(row)[:-1].strip() for row in range(place.row, place.row + 15))
        top_row = place.row

        # Scroll until the image's first rows are above the transcript: only its lower part shows.
        scrolled = 0
        while True:
            scrolled += 3
            start = len(screen.terminal.graphics)
            before = screen.texts()
            pi.type("\x1b[<65;10;5M")  # wheel down, 3 lines
            await pi.wait_for(functools.partial(screen.changed, before), "the wheel")
            await pi.wait_for(functools.partial(screen.graphics_since, start), "the images redrawn")
            placed = [g for g in screen.graphics_since(start) if g.controls.get("a") == "p"]
            if not placed or "y" in placed[0].controls:
                break
        assert placed, "the image went out of view before it was cut"
        cut = placed[0]
        hidden = 15 - int(cut.controls["r"])
        assert cut.row == 0 and hidden == scrolled - top_row > 0
        assert cut.controls["y"] == str(18 * hidden // 15) and cut.controls["h"] == str(18 - 18 * hidden // 15)

        await pi.quit()
        # Leaving the screen frees the images, before the transcript goes into the scrollback.
        raw = pi.buffer.getvalue()
        assert "\x1b_Ga=d,d=A,q=2\x1b\\" in raw
        assert raw.rindex("\x1b_Ga=d,d=A,q=2\x1b\\") < raw.rindex("\x1b[?1049l")


async def test_iterm2_images_stay_placeholders_in_fullscreen(
    server: FakeLLMServer, project: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch, kitty: None
) -> None:
    monkeypatch.setenv("PI_IMAGE_PROTOCOL", "iterm2")
    settings = json.loads((agent_dir / "settings.json").read_text())
    settings["quietStartup"] = True  # the expanded header would fill the screen above the read
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    await _picture_then_text(server, project)
    async with run_pi() as pi:
        await pi.started()
        screen = Screen(pi)
        await pi.press("ctrl+o")  # a read's output, the placeholder with it, shows expanded (as in Pi)
        await _look_then_scroll_away(pi, screen)
        await pi.press("ctrl+home")
        await pi.wait_for(lambda: screen.update().find("[Image: [image/png] 36x18]") is not None, "the placeholder")
        assert "\x1b]1337;File=" not in pi.buffer.getvalue() and not screen.terminal.graphics


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the opener is xdg-open on Linux")
async def test_a_click_on_a_link_opens_it(
    server: FakeLLMServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kitty: None
) -> None:
    """The mouse belongs to pi in fullscreen, so a click on a link starts the system's opener (Pi)."""
    opened = tmp_path / "opened.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"
    opener.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\n')
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    server.push(ScriptedResponse(steps=[TextStep(_answer())]))
    async with run_pi() as pi:
        await pi.started()
        screen = Screen(pi)
        await pi.submit("links please")
        await pi.wait_for(lambda: screen.update().find(f"docs {LINES - 1}") is not None, "the last link drawn")
        await pi.idle()
        row, column = screen.update().find(f"docs {LINES - 2}") or (0, 0)
        text_column = screen.terminal.text(row).find("Line")
        for x in (text_column, column + 2):  # plain text first (nothing opens), then the link
            pi.type(f"\x1b[<0;{x + 1};{row + 1}M\x1b[<0;{x + 1};{row + 1}m")
        await pi.wait_for(lambda: opened.exists() and opened.read_text().endswith("\n"), "the opener")
        assert opened.read_text() == f"https://example.com/{LINES - 2}\n"


async def test_images_are_sent_again_after_the_screen_was_left(
    server: FakeLLMServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kitty: None
) -> None:
    """An external editor (Ctrl+G) takes the terminal; the alternate screen pi comes back to holds
    no images, so the picture is transmitted again rather than placed by id."""
    edited = tmp_path / "edited"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\necho "$1" > "{edited}"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    (project / "pic.png").write_bytes(_png(36, 18))
    server.push(ScriptedResponse(steps=[ToolCallStep("read", {"path": "pic.png"}, id="call_1")]))
    server.push(ScriptedResponse(steps=[TextStep("A small picture.")]))
    image_id = _image_id(project)
    async with run_pi() as pi:
        await pi.started()
        screen = Screen(pi)
        await pi.submit("look at pic.png")
        await pi.wait_for(lambda: screen.update().find("A small picture.") is not None, "the answer")
        await pi.idle()

        def sent() -> int:
            return sum(g.controls.get("a") == "T" and g.controls.get("i") == image_id for g in screen.update().graphics)

        assert sent() == 1
        pi.type("\x07")  # ctrl+g
        await pi.wait_for(edited.exists, "the editor")
        await pi.wait_for(lambda: sent() == 2, "the picture sent again")
