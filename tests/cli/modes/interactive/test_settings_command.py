"""/settings in the running interactive mode: Pi's 33 items, each change saved to the global
settings.json and applied at once (issue 20, defect 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView
from pi_harness.cli.modes.interactive.terminal_progress import ACTIVE, CLEAR
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep
from pi_harness.tui.theme import builtin_theme

from .harness import Pi, run_pi, write_fake_provider

PI_LABELS = [
    "Auto-compact", "Auto-resize images", "Block images", "Skill commands", "Show hardware cursor",
    "Editor padding", "Output padding", "Autocomplete max items", "Clear on shrink", "Terminal progress",
    "Steering mode", "Follow-up mode", "Transport", "Session share destination", "HTTP idle timeout",
    "Cache warming", "Hide thinking", "Mermaid diagrams", "Cache miss notices", "Collapse changelog",
    "Quiet startup", "Install telemetry", "Default project trust", "Double-escape action", "Tree filter mode",
    "Warnings", "Default thinking level per model", "TUI mode", "Fullscreen exit output", "Fullscreen scrollbar",
    "Fullscreen copy on select", "Fullscreen wheel scrolling", "Theme",
]  # fmt: skip


def saved(agent_dir: Path) -> dict[str, object]:
    data = json.loads((agent_dir / "settings.json").read_text())
    assert isinstance(data, dict)
    return data


async def open_settings(pi: Pi) -> None:
    await pi.submit("/settings")
    await pi.wait_for(lambda: "Settings" in pi.screen() and "Auto-compact" in pi.selected_row(), "the settings list")


async def find(pi: Pi, query: str, label: str) -> None:
    """Type ``query`` into the list's search and wait for ``label`` to be the selected row."""
    while pi.mode.shell.overlays and getattr(pi.mode.shell.overlays[-1], "query", ""):
        await pi.press("backspace")
    pi.type(query)
    await pi.wait_for(lambda: label in pi.selected_row(), f"{label} selected")


async def test_all_of_pi_s_items_are_listed_in_its_order(server: FakeLLMServer, project: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await open_settings(pi)
        assert pi.screen_has("(1/33)")
        seen = []
        for _ in PI_LABELS:
            row = pi.selected_row()
            seen.append(next((label for label in PI_LABELS if f"→ {label} " in row + " "), row))
            await pi.press("down")
            await pi.wait_for(lambda row=row: pi.selected_row() != row, "the next item")
        assert seen == PI_LABELS
        await pi.press("escape")
        await pi.wait_for(lambda: "Auto-compact" not in pi.screen(), "the list closed")


async def test_changes_are_saved_globally_and_applied(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with run_pi() as pi:
        await pi.started()
        await open_settings(pi)
        await find(pi, "project trust", "Default project trust")
        await pi.press("enter")
        await pi.wait_for(lambda: "Always trust" in pi.selected_row(), "the next choice")
        assert saved(agent_dir)["defaultProjectTrust"] == "always"

        await find(pi, "steering", "Steering mode")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.session.steering_mode == "all", "the session's steering mode")
        assert saved(agent_dir)["steeringMode"] == "all"

        await find(pi, "hide thinking", "Hide thinking")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.shell.context.hide_thinking, "thinking hidden on screen")
        assert saved(agent_dir)["hideThinkingBlock"] is True

        await find(pi, "idle timeout", "HTTP idle timeout")
        await pi.press("enter")
        await pi.wait_for(lambda: "disabled" in pi.selected_row(), "5 min -> disabled")
        assert saved(agent_dir)["httpIdleTimeoutMs"] == 0

        await find(pi, "scrollbar", "Fullscreen scrollbar")
        await pi.press("enter")
        await pi.wait_for(lambda: saved(agent_dir).get("fullscreenScrollbar") == "always", "the scrollbar saved")
        view = pi.mode.shell.view
        if isinstance(view, FullscreenView):
            assert view.options.scrollbar == "always"  # the running screen follows

        await find(pi, "mermaid", "Mermaid diagrams")
        await pi.press("enter")
        await pi.wait_for(lambda: saved(agent_dir).get("markdown") == {"mermaid": "off"}, "markdown.mermaid saved")
        await pi.press("escape")
        await pi.wait_for(lambda: "Mermaid diagrams" not in pi.screen(), "the list closed")
    assert not (project / ".pi" / "settings.json").exists()  # Pi writes the global file only


