"""The automatic retry counts down on the working line (issue 20, defect 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.notices import WorkingIndicator
from pi_harness.tui.theme import load_theme

from .harness import run_pi

COUNTDOWN = re.compile(r"Retrying \(1/3\) in (\d+)s")


def countdown(screen: str) -> int | None:
    """The seconds the retry line shows, if it is on the screen."""
    match = COUNTDOWN.search(screen)
    return int(match.group(1)) if match else None


def test_the_retry_line_counts_the_seconds_down() -> None:
    now = [100.0]
    working = WorkingIndicator(RenderContext(load_theme("dark", "truecolor")), clock=lambda: now[0])
    working.start_retry(2, 3, 8000)
    assert "Retrying (2/3) in 8s" in working.render(80)[0]
    now[0] += 3.2
    assert "Retrying (2/3) in 5s" in working.render(80)[0]
    now[0] += 10
    assert "in 0s" in working.render(80)[0]
    working.clear_retry()
    assert "Working" in working.render(80)[0]


async def test_a_failed_request_shows_a_countdown_then_the_answer(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    (agent_dir / "settings.json").write_text(json.dumps({**settings, "retry": {"baseDelayMs": 4500}}))
    server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(status=503, message="overloaded")),
        ScriptedResponse(steps=[TextStep("Recovered after the retry.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Hello")
        # Seconds as drawn; a loaded machine may draw some late, so any later, smaller value counts.
        await pi.wait_for(lambda: countdown(pi.screen()) is not None, "the countdown starting")
        first = countdown(pi.screen())
        assert first is not None and 1 <= first <= 5
        await pi.wait_for(lambda: (countdown(pi.screen()) or first) < first, "the countdown going down")
        await pi.wait_for(lambda: "Recovered after the retry." in pi.scrollback(), "the answer")
        await pi.idle()
        assert not pi.screen_has("Retrying (1/3) in")
