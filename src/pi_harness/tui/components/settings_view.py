"""``/settings``: the interactive settings, each with its choices; Enter moves to the next value.

The view only reports changes through ``on_change(key, value)``; the caller writes them to the
settings file and applies them (theme, thinking display, editor padding …).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pi_harness.ai.types import THINKING_LEVELS
from pi_harness.coding.config.settings_model import DOUBLE_ESCAPE_ACTIONS, TREE_FILTER_MODES, Settings, parse_settings
from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector

__all__ = ["THINKING_LEVELS", "SettingItem", "SettingsView", "default_setting_items"]  # cmd_model takes THINKING_LEVELS


@dataclass
class SettingItem:
    key: str  # dotted settings key, e.g. "terminal.showImages"
    label: str
    values: tuple[object, ...]
    current: object
    description: str = ""


def default_setting_items(settings: Mapping[str, object] | Settings, theme_names: Sequence[str]) -> list[SettingItem]:
    """The settings the interactive UI lets you change, with their current values (from the
    settings model, or from effective settings given as a JSON object)."""
    values = settings if isinstance(settings, Settings) else parse_settings(settings)[0]

    def item(key: str, label: str, choices: Sequence[object], current: object, description: str) -> SettingItem:
        return SettingItem(key, label, tuple(choices), current, description)

    booleans = (True, False)
    return [
        item("theme", "Theme", theme_names or ("dark", "light"), values.theme, "Colours of the interface"),
        item("defaultThinkingLevel", "Default thinking level", THINKING_LEVELS, values.default_thinking_level,
             "Reasoning effort for new sessions"),
        item("hideThinkingBlock", "Hide thinking", booleans, values.hide_thinking_block,
             "Collapse thinking blocks to one line"),
        item("steeringMode", "Steering delivery", ("one-at-a-time", "all"), values.steering_mode,
             "How queued steering messages reach the agent"),
        item("followUpMode", "Follow-up delivery", ("one-at-a-time", "all"), values.follow_up_mode,
             "How queued follow-up messages reach the agent"),
        item("compaction.enabled", "Auto-compaction", booleans, values.compaction.enabled,
             "Compact the conversation when it gets long"),
        item("doubleEscapeAction", "Double Escape", DOUBLE_ESCAPE_ACTIONS, values.double_escape_action,
             "What pressing Escape twice opens"),
        item("treeFilterMode", "Tree filter", TREE_FILTER_MODES, values.tree_filter_mode, "Initial filter of /tree"),
        item("editorPaddingX", "Editor padding", (0, 1, 2, 3), values.editor_padding_x,
             "Horizontal padding inside the editor"),
        item("autocompleteMaxVisible", "Autocomplete rows", (3, 5, 8, 10, 15, 20), values.autocomplete_max_visible,
             "Suggestions shown at once"),
        item("terminal.showImages", "Show images", booleans, values.terminal.show_images,
             "Display images in the terminal when supported"),
        item("quietStartup", "Quiet startup", booleans, values.quiet_startup, "Skip the startup header"),
        item("collapseChangelog", "Collapse changelog", booleans, values.collapse_changelog,
             "Show a short changelog after updates"),
    ]  # fmt: skip


def _format(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


class SettingsView:
    def __init__(
        self,
        items: Sequence[SettingItem],
        context: RenderContext,
        *,
        on_change: Callable[[str, object], None] | None = None,
        on_close: Callable[[], None] | None = None,
        max_visible: int = 12,
    ) -> None:
        self.context = context
        self.items = list(items)
        self.on_change = on_change
        self.selector: Selector[str] = Selector(
            [], context, title="Settings", max_visible=max_visible, on_select=self._cycle, on_cancel=on_close,
            empty_text="No matching settings",
        )  # fmt: skip
        keys = context.key
        self.selector.hint = f"{keys('tui.select.confirm')} change · {keys('tui.select.cancel')} close"
        self._rebuild()

    def _rebuild(self) -> None:
        self.selector.set_items(
            [SelectItem(item.key, item.label, _format(item.current), search_text=f"{item.label} {item.key}")
             for item in self.items]
        )  # fmt: skip

    def _cycle(self, key: str) -> None:
        self.selector.chosen = None  # the view stays open after a change
        item = next(i for i in self.items if i.key == key)
        index = item.values.index(item.current) if item.current in item.values else -1
        item.current = item.values[(index + 1) % len(item.values)]
        self._rebuild()
        if self.on_change is not None:
            self.on_change(item.key, item.current)

    @property
    def done(self) -> bool:
        return self.selector.cancelled

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        return self.selector.handle_action(action)

    def render(self, width: int) -> list[str]:
        lines = self.selector.render(width)
        selected = self.selector.selected
        if selected is not None:
            item = next(i for i in self.items if i.key == selected.value)
            if item.description:
                lines.insert(
                    -2 if self.selector.hint else -1,
                    truncate(self.context.theme.fg("muted", f"  {item.description}"), width),
                )
        return lines
