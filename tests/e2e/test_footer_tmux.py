"""The footer's second row in a real terminal (tmux, 80x30), as the real Pi 1.4.0 draws it.

Observed in Pi 1.4.0 (isolated agent dir, ``--tui-mode regular``, 80x30): with no model at all
the row reads ``0.0%/0 (auto)`` on the left and ``unknown`` at the right edge; with one
provider's model, a fresh session reads ``0.0%/128k (auto)`` and the model id alone (no
provider in parentheses), and after one answer of 10 input and 5 output tokens
``↑10 ↓5 $0.000 0.0%/128k (auto)``.
"""

from __future__ import annotations

import shutil

import pytest
from _pi_env import PiEnv
from _tmux import tmux_running_pi

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WIDTH = 80


def footer_row(screen: str) -> str:
    """The row under the cwd row (the footer's second row), trailing blanks removed."""
    rows = screen.split("\n")
    cwd_rows = [index for index, row in enumerate(rows) if row.rstrip().endswith("/project") or "/project (" in row]
    assert cwd_rows, f"no footer on the screen:\n{screen}"
    return rows[cwd_rows[-1] + 1].rstrip()


def expect_row(left: str, right: str) -> str:
    return left + " " * (WIDTH - len(left) - len(right)) + right


def test_no_model_footer_reads_as_pi(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").unlink()
    (pi_env.agent_dir / "settings.json").unlink()
    with tmux_running_pi(pi_env, "--tui-mode", "regular", width=WIDTH, height=30) as tmux:
        screen = tmux.wait_for(lambda screen: "(auto)" in screen, "the footer")
        assert footer_row(screen) == expect_row("0.0%/0 (auto)", "unknown")


def test_model_footer_before_and_after_a_turn(pi_env: PiEnv) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("Done.")]))
    with tmux_running_pi(pi_env, "--tui-mode", "regular", width=WIDTH, height=30) as tmux:
        screen = tmux.wait_for(lambda screen: "fake-model" in screen, "the footer naming the model")
        assert footer_row(screen) == expect_row("0.0%/128k (auto)", "fake-model")
        tmux.send("hi")
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda screen: "↑10 ↓5" in screen, "the footer counting the tokens")
        assert footer_row(screen) == expect_row("↑10 ↓5 $0.000 0.0%/128k (auto)", "fake-model")
