"""Startup: the trust question for a project with protected resources, the header, ``--resume``
and the command line's messages."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi, unwrapped

SKILL = "---\nname: demo-skill\ndescription: Shows that project skills loaded.\n---\nDo the demo.\n"


def _project_with_skill(project: Path) -> None:
    skill_dir = project / ".pi" / "skills" / "demo-skill"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(SKILL)


def _trust_file(agent_dir: Path) -> dict[str, object] | None:
    path = agent_dir / "trust.json"
    return json.loads(path.read_text()) if path.exists() else None


async def test_trust_once_loads_project_resources_without_saving(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    _project_with_skill(project)
    async with run_pi() as pi:
        await pi.wait_for(lambda: "Trust this project?" in pi.output(), "the trust question")
        assert "skills" in pi.output()
        await pi.press("down", "down")
        await pi.wait_for(lambda: "→ Trust once" in pi.output(), "Trust once selected")
        await pi.press("enter")
        await pi.started()
        await pi.wait_for(lambda: "demo-skill" in pi.scrollback(), "the project skill in the header")
        assert "[Skills]" in pi.scrollback()
        assert any(c.name == "skill:demo-skill" for c in pi.mode.commands.command_infos())
    assert _trust_file(agent_dir) is None


async def test_trust_is_saved_and_dont_trust_skips_the_resources(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    _project_with_skill(project)
    async with run_pi() as pi:
        await pi.wait_for(lambda: "Trust this project?" in pi.output(), "the trust question")
        await pi.press("enter")  # Trust
        await pi.started()
        await pi.wait_for(lambda: "demo-skill" in pi.scrollback(), "the project skill in the header")
    saved = _trust_file(agent_dir)
    assert saved is not None
    assert [record["trusted"] for record in saved["decisions"].values()] == [True]  # type: ignore[union-attr]

    (agent_dir / "trust.json").unlink()
    async with run_pi() as pi:
        await pi.wait_for(lambda: "Trust this project?" in pi.output(), "the trust question")
        await pi.press("down", "enter")  # Don't trust
        await pi.started()
        await pi.wait_for(lambda: "not trusted" in pi.scrollback(), "the untrusted notice")
        assert "demo-skill" not in pi.scrollback()
    saved = _trust_file(agent_dir)
    assert saved is not None
    assert [record["trusted"] for record in saved["decisions"].values()] == [False]  # type: ignore[union-attr]


async def test_messages_on_the_command_line_are_the_first_prompts(server: FakeLLMServer, project: Path) -> None:
    (project / "notes.txt").write_text("the notes say 7\n")
    server.push(ScriptedResponse(steps=[TextStep("Read them.")]), ScriptedResponse(steps=[TextStep("Second done.")]))
    async with run_pi(["@notes.txt", "Summarise the notes", "Then say bye"]) as pi:
        await pi.started()
        await pi.wait_for(lambda: "Second done." in pi.scrollback(), "both answers")
        text = unwrapped(pi.scrollback())  # the file's path can wrap at any column
        at = [text.index(unwrapped(part)) for part in ("[file: ", "Summarise the notes", "Read them.")]
        assert at == sorted(at)
        at = [text.index(unwrapped(part)) for part in ("Read them.", "Then say bye", "Second done.")]
        assert at == sorted(at)
    first = json.dumps(server.requests[0].json)
    assert "the notes say 7" in first and "Summarise the notes" in first
    assert "Then say bye" in json.dumps(server.requests[1].json)


async def test_resume_picks_a_session_and_shows_its_conversation(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("Remember the number 12.")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("What should I remember?")
        await pi.wait_for(lambda: "Remember the number 12." in pi.scrollback(), "the answer")
        await pi.idle()
        first_file = pi.mode.session.session_manager.get_session_file()

    async with run_pi(["--resume"]) as pi:
        await pi.wait_for(lambda: "Resume Session (" in pi.output(), "the session picker")
        await pi.wait_for(lambda: "What should I remember?" in pi.output(), "the session in the list")
        await pi.press("enter")
        await pi.started()
        await pi.wait_for(lambda: "Remember the number 12." in pi.scrollback(), "the resumed conversation")
        assert pi.mode.session.session_manager.get_session_file() == first_file
        await pi.press("up")  # the editor's history holds the conversation's prompts
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "What should I remember?", "the history entry")


async def test_resume_with_nothing_picked_exits_cleanly(server: FakeLLMServer, project: Path, capsys: object) -> None:
    async with run_pi(["--resume"]) as pi:
        await pi.wait_for(lambda: "Resume Session (" in pi.output(), "the session picker")
        await pi.press("escape")
        assert await pi.exit_code() == 0  # nothing picked: pi ends by itself
    assert "No session selected" in capsys.readouterr().out  # type: ignore[attr-defined]
