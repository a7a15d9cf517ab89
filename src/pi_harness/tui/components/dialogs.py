"""Extension UI (``ctx.ui``, ``docs/extensions.md``): dialogs, toasts, status entries and widgets.

Dialogs are drawn as Pi 1.4.0's extension selector and input: a rule, the title in the accent
colour (a confirm's message under it), the options or the ``> `` input line, and the key hint
(``↑↓ navigate  enter select  escape/ctrl+c cancel``). Dialogs with a timeout show a live
countdown after the title (``Title (5s)``); the owner calls
``tick()`` a few times a second and a dialog that ran out resolves to its default (``False``
for confirm, ``None`` otherwise). ``dismiss()`` is for a caller's abort signal. Each dialog
reports exactly once through ``on_result``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pi_harness.tui.ansi import sanitize, truncate, visible_width, wrap
from pi_harness.tui.components.base import Component, RenderContext
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.theme import inverse

R = TypeVar("R")
Clock = Callable[[], float]


class _Dialog(Generic[R]):
    """Title, countdown and the once-only result shared by all dialogs."""

    def __init__(
        self,
        title: str,
        context: RenderContext,
        default: R,
        on_result: Callable[[R], None] | None,
        timeout: float | None,
        clock: Clock,
    ) -> None:
        self.title = title
        self.context = context
        self.default = default
        self.on_result = on_result
        self.clock = clock
        self.deadline = clock() + timeout if timeout and timeout > 0 else None
        self.result: R | None = None
        self.done = False

    def remaining_seconds(self) -> int | None:
        if self.deadline is None:
            return None
        return max(0, math.ceil(self.deadline - self.clock()))

    def shown_title(self) -> str:
        remaining = self.remaining_seconds()
        return f"{self.title} ({remaining}s)" if remaining is not None else self.title

    def resolve(self, value: R) -> None:
        if self.done:
            return
        self.done = True
        self.result = value
        if self.on_result is not None:
            self.on_result(value)

    def dismiss(self) -> None:
        """Close with the default value (the caller's signal was aborted)."""
        self.resolve(self.default)

    def tick(self) -> bool:
        """Resolve to the default when the time is up; True when the dialog changed (redraw)."""
        if self.deadline is None or self.done:
            return False
        if self.clock() >= self.deadline:
            self.resolve(self.default)
        return True

    def _frame(self, width: int, title: list[str], body: list[str], hint: str) -> list[str]:
        """Pi 1.4.0's dialog box: rule, blank, title, blank, body, blank, hint, blank, rule; the
        title and hint are indented by one column, as is the body where the caller says so."""
        theme = self.context.theme
        rule = theme.fg("border", "─" * max(1, width))
        hints = [" " + row for row in wrap(hint, max(1, width - 2))]
        rows = ["", *(" " + row for row in title), "", *body, "", *hints, ""]
        return [rule, *(truncate(row, width) for row in rows), rule]

    def _hint(self, *parts: tuple[str, str]) -> str:
        """``enter select  escape/ctrl+c cancel``: keys dim, words muted, two blanks between."""
        theme = self.context.theme
        return "  ".join(theme.fg("dim", keys) + theme.fg("muted", f" {words}") for keys, words in parts)


class _ChoiceDialog(_Dialog[R]):
    def __init__(
        self,
        title: str,
        message: str,
        options: Sequence[tuple[str, R]],
        context: RenderContext,
        default: R,
        on_result: Callable[[R], None] | None,
        timeout: float | None,
        clock: Clock,
    ) -> None:
        super().__init__(title, context, default, on_result, timeout, clock)
        self.message = message
        items = [SelectItem(index, label) for index, (label, _) in enumerate(options)]
        self._values = [value for _, value in options]
        self.selector: Selector[int] = Selector(
            items, context, filterable=False, max_visible=10,
            on_select=lambda index: self.resolve(self._values[index]), on_cancel=self.dismiss,
        )  # fmt: skip

    def handle_text(self, text: str) -> bool:
        return False

    def handle_action(self, action: str) -> bool:
        if self.done:
            return False
        return self.selector.handle_action(action)

    def render(self, width: int) -> list[str]:
        theme, room = self.context.theme, max(1, width - 2)
        heading = self.title + (f"\n{sanitize(self.message)}" if self.message else "")
        remaining = self.remaining_seconds()
        if remaining is not None:
            heading += f" ({remaining}s)"
        title = [theme.style(row, "accent", bold=True) for line in heading.split("\n") for row in wrap(line, room)]
        body = []
        for item in self.selector.items:
            chosen = self.selector.selected is item
            text = theme.fg("accent", "→ " + item.label) if chosen else "  " + theme.fg("text", item.label)
            body.append(" " + text)
        keys = self.context.key
        confirm, cancel = keys("tui.select.confirm"), keys("tui.select.cancel")
        hint = self._hint(("↑↓", "navigate"), (confirm, "select"), (cancel, "cancel"))
        return self._frame(width, title, body, hint)


class ConfirmDialog(_ChoiceDialog[bool]):
    def __init__(
        self,
        title: str,
        message: str,
        context: RenderContext,
        *,
        on_result: Callable[[bool], None] | None = None,
        timeout: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(title, message, [("Yes", True), ("No", False)], context, False, on_result, timeout, clock)


class SelectDialog(_ChoiceDialog[str | None]):
    def __init__(
        self,
        title: str,
        options: Sequence[str],
        context: RenderContext,
        *,
        on_result: Callable[[str | None], None] | None = None,
        timeout: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        pairs: list[tuple[str, str | None]] = [(option, option) for option in options]
        super().__init__(title, "", pairs, context, None, on_result, timeout, clock)


class InputDialog(_Dialog[str | None]):
    """A text field (one line, or several for ``multiline`` — the extension ``editor`` dialog)."""

    def __init__(
        self,
        title: str,
        context: RenderContext,
        *,
        placeholder: str | None = None,
        prefill: str | None = None,
        multiline: bool = False,
        on_result: Callable[[str | None], None] | None = None,
        timeout: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(title, context, None, on_result, timeout, clock)
        self.placeholder = placeholder
        self.multiline = multiline
        self.editor = Editor()
        if prefill:
            self.editor.set_text(prefill)
        self.view = EditorView(self.editor, context.theme, max_rows=12 if multiline else 3)

    def handle_text(self, text: str) -> bool:
        if self.done:
            return False
        self.editor.insert(text if self.multiline else text.replace("\n", " "))
        return True

    def handle_paste(self, text: str) -> None:
        self.editor.insert(text if self.multiline else " ".join(text.split("\n")))

    def handle_action(self, action: str) -> bool:
        if self.done:
            return False
        if action in ("tui.input.submit", "tui.select.confirm"):
            self.resolve(self.editor.text)
            return True
        if action in ("tui.select.cancel", "app.interrupt"):
            self.dismiss()
            return True
        if action == "tui.input.newLine" and not self.multiline:
            return True
        return self.editor.handle_action(action)

    def _input_line(self, width: int) -> str:
        """Pi's one-line input: ``> `` then the text, the cursor drawn inverted, scrolled to it."""
        theme = self.context.theme
        before, text = self.editor.text_before_cursor, self.editor.text
        after = text[len(before) :]
        if not text and self.placeholder:
            return "> " + inverse(self.placeholder[:1]) + theme.fg("dim", self.placeholder[1:])
        room = max(1, width - 2 - 1)
        while visible_width(before) > room:
            before = before[1:]
        return "> " + before + inverse(after[:1] or " ") + after[1:]

    def render(self, width: int) -> list[str]:
        theme, keys = self.context.theme, self.context.key
        title = [theme.fg("accent", row) for row in wrap(self.shown_title(), max(1, width - 2))]
        if self.multiline:
            body = self.view.render(width)
            hint = self._hint(
                (keys("tui.select.confirm"), "submit"), (keys("tui.input.newLine"), "newline"),
                (keys("tui.select.cancel"), "cancel"), (keys("app.editor.external"), "external editor"),
            )  # fmt: skip
        else:
            body = [self._input_line(width)]
            hint = self._hint((keys("tui.select.confirm"), "submit"), (keys("tui.select.cancel"), "cancel"))
        return self._frame(width, title, body, hint)


NotifyType = Literal["info", "warning", "error"]
_NOTIFY_TOKENS = {"info": "accent", "warning": "warning", "error": "error"}


@dataclass
class _Toast:
    message: str
    kind: NotifyType
    expires: float


class Toasts:
    """``ctx.ui.notify`` messages, shown above the editor for ``ttl`` seconds."""

    def __init__(self, context: RenderContext, *, ttl: float = 5.0, clock: Clock = time.monotonic) -> None:
        self.context = context
        self.ttl = ttl
        self.clock = clock
        self.items: list[_Toast] = []

    def notify(self, message: str, kind: str = "info") -> None:
        chosen: NotifyType = "warning" if kind == "warning" else "error" if kind == "error" else "info"
        self.items.append(_Toast(message, chosen, self.clock() + self.ttl))

    def prune(self) -> bool:
        """Drop expired toasts; True when something disappeared (redraw)."""
        now = self.clock()
        before = len(self.items)
        self.items = [toast for toast in self.items if toast.expires > now]
        return len(self.items) != before

    def render(self, width: int) -> list[str]:
        self.prune()
        theme = self.context.theme
        lines: list[str] = []
        for toast in self.items:
            for row in wrap(theme.fg(_NOTIFY_TOKENS[toast.kind], sanitize(toast.message)), max(1, width - 1)):
                lines.append(" " + row)
        return lines


class StatusBar:
    """``ctx.ui.setStatus(key, text)`` entries, one line under the footer, as Pi 1.4.0 draws them:
    sorted by key, each on one line with runs of blanks collapsed, joined by a space, cut with a
    dim ``...``."""

    def __init__(self, context: RenderContext) -> None:
        self.context = context
        self.entries: dict[str, str] = {}

    def set(self, key: str, text: str | None) -> None:
        if text is None or text == "":
            self.entries.pop(key, None)
        else:
            self.entries[key] = text

    def render(self, width: int) -> list[str]:
        if not self.entries:
            return []
        keys = sorted(self.entries, key=lambda key: (key.lower(), key))
        joined = " ".join(" ".join(sanitize(self.entries[key]).split()) for key in keys)
        return [truncate(joined, width, self.context.theme.fg("dim", "..."))]


Placement = Literal["aboveEditor", "belowEditor"]


class Widgets:
    """``ctx.ui.setWidget(key, lines | component | None, placement)`` blocks around the editor."""

    def __init__(self) -> None:
        self._widgets: dict[str, tuple[Placement, list[str] | Component]] = {}

    def set(self, key: str, content: Sequence[str] | Component | None, placement: str = "aboveEditor") -> None:
        if content is None:
            self._widgets.pop(key, None)
            return
        where: Placement = "belowEditor" if placement == "belowEditor" else "aboveEditor"
        value: list[str] | Component
        if isinstance(content, str):
            value = [content]
        elif isinstance(content, Sequence):
            value = [str(row) for row in content]
        else:
            value = content
        self._widgets[key] = (where, value)

    def get(self, key: str) -> list[str] | Component | None:
        """What the widget ``key`` shows, or None."""
        found = self._widgets.get(key)
        return found[1] if found is not None else None

    def components(self) -> list[Component]:
        """The widgets that are components (not plain lines)."""
        return [content for _where, content in self._widgets.values() if not isinstance(content, list)]

    def render_placement(self, placement: Placement, width: int) -> list[str]:
        lines: list[str] = []
        for where, content in self._widgets.values():
            if where != placement:
                continue
            rows: list[Any] = content if isinstance(content, list) else content.render(width)
            lines.extend(truncate(str(row), width) for row in rows)
        return lines
