"""While an answer streams, no oldest-generation collection stops the screen; once the agent
settled, the conversation on screen is moved out of the collector's sight and collections go on
as before."""

from __future__ import annotations

import gc

from pi_harness.cli.modes.interactive.controller import HELD_OLDEST_THRESHOLD
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi


async def test_the_oldest_generation_waits_for_the_end_of_a_run(server: FakeLLMServer) -> None:
    before = gc.get_threshold()
    words = " ".join(f"word{n}" for n in range(40))
    server.push(ScriptedResponse(steps=[TextStep(words, chunks=40)], stall_after=20))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Write a long text")
        await pi.wait_for(lambda: "word3" in pi.screen(), "the answer streaming")
        assert gc.get_threshold() == (*before[:2], HELD_OLDEST_THRESHOLD)
        frozen = gc.get_freeze_count()
        await pi.press("escape")
        await pi.idle()
        await pi.wait_for(lambda: gc.get_threshold() == before, "the collector's thresholds back")
        assert gc.get_freeze_count() > frozen  # what the run left alive is frozen
        assert "Operation aborted" in pi.screen() + pi.scrollback()
    assert gc.get_threshold() == before
