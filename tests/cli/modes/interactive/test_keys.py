"""The application keys: quitting, clearing, thinking levels and blocks, tool output, double
Escape, the external editor, and key bindings changed in keybindings.json."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ThinkingStep, ToolCallStep
from pi_harness.tui.ansi import strip_ansi

from .harness import run_pi, write_fake_provider


async def test_ctrl_c_clears_then_twice_quits_and_ctrl_d_deletes_while_there_is_text(
    server: FakeLLMServer, project: Path
) -> None:
    async with run_pi() as pi:
        await pi.started()
        pi.type("abc")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "abc", "the typed text")
        await pi.press("ctrl+d")  # deletes forward: nothing after the cursor, and pi keeps running
        await pi.press("ctrl+c")
        await pi.wait_for(lambda: pi.mode.shell.editor.is_empty, "the editor cleared")
        assert not pi.task.done()
        pi.type("\x03\x03")  # twice in a row
        assert await pi.exit_code() == 0


async def test_shift_tab_cycles_the_thinking_level(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    write_fake_provider(agent_dir, server, models=("thinking-model",))
    async with run_pi() as pi:
        await pi.started()
        before = pi.mode.session.thinking_level
        await pi.press("shift+tab")
        await pi.wait_for(lambda: pi.mode.session.thinking_level != before, "a new thinking level")
        level = pi.mode.session.thinking_level
        await pi.wait_for(lambda: f"thinking-model • {level}" in pi.screen(), "the level in the footer")


async def test_ctrl_t_hides_thinking_and_ctrl_o_expands_tool_output(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(
            steps=[
                ThinkingStep("Pondering the request deeply."),
                ToolCallStep("bash", {"command": "seq -f 'output line %g' 40"}),
            ]
        ),
        ScriptedResponse(steps=[TextStep("All printed.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("Print forty lines")
        await pi.wait_for(lambda: "All printed." in pi.scrollback(), "the answer")
        assert "Pondering the request deeply." in pi.scrollback()
        assert "output line 40" in pi.scrollback() and "35 earlier lines" in pi.scrollback()
        assert "output line 5\n" not in pi.scrollback()
        await pi.press("ctrl+o")
        await pi.wait_for(lambda: "output line 5" in pi.scrollback(), "the whole tool output after a redraw")
        await pi.press("ctrl+t")
        await pi.wait_for(lambda: "Pondering the request deeply." not in pi.scrollback(), "the thinking hidden")
        assert "All printed." in pi.scrollback()


async def test_double_escape_opens_the_tree(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("Hi.")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("hello")
        await pi.wait_for(lambda: "Hi." in pi.scrollback(), "the answer")
        await pi.idle()
        pi.type("\x1b\x1b")
        await pi.wait_for(lambda: "Session Tree" in pi.screen(), "the tree selector")


@pytest.mark.skipif(os.name != "posix", reason="the fake editor is a shell script")
async def test_ctrl_g_edits_the_message_in_the_external_editor(
    server: FakeLLMServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "fake-editor.sh"
    script.write_text('#!/bin/sh\nprintf "%s, edited outside\\n" "$(cat "$1")" > "$1"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(script))
    async with run_pi() as pi:
        await pi.started()
        pi.type("draft")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "draft", "the draft")
        pi.type("\x07")  # ctrl+g
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "draft, edited outside", "the edited text")


async def test_keybindings_json_moves_an_action_to_another_key(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    (agent_dir / "keybindings.json").write_text(json.dumps({"app.model.select": "ctrl+x"}))
    async with run_pi() as pi:
        await pi.started()
        await pi.press("ctrl+l")
        pi.type("\x18")  # ctrl+x
        await pi.wait_for(lambda: "to set as default" in pi.screen(), "the model selector on the new key")
        # The header's full form (Ctrl+O) names the configured key.
        pi.mode.shell.context.set_expand_tools(True)
        assert pi.mode.header is not None
        header = strip_ansi("\n".join(pi.mode.header.render(100)))
        assert "ctrl+x to select model" in header and "ctrl+l to select model" not in header
