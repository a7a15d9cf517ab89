"""``/settings``: Pi's list of settings (``settings_items.py``), each with its current value.

Typing filters the list by label; Enter (or Space while nothing is typed) moves an item to its
next value, or opens the item's submenu, which is then drawn and fed keys in place of the list
until it is done. The selected item's description shows under the list.

The view only reports changes through ``on_change(key, value)``; the caller writes them to the
settings file and applies them (theme, thinking display, editor padding …).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from pi_harness.tui.ansi import pad, truncate, visible_width
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.list_cursor import moved_index
from pi_harness.tui.components.selector import scroll_start
from pi_harness.tui.components.settings_items import SettingItem, setting_items
from pi_harness.tui.fuzzy import fuzzy_filter
from pi_harness.tui.theme import inverse

__all__ = ["SettingItem", "SettingsView", "Submenu", "default_setting_items"]

default_setting_items = setting_items  # the name the package exported before Pi's list


class Submenu(Protocol):
    def render(self, width: int) -> list[str]: ...
    def handle_action(self, action: str) -> bool: ...
    def handle_text(self, text: str) -> bool: ...


# (the item, done(shown value or None)) -> the submenu to show
SubmenuFactory = Callable[[SettingItem, Callable[[str | None], None]], Submenu | None]
MAX_LABEL_WIDTH = 36


class SettingsView:
    def __init__(
        self,
        items: Sequence[SettingItem],
        context: RenderContext,
        *,
        on_change: Callable[[str, object], None] | None = None,
        on_close: Callable[[], None] | None = None,
        open_submenu: SubmenuFactory | None = None,
        max_visible: int = 10,
    ) -> None:
        self.context = context
        self.items = list(items)
        self.on_change = on_change
        self.on_close = on_close
        self.open_submenu = open_submenu
        self.max_visible = max(3, max_visible)
        self.query = ""
        self.shown = list(self.items)
        self.index = 0
        self.submenu: Submenu | None = None
        self.cancelled = False
        self._scroll = 0

    # --- state -------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.cancelled

    @property
    def selected(self) -> SettingItem | None:
        return self.shown[self.index] if self.shown else None

    def item(self, item_id: str) -> SettingItem | None:
        return next((item for item in self.items if item.id == item_id), None)

    def set_value(self, item_id: str, shown: str) -> None:
        """Show another current value (the caller refused or adjusted a change)."""
        item = self.item(item_id)
        if item is not None:
            item.current = shown

    def _refilter(self) -> None:
        query = self.query
        self.shown = fuzzy_filter(self.items, query, key=lambda item: item.label) if query else list(self.items)
        self.index = 0

    # --- input -------------------------------------------------------------------------------

    def activate(self) -> None:
        item = self.selected
        if item is None:
            return
        if item.submenu is not None:
            if self.open_submenu is None:
                return

            def done(shown: str | None) -> None:
                if shown is not None:
                    item.current = shown
                self.submenu = None

            self.submenu = self.open_submenu(item, done)
            return
        if not item.values:
            return
        position = item.values.index(item.current) if item.current in item.values else -1
        item.current = item.values[(position + 1) % len(item.values)]
        if self.on_change is not None:
            self.on_change(item.key, item.parse(item.current))

    def handle_text(self, text: str) -> bool:
        if self.submenu is not None:
            return self.submenu.handle_text(text)
        if text == " " and not self.query:
            self.activate()
            return True
        self.query += text
        self._refilter()
        return True

    def handle_action(self, action: str) -> bool:
        if self.submenu is not None:
            self.submenu.handle_action(action)
            return True  # a submenu is modal: nothing reaches the screen behind it
        count = len(self.shown)
        moved = moved_index(action, self.index, count, self.max_visible)
        if moved is not None:
            self.index = moved
        elif action == "tui.select.confirm":
            self.activate()
        elif action == "tui.select.cancel":
            self.cancelled = True
            if self.on_close is not None:
                self.on_close()
        elif action == "tui.editor.deleteCharBackward" and self.query:
            self.query = self.query[:-1]
            self._refilter()
        elif action == "tui.editor.deleteWordBackward" and self.query:
            self.query = self.query.rstrip().rpartition(" ")[0]
            self._refilter()
        else:
            return action.startswith("tui.select.")
        return True

    # --- drawing -----------------------------------------------------------------------------

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("borderAccent", "─" * width)
        if self.submenu is not None:
            return self.submenu.render(width)
        lines = [
            rule,
            truncate(theme.style("Settings", "accent", bold=True), width),
            truncate(theme.fg("muted", "> ") + self.query + inverse(" "), width),
        ]
        if not self.shown:
            lines.append(truncate(theme.fg("muted", "  No matching settings"), width))
        label_width = min(MAX_LABEL_WIDTH, max((visible_width(item.label) for item in self.items), default=0))
        self._scroll = scroll_start(self.index, len(self.shown), self.max_visible, self._scroll)
        for position in range(self._scroll, min(len(self.shown), self._scroll + self.max_visible)):
            item = self.shown[position]
            chosen = position == self.index
            head = ("→ " if chosen else "  ") + pad(truncate(item.label, label_width), label_width)
            value = truncate(item.current, max(1, width - visible_width(head) - 2))
            line = (theme.style(head, "accent", bold=True) if chosen else head) + "  " + (
                theme.fg("accent", value) if chosen else theme.fg("muted", value))  # fmt: skip
            lines.append(truncate(line, width))
        if len(self.shown) > self.max_visible:
            lines.append(truncate(theme.fg("muted", f"  ({self.index + 1}/{len(self.shown)})"), width))
        selected = self.selected
        if selected is not None and selected.description:
            lines.append(truncate(theme.fg("muted", f"  {selected.description}"), width))
        keys = self.context.key
        hint = (f"type to search · {keys('tui.select.confirm')}/space change · "
                f"{keys('tui.select.cancel')} close")  # fmt: skip
        lines.append(truncate(theme.fg("dim", hint), width))
        lines.append(rule)
        return lines
