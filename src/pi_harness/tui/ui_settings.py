"""The settings the interactive UI reads, taken from the typed settings model.

The model has already checked and clamped the values (``editorPaddingX`` 0..3,
``autocompleteMaxVisible`` 3..20; a wrong type gives the default), so this is a plain selection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from pi_harness.coding.config.settings_model import DoubleEscapeAction, Settings, TuiMode
from pi_harness.tui.capabilities import (
    TerminalCapabilities,
    apply_settings,
    detect_capabilities,
    tmux_forwards_hyperlinks,
)
from pi_harness.tui.colors import ColorMode

__all__ = ["UiSettings", "color_mode", "screen_capabilities"]


@dataclass(frozen=True)
class UiSettings:
    # The effective ``theme`` setting. The screen's theme is chosen apart from it (the interactive
    # startup's ``theme_name``): without a theme in a settings file it matches the terminal.
    theme: str | None = None
    hide_thinking_block: bool = False
    editor_padding_x: int = 0
    output_pad: int = 1
    autocomplete_max_visible: int = 5
    code_block_indent: str = "  "
    mermaid: str = "streaming"
    show_images: bool = True
    image_width_cells: int = 60
    show_terminal_progress: bool = False
    hyperlinks: str | bool = "auto"  # terminal.hyperlinks
    images: str | bool = "auto"  # terminal.images: "kitty" | "iterm2" | "auto" | False
    true_color: str | bool = "auto"
    double_escape_action: DoubleEscapeAction = "tree"
    tree_filter_mode: str = "default"
    show_hardware_cursor: bool = False
    quiet_startup: bool = False
    startup_details: bool = True  # quietStartup "header": the header without the loaded resources
    tui_mode: TuiMode = "fullscreen"
    fullscreen_exit_output: str = "transcript"
    fullscreen_scrollbar: str = "auto"
    fullscreen_copy_on_select: bool = True
    fullscreen_wheel_scroll_lines: int | None = None  # None: "auto"
    clear_on_shrink: bool = False  # terminal.clearOnShrink (regular mode)

    @classmethod
    def from_values(cls, values: Settings) -> UiSettings:
        """From the settings model (``SettingsManager.values``)."""
        wheel = values.fullscreen_wheel_scroll_lines
        return cls(
            theme=values.theme,
            hide_thinking_block=values.hide_thinking_block,
            editor_padding_x=values.editor_padding_x,
            output_pad=values.output_pad,
            autocomplete_max_visible=values.autocomplete_max_visible,
            code_block_indent=values.markdown.code_block_indent,
            mermaid=values.markdown.mermaid,
            show_images=values.terminal.show_images,
            image_width_cells=values.terminal.image_width_cells,
            show_terminal_progress=values.terminal.show_terminal_progress,
            hyperlinks=values.terminal.hyperlinks,
            images=values.terminal.images,
            true_color=values.terminal.true_color,
            double_escape_action=values.double_escape_action,
            tree_filter_mode=values.tree_filter_mode,
            show_hardware_cursor=values.show_hardware_cursor,
            quiet_startup=values.quiet_startup is True,
            startup_details=values.quiet_startup is False,
            tui_mode=values.tui_mode,
            fullscreen_exit_output=values.fullscreen_exit_output,
            fullscreen_scrollbar=values.fullscreen_scrollbar,
            fullscreen_copy_on_select=values.fullscreen_copy_on_select,
            fullscreen_wheel_scroll_lines=wheel if isinstance(wheel, int) else None,
            clear_on_shrink=values.terminal.clear_on_shrink,
        )


def screen_capabilities(
    ui: UiSettings, env: Mapping[str, str], tmux_hyperlinks: Callable[[], bool] = tmux_forwards_hyperlinks
) -> TerminalCapabilities:
    """What the interactive screen may send: detected, then the ``terminal.*`` settings.

    Fullscreen mode places kitty images over each frame and keeps OSC 8 links cell by cell (the
    ``kitty`` and ``links`` modules of ``cli/modes/interactive/fullscreen``), as Pi does; iTerm2's
    inline images, which cannot be moved or taken away once drawn, stay placeholders there, as
    in Pi.
    """
    detected = detect_capabilities(env, tmux_hyperlinks)
    chosen = apply_settings(detected, images=ui.images, hyperlinks=ui.hyperlinks, true_color=ui.true_color)
    if ui.tui_mode == "fullscreen" and chosen.images == "iterm2":
        return replace(chosen, images=None)
    return chosen


def color_mode(ui: UiSettings, env: Mapping[str, str]) -> ColorMode:
    """Truecolor where the terminal is known to have it (or ``terminal.trueColor`` says so), else 256 colours."""
    detected = detect_capabilities(env, lambda: False)  # links do not matter here: no tmux probe
    return "truecolor" if apply_settings(detected, true_color=ui.true_color).true_color else "256"
