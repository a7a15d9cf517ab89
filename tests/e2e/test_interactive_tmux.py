"""The interactive mode in a real terminal: ``pi`` inside tmux (120x40) against the fake LLM server.

Type a prompt, read the screen with ``capture-pane``, quit with Ctrl+D, and check that the
conversation stayed in the terminal's scrollback. A private tmux socket keeps the test away
from any tmux server the developer runs.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from _pi_env import PiEnv
from _tmux import EXIT_MARKER, Tmux, tmux_running_pi

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def tmux(pi_env: PiEnv) -> Iterator[Tmux]:
    with tmux_running_pi(pi_env) as session:
        yield session


def test_a_prompt_in_a_real_terminal_stays_in_the_scrollback_after_quitting(pi_env: PiEnv, tmux: Tmux) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("The answer is **42**, computed in tmux.")]))
    tmux.wait_for(lambda screen: "fake-model" in screen, "the footer naming the model")

    tmux.run("send-keys", "-t", "pi", "-l", "What is the answer?")
    tmux.wait_for(lambda screen: "What is the answer?" in screen, "the typed prompt in the editor")
    tmux.run("send-keys", "-t", "pi", "Enter")
    screen = tmux.wait_for(lambda screen: "computed in tmux." in screen, "the answer on the screen")
    assert "The answer is 42, computed in tmux." in screen  # markdown rendered, ** gone
    tmux.wait_for(lambda screen: "↑10 ↓5" in screen, "the footer counting the tokens")

    tmux.run("send-keys", "-t", "pi", "C-d")
    screen = tmux.wait_for(lambda screen: EXIT_MARKER in screen, "pi to exit")
    assert f"{EXIT_MARKER} 0" in screen
    history = tmux.scrollback()
    assert history.index("What is the answer?") < history.index("The answer is 42, computed in tmux.")
    assert history.index("The answer is 42, computed in tmux.") < history.index(EXIT_MARKER)
    assert history.count("The answer is 42, computed in tmux.") == 1
    assert "↑10 ↓5" not in history  # the editor and footer were removed on exit
    assert len(pi_env.server.requests) == 1
    assert pi_env.server.requests[0].json["model"] == "fake-model"
