"""``/settings``: write a changed setting and apply it to the running screen and session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_harness.tui.components.autocomplete import clamp_max_visible

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext


def apply_setting(mode: ModeContext, key: str, value: Any) -> None:
    shell = mode.shell
    session = mode.session
    try:
        if key == "compaction.enabled":
            session.set_auto_compaction(bool(value))
        elif key == "steeringMode":
            session.set_steering_mode(value)
        elif key == "followUpMode":
            session.set_follow_up_mode(value)
        else:
            session.settings.set(key, value)
    except Exception as error:
        shell.notice("error", f"Could not save {key}: {error}")
        return
    if key == "theme":
        problem = mode.apply_theme(str(value))
        if problem is not None:
            shell.notice("error", problem)
    elif key == "hideThinkingBlock":
        if bool(value) != shell.context.hide_thinking:
            mode.toggle_thinking_blocks()
    elif key == "editorPaddingX":
        shell.editor_view.padding_x = max(0, min(3, int(value)))
    elif key == "autocompleteMaxVisible":
        shell.autocomplete.max_visible = clamp_max_visible(value)
    elif key == "doubleEscapeAction":
        mode.double_escape_action = str(value)
    elif key == "treeFilterMode":
        mode.tree_filter_mode = str(value)
    elif key == "terminal.showImages":
        shell.context.show_images = bool(value)
        shell.context.changed()
    mode.controller.update_footer()
    shell.refresh()
