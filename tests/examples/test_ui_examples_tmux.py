"""Footer, header and editor replacement in a real terminal: ``pi -e <example>`` inside tmux
(120x40) against the fake LLM server, read back with ``capture-pane``. A private tmux socket
keeps the tests away from any tmux server the developer runs."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _examples_support import example_path
from _ui_support import write_fake_provider

from pi_harness.testing.fake_llm import FakeLLMServer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    def __init__(self, socket: Path, env: dict[str, str]) -> None:
        self.socket, self.env = socket, env

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True,
                              env=self.env, timeout=10, check=True)  # fmt: skip
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "pi")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "pi", *keys)

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
def start(tmp_path: Path, agent_dir: Path) -> Iterator[Callable[[str], Terminal]]:
    sessions: list[Terminal] = []
    server = FakeLLMServer()
    server.__enter__()
    write_fake_provider(agent_dir, server)
    cwd = tmp_path / "project"
    cwd.mkdir()
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1", "TERM": "xterm-256color"}
    socket_dir = Path(tempfile.mkdtemp(prefix="pi-ui-", dir="/tmp"))  # sun_path is short

    def launch(example: str) -> Terminal:
        terminal = Terminal(socket_dir / f"s{len(sessions)}", env)
        pi = str(Path(sys.executable).with_name("pi"))
        command = f"{shlex.quote(pi)} -e {shlex.quote(str(example_path(example)))}; sleep 600"
        terminal.run("new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "-c", str(cwd), command)
        sessions.append(terminal)
        return terminal

    try:
        yield launch
    finally:
        for terminal in sessions:
            subprocess.run(["tmux", "-S", str(terminal.socket), "kill-server"], capture_output=True, env=env,
                           check=False)  # fmt: skip
        shutil.rmtree(socket_dir, ignore_errors=True)
        server.__exit__(None, None, None)


def test_custom_footer_in_a_real_terminal(start: Callable[[str], Terminal]) -> None:
    terminal = start("custom_footer")
    screen = terminal.wait_for(lambda s: "$0.000 · fake-model" in s, "the usage footer")
    assert "(auto)" not in screen  # the built-in footer's context column is gone
    terminal.keys("/footer", "Enter")
    terminal.wait_for(lambda s: "(auto)" in s, "the built-in footer back")


def test_custom_header_in_a_real_terminal(start: Callable[[str], Terminal]) -> None:
    terminal = start("custom_header")
    screen = terminal.wait_for(lambda s: "( oo )" in s and "\n────" in s, "the mascot above the editor")
    lines = screen.splitlines()
    mascot = next(i for i, line in enumerate(lines) if "( oo )" in line)
    editor = next(i for i, line in enumerate(lines) if line.startswith("────"))
    assert mascot < editor


def test_modal_editor_in_a_real_terminal(start: Callable[[str], Terminal]) -> None:
    terminal = start("modal_editor")
    terminal.wait_for(lambda s: "INSERT" in s, "insert mode")
    terminal.keys("-l", "hello")
    terminal.wait_for(lambda s: "hello" in s, "typed text")
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "NORMAL" in s, "normal mode")
    terminal.keys("-l", "0x")
    terminal.wait_for(lambda s: any(line.strip() == "ello" for line in s.splitlines()), "the deleted letter")
