"""Drives ``pi``'s interactive mode in-process: keys through a prompt_toolkit pipe, the screen into
memory (a VT100 output of 120x40), the model from the fake LLM server (a ``fake`` provider in
models.json). Everything waits for conditions with short polling, never for fixed times.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from pi_harness.cli.args import parse_args
from pi_harness.cli.modes.interactive.app import run_interactive
from pi_harness.cli.modes.interactive.mode import InteractiveMode
from pi_harness.cli.modes.interactive.shell import Terminal
from pi_harness.testing.fake_llm import FakeLLMServer
from pi_harness.tui.ansi import strip_ansi

WIDTH, HEIGHT = 120, 40
# Every scenario runs in both terminal modes (conftest's ``tui_mode`` fixture sets this).
TUI_MODE = {"mode": "fullscreen"}
KEYS = {
    "enter": "\r",
    "escape": "\x1b",
    "alt+enter": "\x1b\r",
    "alt+up": "\x1b\x1b[A",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "tab": "\t",
    "shift+tab": "\x1b[Z",
    "backspace": "\x7f",
    "ctrl+c": "\x03",
    "ctrl+d": "\x04",
    "ctrl+l": "\x0c",
    "ctrl+o": "\x0f",
    "ctrl+t": "\x14",
    "ctrl+u": "\x15",
    "pageUp": "\x1b[5~",
    "pageDown": "\x1b[6~",
    "ctrl+home": "\x1b[1;5H",
    "ctrl+end": "\x1b[1;5F",
    "ctrl+shift+f": "\x1b[102;6u",
    "ctrl+shift+up": "\x1b[1;6A",
    "shift+enter": "\x1b[13;2u",
}


def write_fake_provider(agent_dir: Path, server: FakeLLMServer, *, models: Sequence[str] = ("fake-model",)) -> None:
    entries: list[dict[str, Any]] = [
        {"id": model_id, "name": f"Fake {model_id}", "contextWindow": 128000, "maxTokens": 4096,
         "input": ["text", "image"], "reasoning": model_id.startswith("thinking"),
         "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}}
        for model_id in models
    ]  # fmt: skip
    provider = {"baseUrl": server.base_url("openai-completions"), "api": "openai-completions", "apiKey": "test-key",
                "models": entries}  # fmt: skip
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    settings = {"defaultProvider": "fake", "defaultModel": models[0], "retry": {"baseDelayMs": 10}}
    (agent_dir / "settings.json").write_text(json.dumps(settings))


def unwrapped(text: str) -> str:
    """``text`` without any whitespace: the same for every terminal width and wrap position."""
    return "".join(text.split())


class Pi:
    """One interactive ``pi`` run."""

    def __init__(self, pipe: PipeInput, buffer: io.StringIO, task: asyncio.Task[int], modes: list[InteractiveMode]):
        self.pipe = pipe
        self.buffer = buffer
        self.task = task
        self._modes = modes

    @property
    def mode(self) -> InteractiveMode:
        assert self._modes, "the session has not started"
        return self._modes[0]

    # --- input -------------------------------------------------------------------------------

    def type(self, text: str) -> None:
        self.pipe.send_text(text)

    async def press(self, *keys: str) -> None:
        for key in keys:
            self.pipe.send_text(KEYS[key])
            # A lone ESC is only recognised after the escape timeout; give each key its own moment.
            await asyncio.sleep(0.12 if key == "escape" else 0.02)

    async def submit(self, text: str) -> None:
        self.type(text)
        await self.wait_for(lambda: self.mode.shell.editor.text == text, f"{text!r} in the editor")
        await self.press("enter")

    # --- waiting -----------------------------------------------------------------------------

    # Generous: a passing wait returns as soon as its condition holds, and a loaded machine (the
    # whole suite on two cores) must not turn a slow frame into a failure.
    async def wait_for(self, condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.task.done():
                self.task.result()
                raise AssertionError(f"pi exited while waiting for {what}")
            try:
                if condition():
                    return
            except AssertionError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}\n--- scrollback ---\n{self.scrollback()}\n"
                                     f"--- screen ---\n{self.screen()}")  # fmt: skip
            await asyncio.sleep(0.01)

    async def started(self) -> Pi:
        await self.wait_for(lambda: self._modes and self.mode.shell.running, "the session screen")
        return self

    async def idle(self) -> None:
        await self.wait_for(lambda: not self.mode.busy and not self.mode.shell.pane.show_working, "the agent to settle")

    # --- what the user sees ------------------------------------------------------------------

    def scrollback_has(self, text: str) -> bool:
        """Whether ``text`` was printed, wherever the terminal wrapped it (a long temp path can push
        a notice across a line break at any column, so whitespace and line breaks are ignored)."""
        return unwrapped(text) in unwrapped(self.scrollback())

    def screen_has(self, text: str) -> bool:
        """Like :meth:`scrollback_has`, for what is drawn at the bottom of the screen now."""
        return unwrapped(text) in unwrapped(self.screen())

    def scrollback(self) -> str:
        """What was printed into the terminal's scrollback, without styles."""
        if not self._modes:
            return ""
        return "\n".join(strip_ansi(line).rstrip() for line in self.mode.shell.view.printed)

    def screen(self) -> str:
        """The bottom of the screen (live transcript, editor, footer …) as drawn now."""
        if not self._modes:
            return strip_ansi(self.buffer.getvalue())
        return "\n".join(strip_ansi(line).rstrip() for line in self.mode.shell.pane.render(WIDTH, HEIGHT).lines)

    def selected_row(self) -> str:
        """The highlighted row of the open selector (the one starting with its cursor, → or ›)."""
        return next((line for line in self.screen().splitlines() if line.lstrip().startswith(("→", "›"))), "")

    def output(self) -> str:
        return strip_ansi(self.buffer.getvalue())

    # --- the end -----------------------------------------------------------------------------

    async def exit_code(self) -> int:
        """Wait for pi to end by itself (after the keys that quit it)."""
        return await asyncio.wait_for(self.task, 15)

    async def quit(self) -> int:
        """Quit with Ctrl+D unless pi already ended by itself (then its exit code, whenever it ended)."""
        if not self.task.done() and self._modes:
            self.mode.shell.editor.clear()
            await self.press("ctrl+d")
        return await asyncio.wait_for(self.task, 15)


@asynccontextmanager
async def run_pi(args: Sequence[str] = (), *, observe: bool = True) -> AsyncIterator[Pi]:
    """Start ``pi args…`` in the current directory; quits (Ctrl+D) at the end if still running."""
    parsed = parse_args(list(args))
    if parsed.tui_mode is None:
        parsed.tui_mode = TUI_MODE["mode"]  # type: ignore[assignment]
    with create_pipe_input() as pipe:
        buffer = io.StringIO()
        output = Vt100_Output(buffer, lambda: Size(rows=HEIGHT, columns=WIDTH), term="xterm-256color")
        modes: list[InteractiveMode] = []
        task = asyncio.ensure_future(
            run_interactive(
                parsed,
                terminal=Terminal(pipe, output),
                observer=modes.append if observe else None,
            )
        )
        pi = Pi(pipe, buffer, task, modes)
        try:
            yield pi
        finally:
            if not task.done():
                if modes:
                    await modes[0].quit(0)
                try:
                    await asyncio.wait_for(task, 15)
                except (TimeoutError, asyncio.CancelledError):
                    task.cancel()
