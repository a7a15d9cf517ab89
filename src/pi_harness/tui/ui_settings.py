"""The settings the interactive UI reads (resources.md section 2.2), with defaults and clamping."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pi_harness.tui.components.autocomplete import clamp_max_visible

DoubleEscapeAction = Literal["tree", "fork", "none"]
TREE_FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")


def _get(settings: Mapping[str, Any], dotted: str) -> Any:
    value: Any = settings
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


@dataclass(frozen=True)
class UiSettings:
    theme: str | None = None  # None: not chosen yet (first run: detect the terminal background)
    hide_thinking_block: bool = False
    editor_padding_x: int = 0
    autocomplete_max_visible: int = 5
    code_block_indent: str = "  "
    show_images: bool = True
    double_escape_action: DoubleEscapeAction = "tree"
    tree_filter_mode: str = "default"
    show_hardware_cursor: bool = False
    quiet_startup: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> UiSettings:
        """From the effective (merged) settings; wrong types fall back to the defaults."""

        def flag(key: str, default: bool) -> bool:
            value = _get(settings, key)
            return value if isinstance(value, bool) else default

        padding = _get(settings, "editorPaddingX")
        indent = _get(settings, "markdown.codeBlockIndent")
        escape = _get(settings, "doubleEscapeAction")
        tree = _get(settings, "treeFilterMode")
        theme = _get(settings, "theme")
        return cls(
            theme=theme if isinstance(theme, str) and theme else None,
            hide_thinking_block=flag("hideThinkingBlock", False),
            editor_padding_x=max(0, min(3, padding))
            if isinstance(padding, int) and not isinstance(padding, bool)
            else 0,
            autocomplete_max_visible=clamp_max_visible(_get(settings, "autocompleteMaxVisible")),
            code_block_indent=indent if isinstance(indent, str) else "  ",
            show_images=flag("terminal.showImages", True),
            double_escape_action=escape if escape in ("tree", "fork", "none") else "tree",
            tree_filter_mode=tree if tree in TREE_FILTER_MODES else "default",
            show_hardware_cursor=flag("showHardwareCursor", False),
            quiet_startup=flag("quietStartup", False),
        )
