"""Slash commands about the session as a whole and the application: ``/session``, ``/compact``,
``/export``, ``/copy``, ``/settings``, ``/reload``, ``/hotkeys``, ``/debug``, ``/bug``, ``/quit``."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_harness.cli.export import export_session_html
from pi_harness.cli.modes.interactive.builtin import Builtin
from pi_harness.cli.modes.interactive.clipboard import copy_text
from pi_harness.cli.modes.interactive.cmd_bug import report_bug
from pi_harness.cli.modes.interactive.debug import write_debug_log
from pi_harness.cli.modes.interactive.hotkeys import HotkeysBlock, hotkeys_markdown
from pi_harness.cli.modes.interactive.session_info import (
    SessionFacts,
    SessionInfoBlock,
    cost_breakdown,
    warming_status_text,
)
from pi_harness.cli.modes.interactive.settings_apply import apply_setting
from pi_harness.cli.modes.interactive.settings_submenu import open_settings_submenu
from pi_harness.cli.modes.interactive.shell import Overlay
from pi_harness.cli.modes.interactive.startup import custom_unsupported
from pi_harness.coding.cache_misses import cache_waste
from pi_harness.tui.components.settings_items import setting_items
from pi_harness.tui.components.settings_view import SettingsView
from pi_harness.tui.keybindings import KeyMap
from pi_harness.tui.theme import SYSTEM_THEME
from pi_harness.tui.theme_registry import ThemeRegistry

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext


async def session_info(mode: ModeContext, args: str) -> None:
    session = mode.session
    manager = session.session_manager
    entries = manager.get_entries()
    runtime = session.model_runtime

    def read_price(provider: str, model_id: str) -> float:
        found = runtime.find(provider, model_id)
        return float(found["cost"]["cacheRead"]) if found is not None else 0.0

    warmer = session.cache_warmer
    status = warmer.status
    model = session.model
    facts = SessionFacts(
        stats=session.get_session_stats(), name=manager.get_session_name(),
        warming_mode=str(session.settings.get("cacheWarming") or "streaming"),
        warming_status=warming_status_text(status, warmer.clock.now_ms()), decision=status.get("decision"),
        shares=cost_breakdown(entries), waste=cache_waste(entries, read_price),
        selected_key=f"{model.get('provider') if model else None}/{model.get('id') if model else None}",
    )  # fmt: skip
    mode.shell.transcript.add_component(SessionInfoBlock(facts, mode.shell.context))
    mode.shell.refresh()


async def compact(mode: ModeContext, args: str) -> None:
    try:
        await mode.session.compact(args.strip() or None)
    except Exception as error:
        message = str(error) or type(error).__name__
        shown = mode.controller.last_compaction_error or ""
        if message not in shown:  # compaction_end already showed it (with a prefix)
            mode.shell.notice("error", message)


async def export(mode: ModeContext, args: str) -> None:
    """``/export [file]``: a ``.jsonl`` path gets the branch as a session file, anything else HTML."""
    output = os.path.expanduser(args.strip()) or None
    try:
        if output is not None and output.endswith(".jsonl"):
            from pi_harness.coding.session_store.export_jsonl import export_branch_jsonl

            target = export_branch_jsonl(mode.session.session_manager, output)
        else:
            target = export_session_html(mode.session, output, theme=mode.shell.theme.spec)
    except Exception as error:  # a bad path or a full disk: said once, the session goes on
        mode.shell.notice("error", f"Failed to export session: {error or type(error).__name__}")
        return
    mode.shell.notice("success", f"Session exported to: {target}")


async def copy(mode: ModeContext, args: str) -> None:
    text = mode.session.get_last_assistant_text()
    if not text:
        mode.shell.notice("warning", "There is no response to copy yet")
        return
    await copy_text(mode, text)
    mode.shell.toast("Copied the last response to the clipboard")


async def settings(mode: ModeContext, args: str) -> None:
    """``/settings``: Pi's items; each change is saved and applied as it is made."""
    shell = mode.shell
    session = mode.session
    values = session.settings.values
    theme = values.theme if session.settings.is_set("theme") else SYSTEM_THEME
    items = setting_items(
        values, auto_compact=session.auto_compaction_enabled, steering_mode=session.steering_mode,
        follow_up_mode=session.follow_up_mode, hide_thinking=shell.context.hide_thinking, theme=theme,
        tui_mode=shell.ui.tui_mode, supports_images=shell.context.capabilities.images is not None,
    )  # fmt: skip
    context = shell.context

    shown: list[SettingsView] = []

    def change(key: str, value: object) -> None:
        if not apply_setting(mode, key, value) and key == "tuiMode" and shown:
            shown[0].set_value("tui-mode", shell.ui.tui_mode)  # refused: the mode stays

    def build(done: Callable[[None], None]) -> Overlay:
        view = SettingsView(
            items, context, on_change=change, on_close=lambda: done(None),
            open_submenu=lambda item, finished: open_settings_submenu(mode, item, change, finished),
        )  # fmt: skip
        shown.append(view)
        return view

    await shell.ask(build)


async def reload(mode: ModeContext, args: str) -> None:
    """Settings, key bindings, resources, themes and extensions read again; same session file."""
    shell = mode.shell
    shell.set_keymap(KeyMap.load(mode.agent_dir))
    await mode.runtime.reload()
    mode.themes = ThemeRegistry(mode.session.resource_loader.get_theme_paths())
    if mode.apply_theme(shell.theme.name) is not None:
        shell.notice("warning", f'Theme "{shell.theme.name}" is no longer available')
    for problem in [*shell.keymap.diagnostics, *custom_unsupported(shell), *mode.themes.diagnostics]:
        shell.notice("warning", problem)


async def hotkeys(mode: ModeContext, args: str) -> None:
    shortcuts = [(shortcut.key, shortcut.description or path) for shortcut, path in mode.session.extensions.shortcuts()]
    markdown = hotkeys_markdown(mode.shell.keymap, shortcuts)
    mode.shell.transcript.add_component(HotkeysBlock(markdown, mode.shell.context))
    mode.shell.refresh()


async def debug(mode: ModeContext, args: str) -> None:
    path = write_debug_log(mode)
    mode.shell.notice("success", f"Debug log written to {path}")


async def quit_app(mode: ModeContext, args: str) -> None:
    await mode.quit(0)


COMMANDS = [
    Builtin("session", "Show the session file, tokens and cost", session_info),
    Builtin("compact", "Summarize the conversation to free context (optional instructions)", compact),
    Builtin("export", "Save the session as an HTML page (optional file name)", export),
    Builtin("copy", "Copy the last response to the clipboard", copy),
    Builtin("settings", "Change settings", settings),
    Builtin("reload", "Read settings, key bindings, resources and extensions again", reload, idle_only=True),
    Builtin("hotkeys", "Show the keyboard shortcuts", hotkeys),
    Builtin("debug", "Write pi-debug.log (screen and messages) for a bug report", debug),
    Builtin("bug", "Write a bug report file, secrets redacted (optional description)", report_bug),
    Builtin("quit", "Quit", quit_app),
    Builtin("exit", "Quit", quit_app),
]
