"""The live ``tuiMode`` switch and ``terminal.clearOnShrink`` in a real terminal (tmux), as in Pi.

Changing "TUI mode" in /settings leaves or enters the alternate screen at once; regular mode then
has the conversation in the terminal's scrollback exactly once (no second copy after a round
trip, no stale frames of the editor). With another overlay open the change is refused. In regular
mode, rows a shorter pane leaves empty at the bottom stay empty, unless clearOnShrink is on:
then everything is drawn again and the footer ends on the last row. Every step waits for what
the screen shows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _pi_env import PiEnv
from _tmux import EXIT_MARKER, Tmux, tmux_running_pi

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

OVERLAY_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extensions" / "overlay_qa_tests.py"
REFUSED = "Close active overlays before changing TUI mode"
FOOTER = "(auto)"  # the footer's context figure ends with the auto-compaction mark
DRAFT = "kept draft text"
F5 = "\x1b[15~"
# Puts a draft into the editor on F5, even while the settings list covers the editor.
DRAFT_EXTENSION = f"""
from pi_harness.coding.extensions import ExtensionAPI


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event, ctx) -> None:
        def on_key(data):
            if data == {F5!r}:
                ctx.ui.set_editor_text({DRAFT!r})
                return {{"consume": True}}
            return None

        ctx.ui.on_terminal_input(on_key)
