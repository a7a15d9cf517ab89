"""Commands that replace the session (/new, /fork, /clone, /resume) and the rest of the built-ins."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import Pi, run_pi


def _answer(text: str) -> ScriptedResponse:
    return ScriptedResponse(steps=[TextStep(text)])


async def _converse(pi: Pi, prompt: str, answer: str) -> None:
    await pi.submit(prompt)
    await pi.wait_for(lambda: answer in pi.scrollback(), f"the answer {answer!r}")
    await pi.idle()


async def test_fork_starts_a_new_session_before_an_earlier_message(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("Alpha."), _answer("Beta."))
    async with run_pi() as pi:
        await pi.started()
        await _converse(pi, "question alpha", "Alpha.")
        await _converse(pi, "question beta", "Beta.")
        old_file = pi.mode.session.session_manager.get_session_file()
        await pi.submit("/fork")
        await pi.wait_for(lambda: "Fork from Message" in pi.screen(), "the fork selector")
        assert "question beta" in pi.selected_row()  # newest first
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "question beta", "the message in the editor")
        manager = pi.mode.session.session_manager
        assert manager.get_header().get("parentSession") == str(old_file)
        texts = [m for m in pi.mode.session.get_messages() if m["role"] == "user"]
        assert len(texts) == 1
        assert "Beta." not in pi.scrollback() and "Alpha." in pi.scrollback()


async def test_clone_new_and_resume_switch_sessions(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("Kept answer."))
    async with run_pi() as pi:
        await pi.started()
        await _converse(pi, "keep this", "Kept answer.")
        original = pi.mode.session.session_manager.get_session_file()
        await pi.submit("/clone")
        await pi.wait_for(lambda: "Cloned the conversation" in pi.scrollback(), "the clone notice")
        clone = pi.mode.session.session_manager.get_session_file()
        assert clone != original and "Kept answer." in pi.scrollback()
        await pi.submit("/new")
        await pi.wait_for(lambda: "Started a new session" in pi.scrollback(), "the new session")
        assert "Kept answer." not in pi.scrollback() and pi.mode.session.get_messages() == []
        await pi.submit("/resume")
        await pi.wait_for(lambda: "Resume Session (" in pi.screen(), "the picker")
        await pi.wait_for(lambda: "keep this" in pi.selected_row(), "a session in the list")
        await pi.press("enter")
        await pi.wait_for(lambda: "Kept answer." in pi.scrollback(), "the resumed conversation")
        assert pi.mode.session.session_manager.get_session_file() in (original, clone)


async def test_resume_asks_in_place_before_deleting_a_session(server: FakeLLMServer, project: Path) -> None:
    server.push(_answer("Old answer."))
    async with run_pi() as pi:
        await pi.started()
        await _converse(pi, "an old question", "Old answer.")
        old = Path(str(pi.mode.session.session_manager.get_session_file()))
        await pi.submit("/new")
        await pi.wait_for(lambda: "Started a new session" in pi.scrollback(), "the new session")
        await pi.submit("/resume")
        await pi.wait_for(lambda: "an old question" in pi.selected_row(), "the old session in the list")
        await pi.press("ctrl+d")
        await pi.wait_for(lambda: "Delete session?" in pi.screen(), "the question")
        await pi.press("escape")  # cancels the question, not the picker
        await pi.wait_for(lambda: "Delete session?" not in pi.screen(), "the question gone")
        assert old.exists() and "Resume Session" in pi.screen()
        await pi.press("ctrl+d")
        await pi.wait_for(lambda: "Delete session?" in pi.screen(), "the question again")
        await pi.press("enter")
        await pi.wait_for(lambda: not old.exists(), "the file deleted")
        await pi.wait_for(lambda: "an old question" not in pi.screen(), "the list without it")
        assert "Resume Session" in pi.screen()  # the picker stays open


async def test_thinking_scoped_models_login_and_logout(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/scoped-models")
        await pi.wait_for(lambda: "Model Configuration" in pi.screen(), "the scoped models view")
        assert "all enabled" in pi.screen()  # no scope yet: every model is ticked, as in Pi
        await pi.press("enter")  # disable the first model
        await pi.wait_for(lambda: "1/2 enabled" in pi.screen() and "(unsaved)" in pi.screen(), "the count")
        # As in Pi, the change applies to the session at once, and Ctrl+S saves with the view open.
        assert [model["id"] for model, _level in pi.mode.session.models.scoped] == ["other-model"]
        pi.type("\x13")  # ctrl+s saves
        await pi.wait_for(lambda: "Model selection saved to settings" in pi.scrollback(), "the confirmation")
        settings = json.loads((agent_dir / "settings.json").read_text())
        assert settings["enabledModels"] == ["fake/other-model"]
        await pi.wait_for(lambda: "(unsaved)" not in pi.screen(), "the saved state")
        assert "Model Configuration" in pi.screen()  # still open
        await pi.press("escape")
        await pi.wait_for(lambda: "Model Configuration" not in pi.screen(), "the view closed")

        await pi.submit("/login acme")
        await pi.wait_for(lambda: "API key for acme" in pi.screen(), "the key prompt")
        pi.type("sk-acme-123")
        await pi.wait_for(lambda: "sk-acme-123" in pi.screen(), "the typed key")
        await pi.press("enter")
        await pi.wait_for(lambda: "Stored an API key for acme" in pi.scrollback(), "the stored key")
        auth = json.loads((agent_dir / "auth.json").read_text())
        assert auth["acme"] == {"type": "api_key", "key": "sk-acme-123"}
        await pi.submit("/logout acme")
        await pi.wait_for(lambda: "Removed the stored credentials of acme" in pi.scrollback(), "the removal")
        assert "acme" not in json.loads((agent_dir / "auth.json").read_text())

        await pi.submit("/thinking high")
        await pi.wait_for(lambda: "Thinking level: off" in pi.scrollback(), "the clamped level")  # no reasoning


async def test_hotkeys_debug_copy_and_reload(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(_answer("Copy me."))
    async with run_pi() as pi:
        await pi.started()
        await _converse(pi, "say something", "Copy me.")
        await pi.submit("/hotkeys")
        await pi.wait_for(lambda: "Keyboard Shortcuts" in pi.scrollback(), "the shortcuts")
        assert "│ Alt+Enter" in pi.scrollback() and "Queue follow-up message" in pi.scrollback()
        await pi.submit("/copy")
        await pi.wait_for(lambda: "Copied the last response" in pi.screen(), "the copy toast")
        assert "\x1b]52;c;Q29weSBtZS4=\x07" in pi.buffer.getvalue()  # OSC 52 with base64("Copy me.")
        await pi.submit("/debug")
        await pi.wait_for(lambda: "Debug log written" in pi.scrollback(), "the debug notice")
        log = (agent_dir / "pi-debug.log").read_text()
        assert "say something" in log and "Copy me." in log and "=== Session messages" in log
        (agent_dir / "prompts").mkdir()
        (agent_dir / "prompts" / "later.md").write_text("Added after start\n")
        await pi.submit("/reload")
        await pi.wait_for(lambda: "Reloaded" in pi.scrollback(), "the reload notice")
        assert "later" in [info.name for info in pi.mode.commands.command_infos()]
        assert "Copy me." in pi.scrollback()  # same session, same conversation


async def test_the_footer_shows_the_git_branch(server: FakeLLMServer, project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/tui\n")
    async with run_pi() as pi:
        await pi.started()
        await pi.wait_for(lambda: "(feature/tui)" in pi.screen(), "the branch next to the directory")
