"""/settings rendered headless: Pi 1.4.0's items, the values they store, search and submenus."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.header import Diagnostic, Header, HeaderData
from pi_harness.tui.components.settings_items import SettingItem, setting_items
from pi_harness.tui.components.settings_submenus import (
    ModelChoice,
    ModelThinkingSubmenu,
    ThemeSubmenu,
    WarningsSubmenu,
)
from pi_harness.tui.components.settings_view import SettingsView
from pi_harness.tui.ui_settings import UiSettings

from .conftest import assert_fits, plain

# Pi 1.4.0's /settings in a terminal without inline images, in its order.
PI_LABELS = [
    "Auto-compact", "Auto-resize images", "Block images", "Skill commands", "Show hardware cursor",
    "Editor padding", "Output padding", "Autocomplete max items", "Clear on shrink", "Terminal progress",
    "Steering mode", "Follow-up mode", "Transport", "Session share destination", "HTTP idle timeout",
    "Cache warming", "Hide thinking", "Mermaid diagrams", "Cache miss notices", "Collapse changelog",
    "Quiet startup", "Install telemetry", "Default project trust", "Double-escape action", "Tree filter mode",
    "Warnings", "Default thinking level per model", "TUI mode", "Fullscreen exit output", "Fullscreen scrollbar",
    "Fullscreen copy on select", "Fullscreen wheel scrolling", "Theme",
]  # fmt: skip


def items(data: dict[str, Any] | None = None, **kwargs: Any) -> list[SettingItem]:
    return setting_items(SettingsManager.in_memory(data or {}).values, **kwargs)


def view(context: RenderContext, changes: list[tuple[str, object]], data: dict[str, Any] | None = None,
         **kwargs: Any) -> SettingsView:  # fmt: skip
    return SettingsView(items(data), context, on_change=lambda key, value: changes.append((key, value)), **kwargs)


def search(settings: SettingsView, text: str) -> None:
    for ch in text:
        settings.handle_text(ch)


def test_pi_s_33_items_in_its_order_and_the_two_image_items_where_images_show() -> None:
    assert [item.label for item in items()] == PI_LABELS
    with_images = [item.label for item in items(supports_images=True)]
    assert with_images[:4] == ["Auto-compact", "Show images", "Image width", "Auto-resize images"]
    assert len(with_images) == 35


def test_the_list_scrolls_through_every_label(context: RenderContext) -> None:
    settings = view(context, [])
    seen: list[str] = []
    for _ in PI_LABELS:
        seen.append(settings.selected.label if settings.selected else "")
        assert_fits(settings.render(60), 60)
        settings.handle_action("tui.select.down")
    assert seen == PI_LABELS
    assert "(1/33)" in plain(settings.render(80))  # back at the top: the list wraps


def test_changes_store_pi_s_values(context: RenderContext) -> None:
    changes: list[tuple[str, object]] = []
    settings = view(context, changes, {"httpIdleTimeoutMs": 300_000, "quietStartup": True})
    for query, presses in (("auto-compact", 1), ("http idle", 1), ("default project trust", 2),
                           ("quiet startup", 1), ("editor padding", 2), ("wheel", 2)):  # fmt: skip
        settings.query = ""
        search(settings, query)
        for _ in range(presses):
            settings.handle_action("tui.select.confirm")
    assert changes == [
        ("compaction.enabled", False),
        ("httpIdleTimeoutMs", 0),  # "5 min" -> "disabled"
        ("defaultProjectTrust", "always"),
        ("defaultProjectTrust", "never"),
        ("quietStartup", "header"),
        ("editorPaddingX", 1),
        ("editorPaddingX", 2),
        ("fullscreenWheelScrollLines", 1),
        ("fullscreenWheelScrollLines", 2),
    ]
    assert settings.selected is not None and settings.selected.current == "2"


def test_search_filters_by_label_and_space_changes_only_without_a_query(context: RenderContext) -> None:
    changes: list[tuple[str, object]] = []
    settings = view(context, changes)
    settings.handle_text(" ")  # nothing typed: Space changes the selected item
    assert changes == [("compaction.enabled", False)]
    search(settings, "fullscreen")
    text = plain(settings.render(80))
    assert "Fullscreen scrollbar" in text and "Auto-compact" not in text
    settings.handle_text(" ")  # now it is part of the query
    assert settings.query == "fullscreen " and len(changes) == 1
    search(settings, "zzzz")
    assert "No matching settings" in plain(settings.render(80))
    settings.handle_action("tui.editor.deleteWordBackward")
    assert settings.query == "fullscreen"


def test_the_selected_item_s_description_shows(context: RenderContext) -> None:
    settings = view(context, [])
    search(settings, "block images")
    assert "Never send images to the model provider" in plain(settings.render(80))


def test_theme_submenu_previews_and_restores_on_cancel(context: RenderContext) -> None:
    changes: list[tuple[str, object]] = []
    previews: list[str] = []

    def open_submenu(item: SettingItem, done: Any) -> ThemeSubmenu:
        return ThemeSubmenu(["system", "dark", "light", "paper"], item.current, context,
                            on_change=lambda k, v: changes.append((k, v)), done=done, on_preview=previews.append)  # fmt: skip

    settings = SettingsView(items({"theme": "dark"}), context, on_change=lambda k, v: changes.append((k, v)),
                            open_submenu=open_submenu)  # fmt: skip
    search(settings, "theme")
    settings.handle_action("tui.select.confirm")
    lines = plain(settings.render(80)).split("\n")
    assert any(line.startswith("→ ✓ dark") for line in lines)  # the current theme, marked and selected
    settings.handle_action("tui.select.down")
    assert previews == ["light"]  # the theme under the cursor is shown at once
    settings.handle_action("tui.select.cancel")
    assert previews[-1] == "dark" and changes == []  # cancelled: the old theme is back, nothing saved
    assert settings.submenu is None and settings.selected is not None and settings.selected.current == "dark"

    settings.handle_action("tui.select.confirm")
    settings.handle_action("tui.select.up")  # "automatic"
    settings.handle_action("tui.select.confirm")
    assert "Automatic theme" in plain(settings.render(80))
    settings.handle_action("tui.select.down")  # Dark theme
    settings.handle_action("tui.select.confirm")
    settings.handle_action("tui.select.down")  # dark -> light
    settings.handle_action("tui.select.down")  # light -> paper
    settings.handle_action("tui.select.confirm")
    assert previews[-1] == "dark/paper"
    settings.handle_action("tui.select.down")  # back on "Dark theme": down to Apply
    settings.handle_action("tui.select.confirm")
    assert changes == [("theme", "dark/paper")]
    assert settings.submenu is None and settings.selected is not None and settings.selected.current == "dark/paper"


def test_model_thinking_submenu_sets_and_clears_overrides(context: RenderContext) -> None:
    changes: list[tuple[str, object]] = []
    shown: list[str | None] = []
    models = [ModelChoice("p/plain", "plain [p]", ("off",)), ModelChoice("q/deep", "deep [q]", ("off", "low", "high"))]
    submenu = ModelThinkingSubmenu(models, {}, context, on_change=lambda k, v: changes.append((k, v)),
                                   done=shown.append, current_key="q/deep")  # fmt: skip
    text = plain(submenu.render(80))
    assert text.index("deep [q]") < text.index("plain [p]")  # the current model first
    submenu.handle_action("tui.select.confirm")
    assert "Thinking level for deep [q]" in plain(submenu.render(80))
    submenu.handle_action("tui.select.down")
    submenu.handle_action("tui.select.down")
    submenu.handle_action("tui.select.confirm")  # high
    assert changes == [("modelThinkingLevels", ("q/deep", "high"))]
    assert "high" in plain(submenu.render(80))  # back at the models, the override beside its model
    submenu.handle_action("tui.select.confirm")
    assert "(clear override)" in plain(submenu.render(80))
    submenu.handle_action("tui.select.down")  # from the active "high" to the last row: clear
    submenu.handle_action("tui.select.confirm")
    assert changes[-1] == ("modelThinkingLevels", ("q/deep", None))
    submenu.handle_action("tui.select.cancel")
    assert shown == ["none"]


def test_warnings_submenu_toggles_the_anthropic_warning(context: RenderContext) -> None:
    changes: list[tuple[str, object]] = []
    closed: list[str | None] = []
    submenu = WarningsSubmenu(True, context, on_change=lambda k, v: changes.append((k, v)), done=closed.append)
    assert "Anthropic extra usage" in plain(submenu.render(80)) and "true" in plain(submenu.render(80))
    submenu.handle_action("tui.select.confirm")
    assert changes == [("warnings.anthropicExtraUsage", False)] and "false" in plain(submenu.render(80))
    submenu.handle_text(" ")
    assert changes[-1] == ("warnings.anthropicExtraUsage", True)
    submenu.handle_action("tui.select.cancel")
    assert closed == [None]


def test_quiet_startup_header_keeps_the_title_without_the_lists(context: RenderContext) -> None:
    data = HeaderData(version="1.0", skills=["lint"], diagnostics=[Diagnostic("warning", "a problem")])
    full = plain(Header(data, context).render(80))
    assert "pi v1.0" in full and "[Skills]" in full
    header_only = plain(Header(replace(data, details=False), context).render(80))
    assert "pi v1.0" in header_only and "[Skills]" not in header_only and "a problem" in header_only
    assert UiSettings.from_values(SettingsManager.in_memory({"quietStartup": "header"}).values).startup_details is False
