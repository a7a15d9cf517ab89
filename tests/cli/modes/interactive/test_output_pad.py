"""``outputPad`` in the running interactive mode: read at start, changed live from /settings.

Observed in the real Pi 1.4.0 in tmux (``!ls``, then a prompt answered by a fake model): in
fullscreen mode (60x40) the transcript is drawn with the new padding as soon as Output padding
is switched, while the settings list is still open: ``$ ls`` and its output, the user message,
the answer and the tool title move from column 1 to column 0. In regular mode (60x20, the
transcript taller than the screen) the rows already in tmux's scrollback move too: Pi redraws
the screen and the scrollback when rows above the viewport change. Ours redraws the printed
history the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import Pi, run_pi
from .test_settings_command import find, open_settings, saved


def rows(pi: Pi) -> list[str]:
    """The transcript rows, printed and live, without styles."""
    return [*pi.scrollback().splitlines(), *pi.screen().splitlines()]


def starts(pi: Pi, text: str, pad: int) -> bool:
    """Whether a row showing ``text`` starts after exactly ``pad`` blank columns."""
    return any(row[:pad] == " " * pad and row[pad : pad + 1] not in ("", " ") for row in rows(pi) if text in row)


async def converse(pi: Pi, server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("The answer is here.")]))
    await pi.submit("!echo padded-$((40+2))")
    await pi.wait_for(lambda: pi.scrollback_has("padded-42"), "the command's output")
    await pi.submit("hello there")
    await pi.wait_for(lambda: pi.scrollback_has("The answer is here."), "the answer")
    await pi.idle()


async def test_a_change_in_settings_redraws_the_transcript(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    async with run_pi() as pi:
        await pi.started()
        await converse(pi, server)
        for text in ("echo padded-$((40+2))", "padded-42", "hello there", "The answer is here."):
            assert starts(pi, text, 1), text  # the default: one column
        await open_settings(pi)
        await find(pi, "output padding", "Output padding")
        await pi.press("enter")
        await pi.wait_for(lambda: starts(pi, "hello there", 0), "the user message redrawn at column 0")
        assert "Output padding" in pi.selected_row()  # the list is still open, as in Pi
        for text in ("echo padded-$((40+2))", "padded-42", "The answer is here."):
            assert starts(pi, text, 0), text
        assert saved(agent_dir)["outputPad"] == 0
        await pi.press("enter")  # and back
        await pi.wait_for(lambda: starts(pi, "hello there", 1), "the user message redrawn at column 1")
        assert not starts(pi, "The answer is here.", 0)


async def test_the_saved_value_is_used_from_the_start(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    (agent_dir / "settings.json").write_text(json.dumps({**settings, "outputPad": 0}))
    async with run_pi() as pi:
        await pi.started()
        assert pi.mode.shell.context.output_pad == 0
        await converse(pi, server)
        for text in ("echo padded-$((40+2))", "padded-42", "hello there", "The answer is here."):
            assert starts(pi, text, 0), text
