"""A private tmux server running ``pi`` in one pane of a fixed size (tests in a real terminal).

The socket lives in a short private directory (a socket path must fit in 108 bytes) so the tests
stay away from any tmux server the developer runs. Reading waits for content, never for time.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from _pi_env import PiEnv, pi_executable

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

    def send(self, text: str) -> None:
        """Type ``text`` literally (escape sequences reach pi as they are)."""
        self.run("send-keys", "-t", "pi", "-l", text)

    def keys(self, *names: str) -> None:
        """Press keys by tmux's names (``Enter``, ``PPage``, ``C-Home`` …)."""
        self.run("send-keys", "-t", "pi", *names)

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


@contextmanager
def tmux_running_pi(
    pi_env: PiEnv, *args: str, width: int = 120, height: int = 40, extended_keys: bool = True
) -> Iterator[Tmux]:
    """``extended_keys``: tmux's option of that name, set before pi starts (on, as pi asks users to
    configure tmux; off, tmux's default, makes pi warn at start)."""
    env = dict(pi_env.env)
    env.setdefault("TERM", "xterm-256color")
    socket_dir = Path(tempfile.mkdtemp(prefix="pi-tmux-", dir="/tmp"))
    config = socket_dir / "tmux.conf"
    config.write_text(f"set -g extended-keys {'on' if extended_keys else 'off'}\n", encoding="utf-8")
    session = Tmux(socket_dir / "s", env)
    command = " ".join(shlex.quote(part) for part in (pi_executable(), *args))
    command = f"{command}; echo '{EXIT_MARKER}' $?; sleep 600"
    session.run("-f", str(config), "new-session", "-d", "-s", "pi", "-x", str(width), "-y", str(height),
                "-c", str(pi_env.cwd), command)  # fmt: skip
    try:
        yield session
    finally:
        subprocess.run(["tmux", "-S", str(session.socket), "kill-server"], capture_output=True, env=env, check=False)
        shutil.rmtree(socket_dir, ignore_errors=True)