"""


def items(prefix: str, count: int) -> str:
    return "\n".join(f"{n}. {prefix}-{n:03d}" for n in range(1, count + 1))


def ask(pi_env: PiEnv, tmux: Tmux, prompt: str, answer: str, last: str, usage: str = "↑10 ↓5") -> None:
    """Send ``prompt`` and wait for the whole answer (its ``last`` line, the footer's ``usage`` after it)."""
    pi_env.server.push(ScriptedResponse(steps=[TextStep(answer, chunks=5)]))
    tmux.send(prompt)
    tmux.wait_for(lambda screen: prompt in screen, "the prompt in the editor")
    tmux.keys("Enter")
    tmux.wait_for(lambda screen: last in screen and usage in screen, "the answer")


def open_tui_mode_item(tmux: Tmux) -> None:
    tmux.send("/settings")
    tmux.wait_for(lambda screen: "/settings" in screen, "the command in the editor")
    tmux.keys("Enter")
    tmux.wait_for(lambda screen: "Auto-compact" in screen, "the settings list")
    tmux.send("tui")  # no space: the overlay example shows its hidden overlay again on Space
    tmux.wait_for(lambda screen: "→ TUI mode" in screen, "the TUI mode item")


def selected(screen: str, label: str) -> str:
    """The value the settings list shows on the selected row ``label``."""
    row = next((line for line in screen.splitlines() if f"→ {label}" in line), "")
    return row.split()[-1] if row else ""


def alternate_screen(tmux: Tmux) -> bool:
    return tmux.run("display-message", "-p", "-t", "pi", "#{alternate_on}").strip() == "1"


def switch(tmux: Tmux, to: str) -> str:
    """Enter on the TUI mode item; waits for the other screen drawn (fullscreen: the alternate
    screen; regular: the main screen with the footer, drawn after the transcript was printed)."""
    tmux.keys("Enter")

    def shown(_screen: str) -> bool:
        if alternate_screen(tmux) != (to == "fullscreen"):
            return False
        screen = tmux.screen()  # read after the screen changed
        return f"TUI mode: {to}" in screen and selected(screen, "TUI mode") == to and FOOTER in screen

    return tmux.wait_for(shown, f"the {to} screen")


def drawn_scrollback(tmux: Tmux) -> str:
    """The scrollback with the screen, once a frame with the footer is on it (a frame being
    redrawn has it erased for a moment)."""
    captured: list[str] = []

    def drawn(_screen: str) -> bool:
        captured[:] = [tmux.scrollback()]
        return FOOTER in captured[0]

    tmux.wait_for(drawn, "the frame drawn")
    return captured[0]


def test_switching_modes_keeps_one_copy_of_the_transcript(pi_env: PiEnv, tmp_path: Path) -> None:
    draft = tmp_path / "draft.py"
    draft.write_text(DRAFT_EXTENSION, encoding="utf-8")
    with tmux_running_pi(pi_env, "-e", str(draft), width=100, height=30) as tmux:  # fullscreen: the default
        tmux.wait_for(lambda screen: FOOTER in screen, "the footer")
        ask(pi_env, tmux, "first question", items("first", 40), "first-040")
        open_tui_mode_item(tmux)
        tmux.send(F5)  # a draft in the editor behind the list

        switch(tmux, "regular")
        history = drawn_scrollback(tmux)
        assert history.count("first-001") == 1 and history.count("first-040") == 1
        assert history.count("first question") == 1 and history.count("pi v") == 1
        assert history.count(FOOTER) == 1  # the editor and footer only on the screen, not in the scrollback

        switch(tmux, "fullscreen")
        tmux.keys("Escape")
        tmux.wait_for(lambda screen: "→ TUI mode" not in screen and DRAFT in screen, "the list closed, the draft kept")
        tmux.keys("C-c")
        tmux.wait_for(lambda screen: DRAFT not in screen, "the editor cleared")
        ask(pi_env, tmux, "second question", items("second", 5), "second-005", "↑20 ↓10")
        open_tui_mode_item(tmux)

        switch(tmux, "regular")  # regular again: only what came since is printed
        history = drawn_scrollback(tmux)
        for line in ("first-001", "first-040", "first question", "pi v", "second question", "second-005", FOOTER):
            assert history.count(line) == 1, line
        assert history.index("first-040") < history.index("second question")

        tmux.keys("Escape")
        tmux.wait_for(lambda screen: "→ TUI mode" not in screen, "the list closed")
        tmux.keys("C-d")
        tmux.wait_for(lambda screen: EXIT_MARKER in screen, "pi to exit")
        history = tmux.scrollback()
        assert history.count("first-040") == 1 and history.count("second-005") == 1
    assert json.loads((pi_env.agent_dir / "settings.json").read_text())["tuiMode"] == "regular"


def test_quitting_fullscreen_after_regular_prints_only_what_is_missing(pi_env: PiEnv) -> None:
    with tmux_running_pi(pi_env, "--tui-mode", "regular", width=100, height=30) as tmux:
        tmux.wait_for(lambda screen: FOOTER in screen, "the footer")
        ask(pi_env, tmux, "first question", items("first", 40), "first-040")
        open_tui_mode_item(tmux)
        tmux.keys("Enter")  # regular -> fullscreen
        tmux.wait_for(lambda _screen: alternate_screen(tmux), "the alternate screen")
        tmux.keys("Escape")
        tmux.wait_for(lambda screen: "→ TUI mode" not in screen, "the list closed")
        ask(pi_env, tmux, "second question", items("second", 5), "second-005", "↑20 ↓10")
        tmux.keys("C-d")
        tmux.wait_for(lambda screen: EXIT_MARKER in screen, "pi to exit")
        history = tmux.scrollback()
        for line in ("first-001", "first-040", "first question", "pi v", "second question", "second-005"):
            assert history.count(line) == 1, line
        assert history.index("first-040") < history.index("second question") < history.index(EXIT_MARKER)


def test_a_running_command_stays_live_across_switches(pi_env: PiEnv) -> None:
    """What is still running is drawn at the bottom, not printed; once finished it is printed once."""
    gate = pi_env.cwd / "go"
    with tmux_running_pi(pi_env, width=100, height=30) as tmux:
        tmux.wait_for(lambda screen: FOOTER in screen, "the footer")
        tmux.send("!echo live-start; while [ ! -e go ]; do sleep 0.05; done; echo live-end")
        tmux.wait_for(lambda screen: "live-end" in screen, "the command in the editor")
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: "\n live-start" in screen, "the command running")
        open_tui_mode_item(tmux)
        switch(tmux, "regular")
        gate.touch()
        tmux.wait_for(lambda screen: "\n live-end" in screen, "the command's end")
        switch(tmux, "fullscreen")
        switch(tmux, "regular")
        history = drawn_scrollback(tmux)
        assert history.count("\n live-start") == 1 and history.count("\n live-end") == 1


