"""Fullscreen mode (the default) in a real terminal: ``pi`` in a 100x30 tmux pane.

The editor and footer stay on the last rows while the transcript scrolls above them; PageUp,
Ctrl+Home, Ctrl+End, search, a resize, and the transcript left in the scrollback after quitting.
Every step waits for what the screen shows (never for a fixed time).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from _pi_env import PiEnv
from _tmux import EXIT_MARKER, Tmux, tmux_running_pi

from pi_harness.coding.session_store.store import SessionManager
from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WIDTH, HEIGHT = 100, 30
ITEMS = 60
JUMP = "Jump to latest message"
PROMPT = "List the items " + " ".join(f"w{n:02d}" for n in range(1, 31))


@pytest.fixture
def tmux(pi_env: PiEnv) -> Iterator[Tmux]:
    with tmux_running_pi(pi_env, width=WIDTH, height=HEIGHT) as session:
        yield session


def answer() -> str:
    return "\n".join(f"{n}. item-{n:03d}" for n in range(1, ITEMS + 1))


def converse(pi_env: PiEnv, tmux: Tmux) -> str:
    pi_env.server.push(ScriptedResponse(steps=[TextStep(answer(), chunks=20)]))
    tmux.wait_for(lambda screen: "fake-model" in screen, "the footer")
    tmux.send(PROMPT)
    tmux.wait_for(lambda screen: "w30" in screen, "the prompt in the editor")
    tmux.keys("Enter")
    return tmux.wait_for(lambda screen: f"item-{ITEMS:03d}" in screen and "↑10 ↓5" in screen, "the whole answer")


def test_the_editor_stays_pinned_while_the_transcript_scrolls(pi_env: PiEnv, tmux: Tmux) -> None:
    screen = converse(pi_env, tmux).splitlines()
    assert len(screen) == HEIGHT
    assert "fake-model" in screen[-1]  # the footer on the last row, the answer's end above the editor
    assert "item-001" not in "\n".join(screen)

    tmux.keys("PPage")
    screen_text = tmux.wait_for(lambda s: JUMP in s and f"item-{ITEMS:03d}" not in s, "a page up")
    assert "fake-model" in screen_text.splitlines()[-1]  # the footer did not move
    assert "┃" in screen_text  # the scrollbar's thumb

    tmux.keys("C-Home")
    tmux.wait_for(lambda s: "pi v" in s, "the header at the top")
    tmux.keys("NPage")
    tmux.wait_for(lambda s: "pi v" not in s, "a page down")
    tmux.keys("C-End")
    tmux.wait_for(lambda s: JUMP not in s and f"item-{ITEMS:03d}" in s, "the end again")


def test_search_shows_the_match_count_and_moves_to_the_match(pi_env: PiEnv, tmux: Tmux) -> None:
    converse(pi_env, tmux)
    tmux.send("\x1b[102;6u")  # ctrl+shift+f in CSI-u form
    tmux.send("item-01")
    screen = tmux.wait_for(lambda s: "10/10" in s, "ten matches (item-010 to item-019)")
    assert "item-019" in screen
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: "1/10" in s and "10/10" not in s, "the first match")
    assert "item-010" in screen
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "1/10" not in s, "the search closed")


def test_a_resize_rewraps_the_transcript(pi_env: PiEnv, tmux: Tmux) -> None:
    converse(pi_env, tmux)
    tmux.keys("C-Home")
    tmux.wait_for(lambda s: "List the items" in s, "the prompt on screen")
    tmux.run("resize-window", "-t", "pi", "-x", "70", "-y", str(HEIGHT))
    screen = tmux.wait_for(lambda s: max(len(line) for line in s.splitlines()) <= 70, "the narrower pane")
    screen = tmux.wait_for(lambda s: "w30" in s and "List the items" in s, "the prompt re-wrapped")
    prompt_rows = [line for line in screen.splitlines() if any(f"w{n:02d}" in line for n in range(1, 31))]
    assert len(prompt_rows) >= 2  # 30 words do not fit in 70 columns
    assert "".join(prompt_rows).count("w15") == 1  # no stale copy of the wide frame


def test_quitting_leaves_the_transcript_in_the_scrollback(pi_env: PiEnv, tmux: Tmux) -> None:
    converse(pi_env, tmux)
    tmux.keys("C-d")
    tmux.wait_for(lambda s: EXIT_MARKER in s, "pi to exit")
    history = tmux.scrollback()
    assert history.count(f"item-{ITEMS:03d}") == 1 and history.count("item-001") == 1
    assert history.index("List the items") < history.index("item-001") < history.index(EXIT_MARKER)
    assert "↑10 ↓5" not in history  # only the transcript, not the editor and footer
    # Then, as Pi: how to come back to this session.
    session_id = SessionManager.open(pi_env.sessions()[0], read_only=True).get_session_id()
    assert f"To resume this session: pi --session {session_id}" in history
    assert history.index("item-001") < history.index("To resume this session") < history.index(EXIT_MARKER)


def test_regular_mode_rewraps_the_scrollback_after_a_resize(pi_env: PiEnv) -> None:
    """Issue 20, defect 2: lines printed before a resize are printed again at the new width."""
    paragraph = " ".join(f"word{n}" for n in range(1, 80))
    pi_env.server.push(ScriptedResponse(steps=[TextStep(f"Paragraph one: {paragraph}", chunks=5)]))
    with tmux_running_pi(pi_env, "--tui-mode", "regular", width=120, height=20) as tmux:
        tmux.wait_for(lambda screen: "fake-model" in screen, "the footer")
        tmux.send("go")
        tmux.wait_for(lambda screen: "go" in screen, "the prompt in the editor")
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: "word79" in screen and "↑10 ↓5" in screen, "the answer")
        tmux.run("resize-window", "-t", "pi", "-x", "70", "-y", "20")

        def rewrapped(_screen: str) -> bool:
            history = tmux.scrollback()
            rows = [row for row in history.splitlines() if "word" in row]
            return bool(rows) and all(row.startswith(" ") for row in rows) and "word79" in history

        tmux.wait_for(rewrapped, "the answer wrapped again at 70 columns")
        history = tmux.scrollback()
        assert history.count("Paragraph one:") == 1
        assert max(len(row) for row in history.splitlines()) <= 70


def test_regular_mode_keeps_one_copy_of_a_tall_streamed_answer(pi_env: PiEnv) -> None:
    """Issue 20, defect 1: a list taller than the pane streams without stale frames in the scrollback."""
    items = "\n".join(f"{n}. list item number {n}" for n in range(1, ITEMS + 1))
    pi_env.server.push(ScriptedResponse(steps=[TextStep(items, chunks=30)], chunk_delay_ms=20))
    with tmux_running_pi(pi_env, "--tui-mode", "regular", width=100, height=20) as tmux:
        tmux.wait_for(lambda screen: "fake-model" in screen, "the footer")
        tmux.send("list")
        tmux.wait_for(lambda screen: "list" in screen, "the prompt in the editor")
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: f"list item number {ITEMS}" in screen and "↑10 ↓5" in screen, "the answer")
        history = tmux.scrollback().splitlines()
        for n in range(1, ITEMS + 1):
            assert sum(1 for row in history if row.endswith(f"list item number {n}")) == 1, n
        assert sum(1 for row in history if "fake-model" in row) == 1  # one footer
        assert not any("Working" in row for row in history)  # no stale spinner frame
