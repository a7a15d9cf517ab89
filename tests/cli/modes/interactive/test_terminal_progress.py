"""OSC 9;4 progress (``terminal.showTerminalProgress``): busy from the turn's start, cleared at the agent's end."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi

ACTIVE, CLEAR = "\x1b]9;4;3\x07", "\x1b]9;4;0\x07"


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
