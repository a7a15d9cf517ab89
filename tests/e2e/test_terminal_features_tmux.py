"""Terminal features of issue 20 (defect 13) through the real ``pi`` in a real terminal (tmux):
the startup header's short form and Ctrl+O, bordered markdown tables, a live bash timer.
Both screen modes; every step waits for what the screen shows."""

from __future__ import annotations

import shutil

import pytest
from _pi_env import PiEnv
from _tmux import tmux_running_pi

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

MODES = pytest.mark.parametrize("mode", ["regular", "fullscreen"])
SHORT = "Press ctrl+o to show full startup help and loaded resources."
TABLE = (
    "Here is the table:\n\n| Tool | What it does |\n|---|---|\n"
    "| read | shows the content of one file, with line numbers and an offset for long files |\n"
    "| ls | lists a directory |\n\nDone."
)


@MODES
def test_startup_header_is_short_and_ctrl_o_expands_it(pi_env: PiEnv, mode: str) -> None:
    (pi_env.cwd / "AGENTS.md").write_text("# Rules\n")
    with tmux_running_pi(pi_env, "--tui-mode", mode, width=100, height=40) as tmux:
        screen = tmux.wait_for(lambda s: "fake-model" in s and SHORT in s, "the short header")
        assert "escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more" in screen
        assert "ctrl+l to select model" not in screen
        tmux.keys("C-o")
        screen = tmux.wait_for(lambda s: "ctrl+l to select model" in s, "the full header")
        assert SHORT not in screen and "escape to interrupt" in screen
        assert "AGENTS.md" in screen
        tmux.keys("C-o")
        tmux.wait_for(lambda s: SHORT in s and "ctrl+l to select model" not in s, "the short header again")


@MODES
def test_markdown_table_has_borders_and_wraps_to_the_terminal(pi_env: PiEnv, mode: str) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep(TABLE, chunks=4)]))
    with tmux_running_pi(pi_env, "--tui-mode", mode, width=60, height=40) as tmux:
        tmux.wait_for(lambda s: "fake-model" in s, "the footer")
        tmux.send("show a table")
        tmux.wait_for(lambda s: "show a table" in s, "the prompt in the editor")
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "Done." in s and "└" in s, "the table")
        rows = [row.strip() for row in screen.splitlines() if row.strip()[:1] in ("┌", "│", "├", "└")]
        assert rows[0].startswith("┌──────┬") and rows[-1].startswith("└")
        assert rows[1].startswith("│ Tool │ What it does")
        assert sum(1 for row in rows if row.startswith("│ read │")) == 1
        continued = [row for row in rows if row.startswith("│      │")]
        assert len(continued) >= 1  # the long cell wrapped inside its column
        assert len({len(row) for row in rows}) == 1  # every row as wide as the borders
        assert all(len(row) <= 60 for row in rows)
        assert sum(1 for row in rows if row.startswith("├")) == 2  # under the header, between the rows


@MODES
def test_running_bash_counts_elapsed_seconds_then_took(pi_env: PiEnv, mode: str) -> None:
    flag = pi_env.cwd / "finish"
    command = f"while [ ! -e {flag} ]; do sleep 0.1; done; echo finished"
    pi_env.server.push(ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="call_1")]))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("All done.")]))
    with tmux_running_pi(pi_env, "--tui-mode", mode, width=100, height=40) as tmux:
        tmux.wait_for(lambda s: "fake-model" in s, "the footer")
        tmux.send("run it")
        tmux.wait_for(lambda s: "run it" in s, "the prompt in the editor")
        tmux.keys("Enter")
        tmux.wait_for(lambda s: "Elapsed 1." in s, "the timer past one second")
        tmux.wait_for(lambda s: "Elapsed 2." in s, "the timer moving on without new output")
        flag.write_text("")
        screen = tmux.wait_for(lambda s: "All done." in s and "Took " in s, "the finished call")
        assert "Elapsed" not in screen and "finished" in screen
