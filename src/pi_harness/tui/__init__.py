"""Terminal components of interactive mode (prompt_toolkit for input and layout, rich for rendering).

Every component is data plus ``render(width) -> list[str]`` (ANSI lines never wider than
``width`` cells), so screens can be tested without a terminal. ``Transcript`` turns
AgentSession events into blocks for the scrollback and the live area, ``BottomPane`` composes
the bottom of the screen, and ``pi_harness.tui.pt_view``/``pt_keys`` connect them to
prompt_toolkit (imported only when used). Nothing outside this package imports prompt_toolkit
or rich, and names are imported on first use, so ``pi_harness.tui.export_html`` (used by RPC's
``export_html``) does not load the terminal components.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.tui.ansi import strip_ansi, truncate, visible_width, wrap
    from pi_harness.tui.colors import ColorMode, detect_color_mode
    from pi_harness.tui.components.assistant_message import AssistantMessageView
    from pi_harness.tui.components.autocomplete import Autocomplete, CommandInfo, CompletionItem, clamp_max_visible
    from pi_harness.tui.components.base import Component, RenderContext
    from pi_harness.tui.components.dialogs import ConfirmDialog, InputDialog, SelectDialog, StatusBar, Toasts, Widgets
    from pi_harness.tui.components.editor import Editor, Submission
    from pi_harness.tui.components.editor_view import EditorView
    from pi_harness.tui.components.footer import (
        Footer,
        FooterData,
        UsageTotals,
        context_tokens,
        git_branch,
        usage_totals,
    )
    from pi_harness.tui.components.header import Diagnostic, Header, HeaderData
    from pi_harness.tui.components.model_selector import ModelSelector
    from pi_harness.tui.components.notices import Notice, WorkingIndicator
    from pi_harness.tui.components.queue import QueueView
    from pi_harness.tui.components.selector import SelectItem, Selector
    from pi_harness.tui.components.session_picker import SessionPicker
    from pi_harness.tui.components.settings_view import SettingItem, SettingsView, default_setting_items
    from pi_harness.tui.components.tool_call import ToolCallView
    from pi_harness.tui.components.tree_selector import TreeSelector
    from pi_harness.tui.components.trust_prompt import TRUST_TITLE, TrustPrompt
    from pi_harness.tui.components.user_message import UserMessageView
    from pi_harness.tui.export_html import default_export_name, export_html
    from pi_harness.tui.file_index import FileIndex
    from pi_harness.tui.keybindings import DEFAULT_KEYBINDINGS, KeyMap, RepeatDetector
    from pi_harness.tui.markdown import MarkdownRenderer
    from pi_harness.tui.screen import BottomPane, ScreenFrame
    from pi_harness.tui.theme import Theme, ThemeSpec, load_theme, load_theme_file, parse_theme
    from pi_harness.tui.theme_registry import ThemeRegistry, detect_default_theme
    from pi_harness.tui.transcript import Transcript
    from pi_harness.tui.ui_settings import UiSettings

_LAZY = {
    "AssistantMessageView": "pi_harness.tui.components.assistant_message",
    "Autocomplete": "pi_harness.tui.components.autocomplete",
    "BottomPane": "pi_harness.tui.screen",
    "ColorMode": "pi_harness.tui.colors",
    "CommandInfo": "pi_harness.tui.components.autocomplete",
    "CompletionItem": "pi_harness.tui.components.autocomplete",
    "Component": "pi_harness.tui.components.base",
    "ConfirmDialog": "pi_harness.tui.components.dialogs",
    "DEFAULT_KEYBINDINGS": "pi_harness.tui.keybindings",
    "Diagnostic": "pi_harness.tui.components.header",
    "Editor": "pi_harness.tui.components.editor",
    "EditorView": "pi_harness.tui.components.editor_view",
    "FileIndex": "pi_harness.tui.file_index",
    "Footer": "pi_harness.tui.components.footer",
    "FooterData": "pi_harness.tui.components.footer",
    "Header": "pi_harness.tui.components.header",
    "HeaderData": "pi_harness.tui.components.header",
    "InputDialog": "pi_harness.tui.components.dialogs",
    "KeyMap": "pi_harness.tui.keybindings",
    "MarkdownRenderer": "pi_harness.tui.markdown",
    "ModelSelector": "pi_harness.tui.components.model_selector",
    "Notice": "pi_harness.tui.components.notices",
    "QueueView": "pi_harness.tui.components.queue",
    "RenderContext": "pi_harness.tui.components.base",
    "RepeatDetector": "pi_harness.tui.keybindings",
    "ScreenFrame": "pi_harness.tui.screen",
    "SelectDialog": "pi_harness.tui.components.dialogs",
    "SelectItem": "pi_harness.tui.components.selector",
    "Selector": "pi_harness.tui.components.selector",
    "SessionPicker": "pi_harness.tui.components.session_picker",
    "SettingItem": "pi_harness.tui.components.settings_view",
    "SettingsView": "pi_harness.tui.components.settings_view",
    "StatusBar": "pi_harness.tui.components.dialogs",
    "Submission": "pi_harness.tui.components.editor",
    "TRUST_TITLE": "pi_harness.tui.components.trust_prompt",
    "Theme": "pi_harness.tui.theme",
    "ThemeRegistry": "pi_harness.tui.theme_registry",
    "ThemeSpec": "pi_harness.tui.theme",
    "Toasts": "pi_harness.tui.components.dialogs",
    "ToolCallView": "pi_harness.tui.components.tool_call",
    "Transcript": "pi_harness.tui.transcript",
    "TreeSelector": "pi_harness.tui.components.tree_selector",
    "TrustPrompt": "pi_harness.tui.components.trust_prompt",
    "UiSettings": "pi_harness.tui.ui_settings",
    "UsageTotals": "pi_harness.tui.components.footer",
    "UserMessageView": "pi_harness.tui.components.user_message",
    "Widgets": "pi_harness.tui.components.dialogs",
    "WorkingIndicator": "pi_harness.tui.components.notices",
    "clamp_max_visible": "pi_harness.tui.components.autocomplete",
    "context_tokens": "pi_harness.tui.components.footer",
    "default_export_name": "pi_harness.tui.export_html",
    "default_setting_items": "pi_harness.tui.components.settings_view",
    "detect_color_mode": "pi_harness.tui.colors",
    "detect_default_theme": "pi_harness.tui.theme_registry",
    "export_html": "pi_harness.tui.export_html",
    "git_branch": "pi_harness.tui.components.footer",
    "load_theme": "pi_harness.tui.theme",
    "load_theme_file": "pi_harness.tui.theme",
    "parse_theme": "pi_harness.tui.theme",
    "strip_ansi": "pi_harness.tui.ansi",
    "truncate": "pi_harness.tui.ansi",
    "usage_totals": "pi_harness.tui.components.footer",
    "visible_width": "pi_harness.tui.ansi",
    "wrap": "pi_harness.tui.ansi",
}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)


__all__ = [
    "DEFAULT_KEYBINDINGS",
    "TRUST_TITLE",
    "AssistantMessageView",
    "Autocomplete",
    "BottomPane",
    "ColorMode",
    "CommandInfo",
    "CompletionItem",
    "Component",
    "ConfirmDialog",
    "Diagnostic",
    "Editor",
    "EditorView",
    "FileIndex",
    "Footer",
    "FooterData",
    "Header",
    "HeaderData",
    "InputDialog",
    "KeyMap",
    "MarkdownRenderer",
    "ModelSelector",
    "Notice",
    "QueueView",
    "RenderContext",
    "RepeatDetector",
    "ScreenFrame",
    "SelectDialog",
    "SelectItem",
    "Selector",
    "SessionPicker",
    "SettingItem",
    "SettingsView",
    "StatusBar",
    "Submission",
    "Theme",
    "ThemeRegistry",
    "ThemeSpec",
    "Toasts",
    "ToolCallView",
    "Transcript",
    "TreeSelector",
    "TrustPrompt",
    "UiSettings",
    "UsageTotals",
    "UserMessageView",
    "Widgets",
    "WorkingIndicator",
    "clamp_max_visible",
    "context_tokens",
    "default_export_name",
    "default_setting_items",
    "detect_color_mode",
    "detect_default_theme",
    "export_html",
    "git_branch",
    "load_theme",
    "load_theme_file",
    "parse_theme",
    "strip_ansi",
    "truncate",
    "usage_totals",
    "visible_width",
    "wrap",
]
