"""``/trust``: the saved project trust decision shown and changed from the interactive mode,
written to the real ``trust.json`` of the agent directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi_harness.coding.config.trust import TrustStore
from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi


async def test_trust_saves_the_choice_for_this_folder(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/trust")
        await pi.wait_for(lambda: pi.screen_has("saved: none"), "the trust question")
        assert "Trust this folder" in pi.selected_row()
        await pi.press("down", "enter")  # Do not trust
        await pi.wait_for(lambda: pi.scrollback_has("Saved trust decision: untrusted"), "the notice")
        assert pi.scrollback_has("Restart pi")
    decisions = json.loads((agent_dir / "trust.json").read_text())["decisions"]
    assert decisions[os.path.realpath(project)]["trusted"] is False


async def test_trust_shows_the_saved_decision_and_escape_changes_nothing(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    TrustStore(agent_dir).save(project, False)
    before = (agent_dir / "trust.json").read_text()
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/trust")
        await pi.wait_for(lambda: pi.screen_has("saved: untrusted"), "the trust question")
        assert "Do not trust this folder" in pi.selected_row()
        await pi.press("escape")
        await pi.wait_for(lambda: not pi.screen_has("saved: untrusted"), "the question closed")
        assert not pi.scrollback_has("Saved trust decision")
    assert (agent_dir / "trust.json").read_text() == before
