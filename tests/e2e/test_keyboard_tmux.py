"""Modified keys in a real terminal: ``pi`` in tmux, with and without tmux's ``extended-keys``.

tmux forwards Shift+Enter only to a program that asked for extended keys (``ESC [ > 4 ; 2 m``,
which pi sends once the terminal answered its kitty-protocol query with a plain Device
Attributes reply) and only when ``extended-keys`` is on. With it off, pi says how to fix it.
"""

from __future__ import annotations

import shutil

import pytest
from _pi_env import PiEnv
from _tmux import EXIT_MARKER, tmux_running_pi

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

OFF_WARNING = "tmux extended-keys is off. Modified Enter keys may not work."
MODES = ("fullscreen", "regular")


def user_text(pi_env: PiEnv) -> str:
    messages = pi_env.server.requests[0].json["messages"]
    user = [message for message in messages if message["role"] == "user"][-1]
    content = user["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


@pytest.mark.parametrize("mode", MODES)
def test_shift_enter_inserts_a_new_line_with_extended_keys_on(pi_env: PiEnv, mode: str) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("Two lines received.")]))
    with tmux_running_pi(pi_env, "--tui-mode", mode, width=100, height=30) as tmux:
        tmux.wait_for(lambda screen: "fake-model" in screen, "the footer")
        tmux.send("first line")
        tmux.wait_for(lambda screen: "first line" in screen, "the typed text")
        tmux.keys("S-Enter")
        tmux.send("second line")
        screen = tmux.wait_for(lambda screen: "second line" in screen, "the second line in the editor")
        rows = screen.splitlines()
        first = next(index for index, row in enumerate(rows) if "first line" in row)
        assert "second line" in rows[first + 1]  # a new line, not a submitted prompt
        assert not pi_env.server.requests
        assert OFF_WARNING not in screen
        tmux.keys("Enter")
        tmux.wait_for(lambda screen: "Two lines received." in screen, "the answer")
        assert user_text(pi_env) == "first line\nsecond line"
        tmux.keys("C-d")
        tmux.wait_for(lambda screen: EXIT_MARKER in screen, "pi to exit")


@pytest.mark.parametrize("mode", MODES)
def test_ctrl_shift_letters_and_alt_enter_arrive_as_themselves(pi_env: PiEnv, mode: str) -> None:
    """Alt+Enter is a new line when idle; Ctrl+Shift+F opens fullscreen search, and in regular mode
    Ctrl+Shift+letter must not type the letter or act as Ctrl+letter."""
    with tmux_running_pi(pi_env, "--tui-mode", mode, width=100, height=30) as tmux:
        tmux.wait_for(lambda screen: "fake-model" in screen, "the footer")
        tmux.send("alpha")
        tmux.keys("M-Enter")
        tmux.send("beta")
        rows = tmux.wait_for(lambda screen: "beta" in screen, "the second line").splitlines()
        first = next(index for index, row in enumerate(rows) if "alpha" in row)
        assert "beta" in rows[first + 1]
        tmux.keys("C-S-e")  # unbound: neither "E" typed nor ctrl+e (line end) ... nothing visible
        tmux.send("!")
        screen = tmux.wait_for(lambda screen: "beta!" in screen, "the typed character")
        assert "betaE" not in screen
        assert not pi_env.server.requests


@pytest.mark.parametrize("mode", MODES)
def test_a_warning_says_how_to_turn_extended_keys_on(pi_env: PiEnv, mode: str) -> None:
    with tmux_running_pi(pi_env, "--tui-mode", mode, width=100, height=30, extended_keys=False) as tmux:
        screen = tmux.wait_for(lambda screen: "extended-keys" in screen, "the tmux warning")
        assert OFF_WARNING in " ".join(screen.split())
        assert "set -g extended-keys on" in screen
