"""UI examples that replace the built-in footer, header and editor, in the real interactive mode."""

from __future__ import annotations

from pathlib import Path

from _ui_support import project_fixture, screen_lines, server_fixture, ui_pi  # noqa: F401  (fixtures)

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


async def test_custom_footer_shows_usage_and_toggles_back(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    server.push(ScriptedResponse([TextStep("hello back")]))
    async with ui_pi(agent_dir, "custom_footer") as pi:
        await pi.wait_for(lambda: "↑0 ↓0 $0.000 · fake-model" in pi.screen(), "the usage footer")
        assert not any("fake-model" in line and "↑" not in line for line in screen_lines(pi))  # no built-in footer
        await pi.submit("hi")
        await pi.idle()
        await pi.wait_for(lambda: "↑0 ↓0" not in pi.screen() and " · fake-model" in pi.screen(), "counted usage")
        await pi.submit("/footer")
        await pi.wait_for(lambda: "Built-in footer restored" in pi.screen(), "the toggle")
        assert "$0.000 · fake-model" not in pi.screen()


async def test_custom_header_replaces_the_builtin_header(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "custom_header") as pi:
        await pi.wait_for(lambda: "( oo )" in pi.scrollback(), "the mascot at the top")
        history = pi.scrollback()
        assert "type a message, / for commands" in history
        await pi.submit("/builtin-header")
        await pi.wait_for(lambda: "( oo )" not in pi.scrollback(), "the built-in header back")


async def test_modal_editor_normal_mode_moves_and_deletes(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    async with ui_pi(agent_dir, "modal_editor") as pi:
        await pi.wait_for(lambda: "INSERT" in pi.screen(), "the insert-mode label")
        pi.type("hello")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "hello", "typed text")
        await pi.press("escape")
        await pi.wait_for(lambda: "NORMAL" in pi.screen(), "normal mode")
        pi.type("0x")  # to the line start, delete the 'h'
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "ello", "the deleted character")
        pi.type("zq")  # swallowed in normal mode
        pi.type("$a!")
        await pi.wait_for(lambda: pi.mode.shell.editor.text == "ello!", "appended text in insert mode")
        assert "INSERT" in pi.screen()


async def test_border_status_editor_writes_the_status_into_the_rules(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    async with ui_pi(agent_dir, "border_status_editor") as pi:
        await pi.wait_for(lambda: "fake-model · off" in pi.screen(), "the model in the top rule")
        lines = screen_lines(pi)
        top = next(line for line in lines if "fake-model · off" in line)
        assert top.startswith("─") and top.rstrip().endswith("project ─")
        assert any("⎇ no branch" in line and "ctx " in line for line in lines)
        pi.type("typed")
        await pi.wait_for(lambda: any(line.strip() == "typed" for line in screen_lines(pi)), "the text between")


async def test_rainbow_editor_colours_the_magic_word(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "rainbow_editor") as pi:
        pi.type("please ultrathink now")
        await pi.wait_for(lambda: "ultrathink" in pi.screen(), "the typed word")
        editor = pi.mode.shell.pane.editor_component
        assert editor is not None
        first = "\n".join(editor.render(80))
        assert "\x1b[38;5;196mu" in first  # red first letter at phase 0
        assert editor.tick() is True
        assert "\x1b[38;5;208mu" in "\n".join(editor.render(80))  # the colours moved on
        pi.mode.shell.editor.set_text("plain text")
        assert editor.tick() is False  # nothing to animate, nothing to redraw