def test_the_switch_is_refused_while_an_overlay_is_open(pi_env: PiEnv) -> None:
    with tmux_running_pi(pi_env, "-e", str(OVERLAY_EXAMPLE), width=100, height=30) as tmux:
        tmux.wait_for(lambda screen: FOOTER in screen, "the footer")
        tmux.send("/overlay-toggle")
        tmux.wait_for(lambda screen: "/overlay-toggle" in screen, "the command in the editor")
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: "space: hide" in screen, "the overlay")
        tmux.send(" ")
        tmux.wait_for(lambda screen: "space: hide" not in screen, "the overlay hidden (still open)")
        open_tui_mode_item(tmux)
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda screen: REFUSED in screen, "the refusal")
        assert selected(screen, "TUI mode") == "fullscreen"  # the item shows the mode that stays
        assert "tuiMode" not in json.loads((pi_env.agent_dir / "settings.json").read_text())
        tmux.keys("Escape")
        tmux.wait_for(lambda screen: "→ TUI mode" not in screen, "the list closed")
        tmux.send("x")
        tmux.wait_for(lambda screen: any(line.strip() == "x" for line in screen.splitlines()), "keys typed again")


def footer_row(screen: str) -> int:
    """How far from the bottom the footer's last row is (0: on the last row; -1: not drawn now)."""
    lines = screen.splitlines()
    while len(lines) < 24:
        lines.append("")
    return next((index for index, line in enumerate(reversed(lines)) if FOOTER in line), -1)


def open_and_close_suggestions(tmux: Tmux) -> None:
    tmux.send("/")
    tmux.wait_for(lambda screen: "(1/" in screen, "the command suggestions")
    tmux.keys("BSpace")
    tmux.wait_for(lambda screen: "(1/" not in screen and FOOTER in screen, "the suggestions closed")


def test_clear_on_shrink_off_leaves_empty_rows_and_on_clears_them(pi_env: PiEnv) -> None:
    with tmux_running_pi(pi_env, "--tui-mode", "regular", width=80, height=24) as tmux:
        tmux.wait_for(lambda screen: FOOTER in screen, "the footer")
        ask(pi_env, tmux, "list", items("line", 40), "line-040")
        tmux.wait_for(lambda screen: footer_row(screen) == 0, "the footer on the last row")

        open_and_close_suggestions(tmux)  # off (Pi's default): the rows stay empty
        screen = tmux.wait_for(lambda screen: footer_row(screen) >= 5, "the footer higher, empty rows under it")
        assert all(not line.strip() for line in screen.splitlines()[-footer_row(screen) :])

        tmux.send("/settings")
        tmux.wait_for(lambda screen: "/settings" in screen, "the command in the editor")
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: "Auto-compact" in screen, "the settings list")
        tmux.send("clear on shrink")
        tmux.wait_for(lambda screen: "→ Clear on shrink" in screen, "the item")
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: selected(screen, "Clear on shrink") == "true", "turned on")
        tmux.keys("Escape")  # the list closes: a shorter pane, cleared at once
        tmux.wait_for(lambda screen: "Clear on shrink" not in screen and footer_row(screen) == 0, "the rows cleared")

        open_and_close_suggestions(tmux)
        tmux.wait_for(lambda screen: footer_row(screen) == 0, "the footer on the last row again")
        history = drawn_scrollback(tmux)
        for n in (1, 20, 40):
            assert history.count(f"line-{n:03d}") == 1, n  # drawn again, not twice
        assert history.count(FOOTER) == 1
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    assert settings["terminal"] == {"clearOnShrink": True}
