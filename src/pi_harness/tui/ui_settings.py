"""The settings the interactive UI reads, taken from the typed settings model.

The model has already checked and clamped the values (``editorPaddingX`` 0..3,
``autocompleteMaxVisible`` 3..20; a wrong type gives the default), so this is a plain selection.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_harness.coding.config.settings_model import DoubleEscapeAction, Settings, TuiMode

__all__ = ["UiSettings"]


@dataclass(frozen=True)
class UiSettings:
    # The effective ``theme`` setting. The screen's theme is chosen apart from it (the interactive
    # startup's ``theme_name``): without a theme in a settings file it matches the terminal.
    theme: str | None = None
    hide_thinking_block: bool = False
    editor_padding_x: int = 0
    autocomplete_max_visible: int = 5
    code_block_indent: str = "  "
    show_images: bool = True
    double_escape_action: DoubleEscapeAction = "tree"
    tree_filter_mode: str = "default"
    show_hardware_cursor: bool = False
    quiet_startup: bool = False
    startup_header_only: bool = False  # quietStartup "header": the header without the resource lists
    tui_mode: TuiMode = "fullscreen"
    fullscreen_exit_output: str = "transcript"
    fullscreen_scrollbar: str = "auto"
    fullscreen_copy_on_select: bool = True
    fullscreen_wheel_scroll_lines: int | None = None  # None: "auto"

    @classmethod
    def from_values(cls, values: Settings) -> UiSettings:
        """From the settings model (``SettingsManager.values``)."""
        wheel = values.fullscreen_wheel_scroll_lines
        return cls(
            theme=values.theme,
            hide_thinking_block=values.hide_thinking_block,
            editor_padding_x=values.editor_padding_x,
            autocomplete_max_visible=values.autocomplete_max_visible,
            code_block_indent=values.markdown.code_block_indent,
            show_images=values.terminal.show_images,
            double_escape_action=values.double_escape_action,
            tree_filter_mode=values.tree_filter_mode,
            show_hardware_cursor=values.show_hardware_cursor,
            quiet_startup=values.quiet_startup is True,
            startup_header_only=values.quiet_startup == "header",
            tui_mode=values.tui_mode,
            fullscreen_exit_output=values.fullscreen_exit_output,
            fullscreen_scrollbar=values.fullscreen_scrollbar,
            fullscreen_copy_on_select=values.fullscreen_copy_on_select,
            fullscreen_wheel_scroll_lines=wheel if isinstance(wheel, int) else None,
        )
