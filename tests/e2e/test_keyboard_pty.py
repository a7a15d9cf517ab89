"""The keyboard protocol against a terminal we play ourselves: ``pi`` on a pseudo-terminal.

The test reads what pi writes and answers its queries like a kitty-protocol terminal (flags
reply) or like a terminal without it (Device Attributes only), then checks the keys each one
reports work and that pi gives the terminal back as it found it on exit and while suspended.
Every wait is for bytes to arrive, never for a fixed time.
"""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator

import pytest
from _pi_env import PiEnv, pi_executable

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

QUERY = b"\x1b[>7u\x1b[?u\x1b[c"
POP = b"\x1b[<u"
MOK_ON = b"\x1b[>4;2m"
MOK_OFF = b"\x1b[>4;0m"


class FakeTerminal:
    """The master side of a pty running pi: collects its output and answers cursor queries."""

    def __init__(self, pi_env: PiEnv, *args: str) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        env = dict(pi_env.env, TERM="xterm-256color")
        env.pop("TMUX", None)
        # Its own process group in our session: Ctrl+Z's SIGTSTP stops pi (an orphaned group would ignore it).
        self.process = subprocess.Popen(
            [pi_executable(), *args], stdin=slave, stdout=slave, stderr=slave, cwd=pi_env.cwd, env=env,
            process_group=0,
        )  # fmt: skip
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += data
            for _ in range(data.count(b"\x1b[6n")):
                self.send(b"\x1b[30;1R")  # the cursor position prompt_toolkit asks for

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def wait_for(self, needle: bytes, what: str, *, count: int = 1, timeout: float = 60.0) -> bytes:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                output = bytes(self.output)
            if output.count(needle) >= count:
                return output
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; pi wrote:\n{output[-3000:]!r}")
            time.sleep(0.02)

    def wait_stopped(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.process.pid, os.WUNTRACED | os.WNOHANG)
            if pid and os.WIFSTOPPED(status):
                return
            if time.monotonic() > deadline:
                raise AssertionError("pi did not stop on Ctrl+Z")
            time.sleep(0.02)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self.master)


@pytest.fixture
def terminals(pi_env: PiEnv) -> Iterator[list[FakeTerminal]]:
    started: list[FakeTerminal] = []
    yield started
    for terminal in started:
        terminal.close()


def wait_for_request(pi_env: PiEnv, timeout: float = 60.0) -> None:
    """The prompt reached the model (the screen draws the answer in pieces, so it is not read)."""
    deadline = time.monotonic() + timeout
    while not pi_env.server.requests:
        if time.monotonic() > deadline:
            raise AssertionError("no request reached the fake model")
        time.sleep(0.02)


def user_text(pi_env: PiEnv) -> str:
    messages = pi_env.server.requests[0].json["messages"]
    content = [message for message in messages if message["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_a_kitty_terminal_reports_shift_enter_and_gets_its_flags_popped_on_exit(
    pi_env: PiEnv, terminals: list[FakeTerminal], mode: str
) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("Got both lines.")]))
    terminal = FakeTerminal(pi_env, "--tui-mode", mode)
    terminals.append(terminal)
    terminal.wait_for(QUERY, "the keyboard protocol query")
    terminal.send(b"\x1b[?7u\x1b[?62;22c")  # kitty: flags 7, then the DA sentinel
    terminal.wait_for(b"(auto)", "the footer")
    terminal.send(b"one")
    terminal.send(b"\x1b[13;2u")  # shift+enter
    terminal.send(b"two\r")
    wait_for_request(pi_env)
    assert user_text(pi_env) == "one\ntwo"
    before_exit = len(terminal.output)
    terminal.send(b"\x1b[100;5u")  # ctrl+d, as the kitty protocol reports it
    assert terminal.process.wait(timeout=60) == 0
    output = bytes(terminal.output)
    assert POP in output[before_exit:]
    assert MOK_ON not in output  # the kitty protocol answered: no modifyOtherKeys


def test_without_kitty_modify_other_keys_is_used_and_switched_off_while_suspended(
    pi_env: PiEnv, terminals: list[FakeTerminal]
) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("Still here after fg.")]))
    terminal = FakeTerminal(pi_env, "--tui-mode", "regular")
    terminals.append(terminal)
    terminal.wait_for(QUERY, "the keyboard protocol query")
    terminal.send(b"\x1b[?62;22c")  # Device Attributes only: no kitty protocol
    terminal.wait_for(MOK_ON, "modifyOtherKeys switched on")
    terminal.wait_for(b"(auto)", "the footer")

    terminal.send(b"\x1a")  # ctrl+z
    output = terminal.wait_for(MOK_OFF, "modifyOtherKeys switched off before stopping")
    assert POP in output
    terminal.wait_stopped()
    os.kill(terminal.process.pid, signal.SIGCONT)
    terminal.wait_for(MOK_ON, "modifyOtherKeys on again after fg", count=2)

    terminal.send(b"one")
    terminal.send(b"\x1b[27;2;13~")  # shift+enter in modifyOtherKeys form
    terminal.send(b"two\r")
    wait_for_request(pi_env)
    assert user_text(pi_env) == "one\ntwo"
    before_exit = len(terminal.output)
    terminal.send(b"\x04")
    assert terminal.process.wait(timeout=60) == 0
    assert MOK_OFF in bytes(terminal.output)[before_exit:]
