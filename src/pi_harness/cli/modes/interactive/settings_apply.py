"""``/settings``: write a changed setting and apply it to the running screen and session.

As in Pi every item is saved to the global settings file; what Pi applies at once is applied at
once here too (theme, thinking display, editor and output padding, queue modes, transport, the fullscreen
options, the hardware cursor, the HTTP idle timeout …). ``tuiMode`` switches the screen between
fullscreen and regular at once (``view_switch.py``); as in Pi it is refused, and not saved, while
an overlay other than the settings list is open.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenOptions, FullscreenView
from pi_harness.cli.modes.interactive.view_switch import CLOSE_OVERLAYS
from pi_harness.tui.components.autocomplete import clamp_max_visible
from pi_harness.tui.components.settings_items import format_idle_timeout
from pi_harness.tui.ui_settings import UiSettings

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

_FULLSCREEN_OPTIONS = frozenset(
    {"fullscreenScrollbar", "fullscreenExitOutput", "fullscreenCopyOnSelect", "fullscreenWheelScrollLines"}
)


def _save(mode: ModeContext, key: str, value: Any) -> None:
    session = mode.session
    if key == "compaction.enabled":
        session.set_auto_compaction(bool(value))
    elif key == "steeringMode":
        session.set_steering_mode(value)
    elif key == "followUpMode":
        session.set_follow_up_mode(value)
    elif key == "modelThinkingLevels":
        model_key, level = value
        settings = session.settings
        current = settings.scope_value("global", "modelThinkingLevels")
        levels = dict(current) if isinstance(current, dict) else {}
        if level is None:
            levels.pop(model_key, None)
        else:
            levels[model_key] = level
        settings.set("modelThinkingLevels", levels or None)  # the last override removes the key (Pi)
    else:
        session.settings.set(key, value)


def apply_setting(mode: ModeContext, key: str, value: Any) -> bool:
    """Save and apply one change; False when it was refused (the list shows the old value again)."""
    shell = mode.shell
    if key == "tuiMode":
        return _switch_tui_mode(mode, str(value))
    try:
        _save(mode, key, value)
    except Exception as error:
        shell.notice("error", f"Could not save {key}: {error}")
        return True
    _apply(mode, key, value)
    mode.controller.update_footer()
    shell.refresh()
    return True


def _switch_tui_mode(mode: ModeContext, value: str) -> bool:
    shell = mode.shell
    # The fullscreen options as they are now (changed in regular mode, they were only saved).
    current = UiSettings.from_values(mode.session.settings.values)
    ui = dataclasses.replace(
        shell.ui,
        tui_mode="fullscreen" if value == "fullscreen" else "regular",
        fullscreen_exit_output=current.fullscreen_exit_output,
        fullscreen_scrollbar=current.fullscreen_scrollbar,
        fullscreen_copy_on_select=current.fullscreen_copy_on_select,
        fullscreen_wheel_scroll_lines=current.fullscreen_wheel_scroll_lines,
    )
    if not shell.switch.request(ui, keep=shell.top_overlay):
        shell.toast(CLOSE_OVERLAYS)
        return False
    try:
        _save(mode, "tuiMode", ui.tui_mode)
    except Exception as error:
        shell.notice("error", f"Could not save tuiMode: {error}")
    shell.toast(f"TUI mode: {ui.tui_mode}")
    return True


def _apply(mode: ModeContext, key: str, value: Any) -> None:
    shell = mode.shell
    session = mode.session
    if key == "theme":
        problem = mode.apply_theme(str(value))
        if problem is not None:
            shell.notice("error", problem)
    elif key == "hideThinkingBlock":
        if bool(value) != shell.context.hide_thinking:
            mode.toggle_thinking_blocks()
    elif key == "outputPad":
        shell.context.set_output_pad(int(value))
        shell.redraw_all()  # printed blocks too: Pi redraws the whole transcript with the new padding
    elif key == "editorPaddingX":
        shell.editor_view.padding_x = max(0, min(3, int(value)))
    elif key == "autocompleteMaxVisible":
        shell.autocomplete.max_visible = clamp_max_visible(value)
    elif key == "doubleEscapeAction":
        mode.double_escape_action = str(value)
    elif key == "treeFilterMode":
        mode.tree_filter_mode = str(value)
    elif key == "markdown.mermaid":
        shell.context.mermaid = str(value)
        shell.context.changed()  # every message is drawn again, as Pi invalidates the transcript
    elif key == "terminal.showImages":
        shell.context.show_images = bool(value)
        shell.context.changed()
    elif key == "transport":
        session.agent.set_transport(value)
    elif key == "terminal.clearOnShrink":
        shell.set_clear_on_shrink(bool(value))
    elif key == "showHardwareCursor":
        shell.view.set_show_hardware_cursor(bool(value))
    elif key == "httpIdleTimeoutMs":
        session.set_http_idle_timeout_ms(int(value))  # the next request uses it (Pi)
        shell.toast(f"HTTP idle timeout: {format_idle_timeout(int(value))}")
    elif key == "cacheWarming":
        shell.toast(f"Cache warming: {value}")
    elif key == "showCacheMissNotices":
        mode.controller.show_conversation(session)  # the notices come and go with the transcript
    elif key == "modelThinkingLevels":
        _apply_model_thinking(mode, value)
    elif key in _FULLSCREEN_OPTIONS and isinstance(shell.view, FullscreenView):
        shell.view.options = _fullscreen_options(shell.view.options, key, value)  # read at each frame


def _fullscreen_options(options: FullscreenOptions, key: str, value: Any) -> FullscreenOptions:
    if key == "fullscreenScrollbar":
        return dataclasses.replace(options, scrollbar=str(value))
    if key == "fullscreenExitOutput":
        return dataclasses.replace(options, exit_output=str(value))
    if key == "fullscreenCopyOnSelect":
        return dataclasses.replace(options, copy_on_select=bool(value))
    return dataclasses.replace(options, wheel_lines=None if value == "auto" else int(value))


def _apply_model_thinking(mode: ModeContext, value: tuple[str, str | None]) -> None:
    """An override of the current model applies to the session at once; removing it brings back
    the default thinking level (Pi)."""
    session = mode.session
    model = session.model
    model_key, level = value
    if model is None or f"{model['provider']}/{model['id']}" != model_key:
        return
    session.set_thinking_level(level if level is not None else session.settings.values.default_thinking_level)
