"""``ctx.ui`` without a terminal: print/JSON (``HeadlessUI``) and RPC (``RpcExtensionUI``) accept
every member of Pi's ``ExtensionUIContext`` and answer with the documented defaults."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_harness.cli.modes.rpc.ui import RpcExtensionUI
from pi_harness.coding.extensions import ExtensionUI, HeadlessUI

# Pi 1.4.0's ExtensionUIContext members, in snake_case (types.d.ts).
PI_MEMBERS = (
    "select", "confirm", "input", "notify", "on_terminal_input", "set_status", "set_working_message",
    "set_working_visible", "set_working_indicator", "set_hidden_thinking_label", "set_widget", "set_footer",
    "set_header", "set_title", "custom", "paste_to_editor", "set_editor_text", "get_editor_text", "editor",
    "add_autocomplete_provider", "set_editor_component", "get_editor_component", "theme", "get_all_themes",
    "get_theme", "set_theme", "get_tools_expanded", "set_tools_expanded",
)  # fmt: skip


def test_the_protocol_and_both_fallbacks_have_every_pi_member() -> None:
    for owner in (ExtensionUI, HeadlessUI, RpcExtensionUI):
        assert [name for name in PI_MEMBERS if not hasattr(owner, name)] == [], owner


def _terminal_only_calls(ui: Any) -> list[object]:
    unsubscribe = ui.on_terminal_input(lambda data: {"consume": True})
    unsubscribe()
    ui.set_working_message("busy")
    ui.set_working_visible(False)
    ui.set_working_indicator(["●"], interval_ms=100)
    ui.set_hidden_thinking_label("hmm")
    ui.set_footer(lambda context, source: None)
    ui.set_header(lambda context: None)
    ui.set_editor_component(lambda context, editor: None)
    ui.add_autocomplete_provider(lambda below: below)
    ui.set_tools_expanded(True)
    custom = asyncio.run(ui.custom(lambda context, done: None, overlay=True, overlay_options={"width": 10}))
    return [custom, ui.get_editor_component(), ui.get_editor_text(), ui.get_tools_expanded(),
            ui.get_all_themes(), ui.get_theme("dark"), ui.theme]  # fmt: skip


def test_headless_ui_ignores_terminal_features() -> None:
    assert _terminal_only_calls(HeadlessUI()) == [None, None, "", False, [], None, None]


def test_rpc_sends_nothing_for_terminal_only_features() -> None:
    sent: list[Any] = []
    ui = RpcExtensionUI(sent.append)
    assert _terminal_only_calls(ui) == [None, None, "", False, [], None, None]
    assert sent == []
    assert ui.set_theme("light") == {"success": False, "error": "Theme switching not supported in RPC mode"}
