"""``/settings``: the interactive settings, each with its choices; Enter moves to the next value.

The view only reports changes through ``on_change(key, value)``; the caller writes them to the
settings file and applies them (theme, thinking display, editor padding …).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


@dataclass
class SettingItem:
    key: str  # dotted settings key, e.g. "terminal.showImages"
    label: str
    values: tuple[Any, ...]
    current: Any
    description: str = ""


def _get(settings: Mapping[str, object], key: str, default: Any) -> Any:
    value: Any = settings
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return default
        value = value[part]
    return value


def default_setting_items(settings: Mapping[str, object], theme_names: Sequence[str]) -> list[SettingItem]:
    """The settings the interactive UI lets you change, with their current (effective) values."""

    def item(key: str, label: str, values: Sequence[Any], default: Any, description: str) -> SettingItem:
        return SettingItem(key, label, tuple(values), _get(settings, key, default), description)

    booleans = (True, False)
    return [
        item("theme", "Theme", theme_names or ("dark", "light"), "dark", "Colours of the interface"),
        item("defaultThinkingLevel", "Default thinking level", THINKING_LEVELS, "medium",
             "Reasoning effort for new sessions"),
        item("hideThinkingBlock", "Hide thinking", booleans, False, "Collapse thinking blocks to one line"),
        item("steeringMode", "Steering delivery", ("one-at-a-time", "all"), "one-at-a-time",
             "How queued steering messages reach the agent"),
        item("followUpMode", "Follow-up delivery", ("one-at-a-time", "all"), "one-at-a-time",
             "How queued follow-up messages reach the agent"),
        item("compaction.enabled", "Auto-compaction", booleans, True, "Compact the conversation when it gets long"),
        item("doubleEscapeAction", "Double Escape", ("tree", "fork", "none"), "tree",
             "What pressing Escape twice opens"),
        item("treeFilterMode", "Tree filter", ("default", "no-tools", "user-only", "labeled-only", "all"), "default",
             "Initial filter of /tree"),
        item("editorPaddingX", "Editor padding", (0, 1, 2, 3), 0, "Horizontal padding inside the editor"),
        item("autocompleteMaxVisible", "Autocomplete rows", (3, 5, 8, 10, 15, 20), 5,
             "Suggestions shown at once"),
        item("terminal.showImages", "Show images", booleans, True, "Display images in the terminal when supported"),
        item("quietStartup", "Quiet startup", booleans, False, "Skip the startup header"),
        item("collapseChangelog", "Collapse changelog", booleans, False, "Show a short changelog after updates"),
    ]  # fmt: skip


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


class SettingsView:
    def __init__(
        self,
        items: Sequence[SettingItem],
        context: RenderContext,
        *,
        on_change: Callable[[str, Any], None] | None = None,
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