async def test_theme_submenu_previews_restores_and_saves(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    theme_dir = agent_dir / "themes"
    theme_dir.mkdir()
    paper = {"name": "paper", "colors": dict(builtin_theme("light").colors)}
    (theme_dir / "paper.json").write_text(json.dumps(paper))
    async with run_pi() as pi:
        await pi.started()
        before = pi.mode.shell.theme.name
        await open_settings(pi)
        await find(pi, "theme", "Theme")
        await pi.press("enter")
        await pi.wait_for(lambda: "automatic" in pi.screen(), "the theme submenu")
        while "paper" not in pi.selected_row():
            await pi.press("down")
        await pi.wait_for(lambda: pi.mode.shell.theme.name == "paper", "the preview")
        assert "theme" not in saved(agent_dir)  # a preview is not a choice
        await pi.press("escape")
        await pi.wait_for(lambda: pi.mode.shell.theme.name == before, "the theme restored")
        await pi.press("enter")
        while "paper" not in pi.selected_row():
            await pi.press("down")
        await pi.press("enter")
        await pi.wait_for(lambda: saved(agent_dir).get("theme") == "paper", "the theme saved")
        assert pi.mode.shell.theme.name == "paper" and pi.screen_has("Theme")


async def test_a_thinking_level_per_model_applies_to_the_current_model(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    write_fake_provider(agent_dir, server, models=("thinking-a", "thinking-b"))
    async with run_pi() as pi:
        await pi.started()
        await open_settings(pi)
        await find(pi, "per model", "Default thinking level per model")
        await pi.press("enter")
        await pi.wait_for(lambda: "thinking-a [fake]" in pi.selected_row(), "the current model first")
        await pi.press("enter")
        await pi.wait_for(lambda: "Thinking level for thinking-a [fake]" in pi.screen(), "its levels")
        while "high" not in pi.selected_row():
            await pi.press("down")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.session.thinking_level == "high", "the session's level")
        assert saved(agent_dir)["modelThinkingLevels"] == {"fake/thinking-a": "high"}
        await pi.press("escape")
        await pi.wait_for(lambda: "1 configured" in pi.selected_row(), "the summary on the item")


async def test_terminal_progress_is_reported_once_turned_on(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("First.")]), ScriptedResponse(steps=[TextStep("Second.")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("one")
        await pi.wait_for(lambda: "First." in pi.scrollback(), "the first answer")
        await pi.idle()
        assert ACTIVE not in pi.buffer.getvalue()  # off by default
        await open_settings(pi)
        await find(pi, "terminal progress", "Terminal progress")
        await pi.press("enter")
        await pi.wait_for(lambda: "true" in pi.selected_row(), "the setting on")
        await pi.press("escape")
        await pi.wait_for(lambda: "Terminal progress" not in pi.screen(), "the list closed")
        await pi.submit("two")
        await pi.wait_for(lambda: "Second." in pi.scrollback(), "the second answer")
        await pi.idle()
        await pi.wait_for(lambda: CLEAR in pi.buffer.getvalue(), "the progress cleared")
        raw = pi.buffer.getvalue()
        assert raw.index(ACTIVE) < raw.rindex(CLEAR)


@pytest.mark.parametrize("program", ["kitty", "iTerm.app"])
async def test_image_items_are_listed_where_images_are_drawn(
    server: FakeLLMServer, project: Path, tui_mode: str, monkeypatch: pytest.MonkeyPatch, program: str
) -> None:
    """Pi lists "Show images" and "Image width" only when the terminal draws images inline: kitty
    in both modes, iTerm2 in regular mode (fullscreen shows its images as placeholders)."""
    for name in ("TMUX", "PI_IMAGE_PROTOCOL", "KITTY_WINDOW_ID", "WEZTERM_PANE", "GHOSTTY_RESOURCES_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-kitty" if program == "kitty" else "xterm-256color")
    monkeypatch.setenv("TERM_PROGRAM", program)
    async with run_pi() as pi:
        await pi.started()
        await open_settings(pi)
        drawn = program == "kitty" or tui_mode == "regular"
        assert pi.screen_has("(1/35)" if drawn else "(1/33)")
        await pi.press("down")
        await pi.wait_for(lambda: "Auto-compact" not in pi.selected_row(), "the next item")
        assert ("Show images" in pi.selected_row()) is drawn


async def test_mermaid_blocks_are_drawn_until_turned_off(server: FakeLLMServer, project: Path) -> None:
    block = "```mermaid\ngraph TD; Alpha-->Beta\n```"
    server.push(
        ScriptedResponse(steps=[TextStep(f"First:\n\n{block}\n\nend one.")]),
        ScriptedResponse(steps=[TextStep(f"Second:\n\n{block}\n\nend two.")]),
    )
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("draw")
        await pi.wait_for(lambda: "end one." in pi.scrollback(), "the first answer")
        await pi.idle()
        first = pi.scrollback()
        assert "┌" in first and "▼" in first and "Alpha" in first and "Beta" in first
        assert "```mermaid" not in first  # the default "streaming" draws the diagram
        await open_settings(pi)
        await find(pi, "mermaid", "Mermaid diagrams")
        await pi.press("enter")
        await pi.wait_for(lambda: "off" in pi.selected_row(), "streaming -> off")
        await pi.press("escape")
        await pi.wait_for(lambda: "Mermaid diagrams" not in pi.screen(), "the list closed")
        await pi.submit("again")
        await pi.wait_for(lambda: "end two." in pi.scrollback(), "the second answer")
        second = pi.scrollback()
        assert "```mermaid" in second[second.index("Second:") :]  # off: the source as a code block


async def test_the_hardware_cursor_and_the_idle_timeout_apply_at_once(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    # Pi applies both from /settings without a restart: the editor's cursor shows, and the next
    # request reads the new timeout (5 min -> disabled, i.e. 0).
    async with run_pi() as pi:
        await pi.started()
        assert pi.mode.shell.view.show_hardware_cursor is False
        await open_settings(pi)
        await find(pi, "hardware cursor", "Show hardware cursor")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.shell.view.show_hardware_cursor, "the cursor shown")
        assert saved(agent_dir)["showHardwareCursor"] is True
        assert not pi.screen_has("next time pi starts")
        await find(pi, "idle timeout", "HTTP idle timeout")
        await pi.press("enter")
        await pi.wait_for(lambda: pi.mode.session.base_stream_options.idle_timeout_ms == 0, "the timeout off")
        await pi.press("escape")
        server.push(ScriptedResponse(steps=[TextStep("answered")]))
        await pi.submit("hello")
        # Live while it streams, then printed once the turn ends: either place, whichever is seen.
        await pi.wait_for(lambda: pi.screen_has("answered") or pi.scrollback_has("answered"), "the reply")
