"""``externalEditor``: the command Ctrl+G runs, with arguments, before ``$VISUAL`` and ``$EDITOR``."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.external_editor import edited_text, editor_command_line, split_command
from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi

posix_only = pytest.mark.skipif(os.name != "posix", reason="the fake editors are shell scripts")


def editor_script(directory: Path, name: str, body: str) -> Path:
    script = directory / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_the_setting_then_visual_then_editor_then_the_platform_editor() -> None:
    env = {"VISUAL": "vis", "EDITOR": "ed"}
    assert editor_command_line("code --wait", env) == "code --wait"
    assert editor_command_line("  ", env) == "vis"
    assert editor_command_line(None, {"VISUAL": "", "EDITOR": "ed"}) == "ed"
    assert editor_command_line(None, {}) == ("notepad" if sys.platform == "win32" else "nano")


def test_command_lines_keep_quoted_arguments_together() -> None:
    assert split_command("code --wait") == ["code", "--wait"]
    if os.name == "posix":
        assert split_command("'/opt/my editor/run' -n") == ["/opt/my editor/run", "-n"]
    assert split_command('vim "unclosed') == ["vim", '"unclosed']


def test_the_edited_text_loses_a_byte_order_mark_and_one_final_line_break() -> None:
    assert edited_text("\ufeffline one\nline two\n") == "line one\nline two"
    assert edited_text("kept\n\n") == "kept\n"
    assert edited_text("no break") == "no break"


@posix_only
async def test_ctrl_g_runs_the_external_editor_setting_with_its_arguments(
    server: FakeLLMServer, project: Path, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The configured editor appends its first argument; $VISUAL would replace the text.
    configured = editor_script(tmp_path, "configured.sh", 'printf "%s %s\\n" "$(cat "$2")" "$1" > "$2"\n')
    visual = editor_script(tmp_path, "visual.sh", 'printf "from VISUAL\\n" > "$1"\n')
    monkeypatch.setenv("VISUAL", str(visual))
    settings = json.loads((agent_dir / "settings.json").read_text())
    (agent_dir / "settings.json").write_text(json.dumps({**settings, "externalEditor": f"{configured} edited-by-setting"}))
    async with run_pi() as pi:
        await pi.started()
        pi.type("draft")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "draft", "the draft")
        pi.type("\x07")  # ctrl+g
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "draft edited-by-setting", "the edited text")


@posix_only
async def test_a_failing_editor_leaves_the_message_alone(
    server: FakeLLMServer, project: Path, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = editor_script(tmp_path, "failing.sh", 'printf "lost\\n" > "$1"\nexit 3\n')
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(failing))
    async with run_pi() as pi:
        await pi.started()
        pi.type("draft")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "draft", "the draft")
        pi.type("\x07")  # ctrl+g
        await pi.wait_for(lambda: pi.screen_has("exited with code 3"), "the warning")
        assert pi.mode.shell.editor.text == "draft"
