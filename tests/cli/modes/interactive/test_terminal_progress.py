"""OSC 9;4 progress (``terminal.showTerminalProgress``): on while a turn or a compaction runs, renewed every second, then cleared."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.cli.modes.interactive.terminal_progress import ACTIVE, CLEAR, TerminalProgress
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi


def _enable(agent_dir: Path, value: bool) -> None:
    path = agent_dir / "settings.json"
    settings = json.loads(path.read_text())
    settings["terminal"] = {"showTerminalProgress": value}
    path.write_text(json.dumps(settings))


async def _converse(server: FakeLLMServer) -> str:
    server.push(ScriptedResponse(steps=[TextStep("The progress answer.")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("hello")
        await pi.wait_for(lambda: "The progress answer." in pi.scrollback(), "the answer")
        await pi.idle()
        await pi.wait_for(lambda: CLEAR in pi.buffer.getvalue(), "the progress cleared")
        return pi.buffer.getvalue()


async def test_progress_is_shown_while_the_agent_works(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    _enable(agent_dir, True)
    raw = await _converse(server)
    assert ACTIVE in raw and raw.rindex(CLEAR) > raw.index(ACTIVE)


async def test_no_progress_by_default(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("The quiet answer.")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("hello")
        await pi.wait_for(lambda: "The quiet answer." in pi.scrollback(), "the answer")
        await pi.idle()
        raw = pi.buffer.getvalue()
    assert "\x1b]9;4" not in raw


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_follows_turns_and_compactions_and_the_setting() -> None:
    written: list[str] = []
    enabled = [True]
    clock = Clock()
    progress = TerminalProgress(written.append, lambda: enabled[0], clock)
    progress.handle({"type": "turn_start"})
    assert written == [ACTIVE]
    clock.now = 0.5
    progress.tick()
    clock.now = 1.2
    progress.tick()
    assert written == [ACTIVE, ACTIVE]  # renewed after a second
    progress.handle({"type": "agent_end"})
    progress.handle({"type": "agent_end"})
    assert written == [ACTIVE, ACTIVE, CLEAR]  # cleared once
    progress.handle({"type": "auto_compaction_start"})
    enabled[0] = False
    progress.tick()
    assert written[-2:] == [ACTIVE, CLEAR]  # turned off meanwhile: cleared at the next tick
    progress.handle({"type": "turn_start"})
    assert written[-1] == CLEAR and not progress.active  # off: nothing is sent
