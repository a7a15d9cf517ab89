"""A filterable list: type to filter (fuzzy), move with the ``tui.select.*`` keys, Enter to choose.

Used directly for simple choices and as the core of the model, session, settings and dialog
selectors. The outcome goes to ``on_select(value)`` / ``on_cancel()`` and is also kept in
``chosen`` / ``cancelled``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pi_harness.tui.ansi import pad, truncate, visible_width
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.fuzzy import fuzzy_filter
from pi_harness.tui.theme import inverse

T = TypeVar("T")


@dataclass(frozen=True)
class SelectItem(Generic[T]):
    value: T
    label: str
    detail: str = ""
    search_text: str = ""  # what the filter matches; label and detail when empty
    marker: str = ""  # shown before the label, e.g. "✓" for the current model

    @property
    def haystack(self) -> str:
        return self.search_text or f"{self.label} {self.detail}"


def scroll_start(selected: int, count: int, visible: int, current: int) -> int:
    """The first visible row keeping ``selected`` on screen, moving as little as possible."""
    if count <= visible:
        return 0
    if selected < current:
        return selected
    if selected >= current + visible:
        return selected - visible + 1
    return max(0, min(current, count - visible))


class Selector(Generic[T]):
    def __init__(
        self,
        items: Sequence[SelectItem[T]],
        context: RenderContext,
        *,
        title: str | None = None,
        hint: str | None = None,
        filterable: bool = True,
        max_visible: int = 10,
        on_select: Callable[[T], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        empty_text: str = "No matches",
        initial: T | None = None,
    ) -> None:
        self.context = context
        self.title = title
        self.hint = hint
        self.filterable = filterable
        self.max_visible = max(1, max_visible)
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.empty_text = empty_text
        self.sort_by_score = True  # False: matches keep the items' order (e.g. most recent first)
        self.query = ""
        self.items: list[SelectItem[T]] = list(items)
        self.filtered: list[SelectItem[T]] = list(self.items)
        self.index = 0
        self.chosen: T | None = None
        self.cancelled = False
        self._scroll = 0
        if initial is not None:
            self.select_value(initial)

    # --- state -------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.cancelled or self.chosen is not None

    @property
    def selected(self) -> SelectItem[T] | None:
        return self.filtered[self.index] if self.filtered else None

    def select_value(self, value: T) -> bool:
        for position, item in enumerate(self.filtered):
            if item.value == value:
                self.index = position
                return True
        return False

    def set_items(self, items: Sequence[SelectItem[T]]) -> None:
        """New items (e.g. after a toggle), keeping the filter and, when possible, the selection."""
        current = self.selected
        self.items = list(items)
        self._refilter()
        if current is not None:
            self.select_value(current.value)

    def set_query(self, query: str) -> None:
        self.query = query
        self._refilter()
        self.index = 0

    @property
    def _has_markers(self) -> bool:
        return any(item.marker for item in self.items)

    def _refilter(self) -> None:
        filtered = fuzzy_filter(self.items, self.query, key=lambda item: item.haystack)
        if not self.sort_by_score and self.query:
            kept = {id(item) for item in filtered}
            filtered = [item for item in self.items if id(item) in kept]
        self.filtered = filtered
        self.index = min(self.index, max(0, len(self.filtered) - 1))

    # --- input -------------------------------------------------------------------------------

    def handle_text(self, text: str) -> bool:
        if not self.filterable:
            return False
        self.set_query(self.query + text)
        return True

    def move(self, delta: int) -> None:
        if self.filtered:
            self.index = (self.index + delta) % len(self.filtered)

    def page(self, delta: int) -> None:
        if self.filtered:
            self.index = max(0, min(len(self.filtered) - 1, self.index + delta * self.max_visible))

    def confirm(self) -> None:
        item = self.selected
        if item is None:
            return
        self.chosen = item.value
        if self.on_select is not None:
            self.on_select(item.value)

    def cancel(self) -> None:
        self.cancelled = True
        if self.on_cancel is not None:
            self.on_cancel()

    def handle_action(self, action: str) -> bool:
        if action == "tui.select.up":
            self.move(-1)
        elif action == "tui.select.down":
            self.move(1)
        elif action == "tui.select.pageUp":
            self.page(-1)
        elif action == "tui.select.pageDown":
            self.page(1)
        elif action == "tui.select.confirm":
            self.confirm()
        elif action == "tui.select.cancel":
            self.cancel()
        elif action == "tui.editor.deleteCharBackward" and self.filterable and self.query:
            self.set_query(self.query[:-1])
        elif action == "tui.editor.deleteWordBackward" and self.filterable and self.query:
            self.set_query(self.query.rstrip().rpartition(" ")[0])
        else:
            return False
        return True

    # --- drawing -----------------------------------------------------------------------------

    def render_item(self, item: SelectItem[T], chosen: bool, width: int, label_width: int) -> str:
        theme = self.context.theme
        marker = (item.marker or " ") + " " if self._has_markers else ""
        label = pad(truncate(item.label, label_width), label_width) if item.detail else item.label
        head = ("→ " if chosen else "  ") + marker + label
        line = theme.style(head, "accent", bold=True) if chosen else head
        if item.detail:
            line += "  " + theme.fg("muted", item.detail)
        return truncate(line, width)

    def header_lines(self, width: int) -> list[str]:
        theme = self.context.theme
        lines: list[str] = []
        if self.title:
            lines.extend(truncate(theme.style(row, "accent", bold=True), width) for row in self.title.split("\n"))
        if self.filterable:
            lines.append(truncate(theme.fg("muted", "> ") + self.query + inverse(" "), width))
        return lines

    def body_lines(self, width: int) -> list[str]:
        theme = self.context.theme
        if not self.filtered:
            return [truncate(theme.fg("muted", "  " + self.empty_text), width)]
        self._scroll = scroll_start(self.index, len(self.filtered), self.max_visible, self._scroll)
        visible = self.filtered[self._scroll : self._scroll + self.max_visible]
        label_width = min(max(visible_width(item.label) for item in visible), max(10, (width * 3) // 5))
        lines = [
            self.render_item(item, self._scroll + offset == self.index, width, label_width)
            for offset, item in enumerate(visible)
        ]
        if len(self.filtered) > self.max_visible or self.query:
            lines.append(truncate(theme.fg("muted", f"  ({self.index + 1}/{len(self.filtered)})"), width))
        return lines

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("borderAccent", "─" * width)
        lines = [rule, *self.header_lines(width), *self.body_lines(width)]
        if self.hint:
            lines.append(truncate(theme.fg("dim", self.hint), width))
        lines.append(rule)
        return lines
