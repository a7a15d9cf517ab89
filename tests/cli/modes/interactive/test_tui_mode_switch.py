"""``tuiMode`` changed in /settings switches the running screen at once (Pi's ``switchTuiMode``):
the editor, queue, status entries, footer and overlays stay, the keys go to the new view, and
regular mode gets the conversation into its scrollback once. Both starting modes (conftest)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView
from pi_harness.cli.modes.interactive.shell import RecordingView
from pi_harness.cli.modes.interactive.view_switch import CLOSE_OVERLAYS, mode_of
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep
from pi_harness.tui.components.custom import ComponentOverlay
from pi_harness.tui.components.dialogs import Widgets
from pi_harness.tui.pt_view import CLEAR_SCREEN_AND_SCROLLBACK

from .harness import Pi, run_pi
from .test_settings_command import find, open_settings

OTHER = {"fullscreen": "regular", "regular": "fullscreen"}


def saved(agent_dir: Path) -> dict[str, object]:
    data = json.loads((agent_dir / "settings.json").read_text())
    assert isinstance(data, dict)
    return data


async def switch(pi: Pi, to: str) -> None:
    await pi.press("enter")
    await pi.wait_for(lambda: mode_of(pi.mode.shell.view) == to and pi.mode.shell.running, f"the {to} view running")
    await pi.wait_for(lambda: pi.screen_has(f"TUI mode: {to}"), "the status")


async def test_the_screen_switches_and_keeps_what_the_user_had(
    server: FakeLLMServer, project: Path, agent_dir: Path, tui_mode: str
) -> None:
    server.push(ScriptedResponse(steps=[TextStep("first answer")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("hello")
        await pi.wait_for(lambda: pi.screen_has("first answer") or pi.scrollback_has("first answer"), "the answer")
        await pi.idle()
        shell = pi.mode.shell
        old_view, footer = shell.view, shell.pane.footer
        await open_settings(pi)
        settings_list = shell.overlays[-1]
        await find(pi, "tui mode", "TUI mode")
        shell.editor.set_text("a draft kept aside")
        shell.status.set("probe", "status kept")
        shell.queue.set(["steer kept"], [])

        await switch(pi, OTHER[tui_mode])
        assert shell.view is not old_view and old_view.closed
        assert saved(agent_dir)["tuiMode"] == OTHER[tui_mode]
        assert shell.ui.tui_mode == OTHER[tui_mode]
        assert shell.overlays == [settings_list]  # the list stays open, as in Pi
        assert shell.editor.text == "a draft kept aside"
        assert shell.pane.footer is footer
        assert pi.screen_has("status kept") and pi.screen_has("steer kept")
        assert OTHER[tui_mode] in pi.selected_row()
        if isinstance(shell.view, RecordingView):  # the conversation went into the scrollback, once
            assert pi.scrollback().count("first answer") == 1
            assert pi.scrollback().count("hello") == 1

        pi.type("zz")  # keys reach the list through the new application
        await pi.wait_for(lambda: "zz" in pi.screen(), "the typed query")
        await pi.press("backspace", "backspace")
        await pi.wait_for(lambda: "TUI mode" in pi.selected_row(), "the item again")
        await switch(pi, tui_mode)
        assert shell.editor.text == "a draft kept aside"
        if isinstance(shell.view, RecordingView):
            assert pi.scrollback().count("first answer") == 1
        assert isinstance(shell.view, FullscreenView if tui_mode == "fullscreen" else RecordingView)
        await pi.press("escape")
        await pi.wait_for(lambda: "TUI mode" not in pi.screen(), "the list closed")
        shell.editor.clear()


async def test_it_is_refused_while_another_overlay_is_open(
    server: FakeLLMServer, project: Path, agent_dir: Path, tui_mode: str
) -> None:
    async with run_pi() as pi:
        await pi.started()
        shell = pi.mode.shell
        hidden = ComponentOverlay(Widgets(), overlay=True)
        hidden.hidden = True  # an extension's overlay, hidden through its handle: the editor shows
        shell.push_overlay(hidden)
        await open_settings(pi)
        await find(pi, "tui mode", "TUI mode")
        view = shell.view
        await pi.press("enter")
        await pi.wait_for(lambda: pi.screen_has(CLOSE_OVERLAYS), "the refusal")
        assert shell.view is view and mode_of(view) == tui_mode
        assert tui_mode in pi.selected_row()  # the item shows the mode that stays
        assert "tuiMode" not in saved(agent_dir)
        await pi.press("escape")
        await pi.wait_for(lambda: "TUI mode" not in pi.screen(), "the list closed")
        shell.remove_overlay(hidden)


async def test_clear_on_shrink_from_the_settings_file_redraws_a_shorter_regular_pane(
    server: FakeLLMServer, project: Path, agent_dir: Path, tui_mode: str
) -> None:
    settings = saved(agent_dir)
    settings["terminal"] = {"clearOnShrink": True}
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    async with run_pi() as pi:
        await pi.started()
        view = pi.mode.shell.view
        if not isinstance(view, RecordingView):
            return  # fullscreen mode draws the whole screen anyway
        assert view.clear_on_shrink
        redraws = pi.buffer.getvalue().count(CLEAR_SCREEN_AND_SCROLLBACK)
        pi.type("/")
        await pi.wait_for(lambda: "(1/" in pi.screen(), "the command suggestions")
        await pi.press("backspace")
        await pi.wait_for(lambda: pi.buffer.getvalue().count(CLEAR_SCREEN_AND_SCROLLBACK) > redraws, "a full redraw")
        assert pi.scrollback().count("pi v") == 1
