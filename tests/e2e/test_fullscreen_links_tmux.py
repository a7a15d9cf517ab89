"""OSC 8 links in fullscreen mode through the real ``pi`` in a real terminal (tmux): the link texts
read cleanly where they are drawn, also after scrolling repainted parts of them, and nothing of
the escapes shows. (Which cells are linked is checked on the byte stream, in
tests/cli/modes/interactive/test_fullscreen_media.py.)"""

from __future__ import annotations

import re
import shutil

import pytest
from _pi_env import PiEnv
from _tmux import tmux_running_pi

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ANSWER = "\n\n".join(f"Line {n}: see [docs {n}](https://example.com/{n}) for more." for n in range(40))
LINE = re.compile(r"Line (\d+): see docs (\d+) for more\.")


def _lines_read_cleanly(screen: str) -> int:
    assert "8;;" not in screen and "example.com" not in screen and "\x1b" not in screen
    found = [LINE.search(row) for row in screen.splitlines() if "Line " in row]
    assert all(match is not None and match.group(1) == match.group(2) for match in found), screen
    return len(found)


def test_links_read_cleanly_in_fullscreen_while_scrolling(pi_env: PiEnv) -> None:
    pi_env.env["PI_HYPERLINKS"] = "1"
    pi_env.server.push(ScriptedResponse(steps=[TextStep(ANSWER, chunks=8)]))
    with tmux_running_pi(pi_env, "--tui-mode", "fullscreen", width=80, height=30) as tmux:
        tmux.wait_for(lambda s: "fake-model" in s, "the footer")
        tmux.send("links please")
        tmux.wait_for(lambda s: "links please" in s, "the prompt in the editor")
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "docs 39 for more." in s, "the last link")
        assert _lines_read_cleanly(screen) >= 5
        tmux.keys("PageUp")
        screen = tmux.wait_for(lambda s: "docs 39 for" not in s and "Jump to latest" in s, "a page up")
        assert _lines_read_cleanly(screen) >= 5
        tmux.keys("C-End")
        screen = tmux.wait_for(lambda s: "docs 39 for more." in s, "the end again")
        assert _lines_read_cleanly(screen) >= 5
