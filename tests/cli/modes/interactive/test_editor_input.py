"""The editor: several lines, large pastes, pasted image paths, ``@`` and ``/`` completion."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def _last_user_content(server: FakeLLMServer) -> object:
    return server.requests[-1].json["messages"][-1]["content"]


async def test_ctrl_j_starts_a_new_line_and_enter_sends_both(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("Two lines received.")]))
    async with run_pi() as pi:
        await pi.started()
        pi.type("first line\nsecond line")  # ctrl+j is a new line; enter would send
        await pi.wait_for(lambda: pi.mode.shell.editor.lines == ["first line", "second line"], "two lines")
        await pi.press("enter")
        await pi.wait_for(lambda: "Two lines received." in pi.scrollback(), "the answer")
    assert "first line\nsecond line" in json.dumps(_last_user_content(server), ensure_ascii=False).replace("\\n", "\n")


async def test_a_large_paste_is_a_placeholder_expanded_on_send(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("Got the log.")]))
    pasted = "\n".join(f"log line {n}" for n in range(30))
    async with run_pi() as pi:
        await pi.started()
        pi.type("Look at this: ")
        pi.type(PASTE_START + pasted + PASTE_END)
        await pi.wait_for(lambda: "[Pasted text #1 +30 lines]" in pi.screen(), "the paste placeholder")
        await pi.press("enter")
        await pi.wait_for(lambda: "Got the log." in pi.scrollback(), "the answer")
    sent = json.dumps(_last_user_content(server))
    assert "log line 0" in sent and "log line 29" in sent and "Pasted text" not in sent


async def test_a_pasted_image_path_is_attached(server: FakeLLMServer, project: Path) -> None:
    Image.new("RGB", (4, 3), (200, 10, 10)).save(project / "shot.png")
    server.push(ScriptedResponse(steps=[TextStep("A red picture.")]))
    async with run_pi() as pi:
        await pi.started()
        pi.type("What is this? ")
        pi.type(PASTE_START + str(project / "shot.png") + PASTE_END)
        await pi.wait_for(lambda: "[Image #1: shot.png]" in pi.screen(), "the image placeholder")
        await pi.press("enter")
        await pi.wait_for(lambda: "A red picture." in pi.scrollback(), "the answer")
    content = _last_user_content(server)
    assert isinstance(content, list)
    assert any(part.get("type") == "image_url" for part in content)


async def test_at_completes_project_files_but_not_ignored_ones(server: FakeLLMServer, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "application.py").write_text("print('hi')\n")
    (project / "apple-notes.txt").write_text("ignored\n")
    (project / ".gitignore").write_text("apple-notes.txt\n")
    async with run_pi() as pi:
        await pi.started()
        pi.type("Explain @appl")
        await pi.wait_for(lambda: "src/application.py" in pi.screen(), "the file suggestion")
        assert "apple-notes.txt" not in pi.screen()
        await pi.press("tab")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "Explain @src/application.py ", "the completed path")


async def test_slash_completion_lists_commands_templates_skills_and_extension_commands(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text("---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n")
    skill = agent_dir / "skills" / "lint-fix"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint-fix\ndescription: Fix lint errors.\n---\nRun the linter.\n")
    (agent_dir / "extensions").mkdir()
    (agent_dir / "extensions" / "hello.py").write_text(
        "def extension(pi):\n"
        "    @pi.command('greet', description='Say hello')\n"
        "    async def greet(args, ctx):\n"
        "        ctx.ui.notify('hello ' + args)\n"
    )
    async with run_pi() as pi:
        await pi.started()
        names = [info.name for info in pi.mode.commands.command_infos()]
        assert {"model", "tree", "compact", "review", "skill:lint-fix", "greet"} <= set(names)
        pi.type("/rev")
        await pi.wait_for(lambda: "/review" in pi.screen() and "Review the diff" in pi.screen(), "the template")
        await pi.press("ctrl+u")
        pi.type("/gre")
        await pi.wait_for(lambda: "/greet" in pi.screen(), "the extension command")
        await pi.press("enter")  # accepts the suggestion and runs it
        await pi.wait_for(lambda: "hello" in pi.screen(), "the command's notification")


async def test_completion_tags_where_commands_come_from_and_skills_off_hides_skills(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text("---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n")
    skill = agent_dir / "skills" / "lint-fix"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint-fix\ndescription: Fix lint errors.\n---\nRun the linter.\n")
    settings = json.loads((agent_dir / "settings.json").read_text())
    (agent_dir / "settings.json").write_text(json.dumps({**settings, "enableSkillCommands": False}))
    async with run_pi() as pi:
        await pi.started()
        infos = {info.name: info.description for info in pi.mode.commands.command_infos()}
        assert infos["review"] == "[u] Review the diff"  # a user-scope template, as Pi tags it
        assert "skill:lint-fix" not in infos  # still in get_commands, not in the completion


async def test_up_recalls_earlier_prompts(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("One.")]), ScriptedResponse(steps=[TextStep("Two.")]))
    async with run_pi() as pi:
        await pi.started()
        for prompt, answer in (("first prompt", "One."), ("second prompt", "Two.")):
            await pi.submit(prompt)
            await pi.wait_for(lambda answer=answer: answer in pi.scrollback(), "an answer")
            await pi.idle()
        await pi.press("up")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "second prompt", "the last prompt")
        await pi.press("up")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "first prompt", "the prompt before")
        await pi.press("down", "down")
        await pi.wait_for(lambda: pi.mode.shell.editor.is_empty, "back to the empty draft")
