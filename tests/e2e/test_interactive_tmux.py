"""The interactive mode in a real terminal: ``pi`` inside tmux (120x40) against the fake LLM server.

Type a prompt, read the screen with ``capture-pane``, quit with Ctrl+D, and check that the
conversation stayed in the terminal's scrollback. A private tmux socket keeps the test away
from any tmux server the developer runs.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _pi_env import PiEnv, pi_executable

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

EXIT_MARKER = "[pi exited with"


class Tmux:
    def __init__(self, socket: Path, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env

    def run(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=10,
            check=True,
        )
        return result.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "pi")

    def scrollback(self) -> str:
        return self.run("capture-pane", "-p", "-S", "-", "-t", "pi")

    def wait_for(self, condition: Callable[[str], bool], what: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{screen}")
            time.sleep(0.05)


@pytest.fixture
def tmux(pi_env: PiEnv, tmp_path: Path) -> Iterator[Tmux]:
    env = dict(pi_env.env)
    env.setdefault("TERM", "xterm-256color")
    # A socket path must fit in sun_path (108 bytes), which a long temp dir need not: make the
    # socket in a short private directory of its own.
    socket_dir = Path(tempfile.mkdtemp(prefix="pi-tmux-", dir="/tmp"))
    session = Tmux(socket_dir / "s", env)
    command = f"{shlex.quote(pi_executable())}; echo '{EXIT_MARKER}' $?; sleep 600"
    session.run("new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "-c", str(pi_env.cwd), command)
    try:
        yield session
    finally:
        subprocess.run(["tmux", "-S", str(session.socket), "kill-server"], capture_output=True, env=env, check=False)
        shutil.rmtree(socket_dir, ignore_errors=True)


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
