"""The transcript area of fullscreen mode: the visible rows of the transcript, a scrollbar, the
"Jump to latest message" bar while scrolled up, the search box, and the mouse (wheel, selection).

Only the rows on screen are converted to prompt_toolkit fragments (cached per line), so a long
transcript costs the same per frame as a short one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType, MouseModifier
from prompt_toolkit.utils import get_cwidth

from pi_harness.cli.modes.interactive.fullscreen.fragments import cut, overlay, restyle
from pi_harness.cli.modes.interactive.fullscreen.kitty import Placement, placements
from pi_harness.cli.modes.interactive.fullscreen.links import link_fragments, link_target
from pi_harness.cli.modes.interactive.fullscreen.scroll import Scroll
from pi_harness.cli.modes.interactive.fullscreen.search import SearchState
from pi_harness.tui.ansi import strip_ansi, truncate, visible_width
from pi_harness.tui.pt_view import ansi_to_fragments
from pi_harness.tui.theme import Theme


class AreaOptions(Protocol):
    @property
    def scrollbar(self) -> str: ...
    @property
    def copy_on_select(self) -> bool: ...
    @property
    def wheel_lines(self) -> int | None: ...


class AreaHost(Protocol):
    """What the area needs from the fullscreen view (kept apart so the two modules do not import
    each other)."""

    scroll: Scroll
    search: SearchState | None
    content_version: int

    @property
    def options(self) -> AreaOptions: ...
    @property
    def theme(self) -> Theme: ...
    def content(self, width: int) -> list[str]: ...
    def plain_content(self) -> list[str]: ...
    def key_label(self, action: str) -> str: ...
    def invalidate(self) -> None: ...
    def measure(self) -> None: ...


_CACHE_LIMIT = 20_000
WHEEL_AUTO_LINES = 3
ALT_WHEEL_FACTOR = 5
SEARCH_BOX_WIDTH = 40
_MATCH = "underline"
_CURRENT = "reverse bold"
_SELECTED = "reverse"


@dataclass
class Selection:
    anchor: tuple[int, int]  # (line, character)
    head: tuple[int, int]
    dragging: bool = True

    def span(self) -> tuple[tuple[int, int], tuple[int, int]]:
        return (self.anchor, self.head) if self.anchor <= self.head else (self.head, self.anchor)

    def columns(self, line: int, length: int) -> tuple[int, int] | None:
        """The selected characters of ``line`` (end exclusive), or None."""
        (first_line, first_char), (last_line, last_char) = self.span()
        if not first_line <= line <= last_line:
            return None
        start = first_char if line == first_line else 0
        end = last_char if line == last_line else length
        return (start, end) if end > start else None

    @property
    def empty(self) -> bool:
        return self.anchor == self.head


def char_at(plain: str, column: int) -> int:
    """The index of the character drawn at cell ``column`` (past the end: the line's length)."""
    used = 0
    for index, char in enumerate(plain):
        used += get_cwidth(char)
        if used > column:
            return index
    return len(plain)


class TranscriptArea(UIControl):
    def __init__(self, view: AreaHost) -> None:
        self.view = view
        self._fragments: OrderedDict[str, StyleAndTextTuples] = OrderedDict()
        self.selection: Selection | None = None
        self.top = 0  # first line drawn in the last frame
        self.width = 80
        self.on_copy: Callable[[str], None] | None = None
        # The kitty images of the last frame (rows and columns within the area) and the rows
        # they cover as drawn, for ``kitty.KittyLayer``.
        self.images: list[Placement] = []
        self.covered: tuple[tuple[tuple[str, str], ...], ...] = ()
        self.on_open_url: Callable[[str], object] | None = None  # a click on a link
        self._drawn: list[StyleAndTextTuples] = []  # the rows of the last frame
        self._pressed_url: str | None = None

    def fragments(self, line: str) -> StyleAndTextTuples:
        cached = self._fragments.get(line)
        if cached is None:
            cached = self._fragments[line] = link_fragments(line)
            if len(self._fragments) > _CACHE_LIMIT:
                self._fragments.popitem(last=False)
        return cached

    def is_focusable(self) -> bool:
        return False

    # --- drawing -------------------------------------------------------------------------------

    def create_content(self, width: int, height: int | None) -> UIContent:
        view = self.view
        height = max(1, height or 1)
        scrollbar = view.options.scrollbar
        content_width = max(1, width - (0 if scrollbar == "hidden" else 1))
        self.width = content_width
        lines = view.content(content_width)
        scroll = view.scroll
        top = scroll.layout(len(lines), height)
        search = view.search
        if search is not None and search.update(view.plain_content(), view.content_version, top):
            current = search.current_match
            if current is not None:
                scroll.reveal(current[0])
                top = scroll.first_visible()
        self.top = top
        rows: list[StyleAndTextTuples] = []
        for index in range(top, top + height):
            if index >= len(lines):
                rows.append([("", " " * content_width)])
                continue
            line = lines[index]
            fragments = self.fragments(line)
            if search is not None and search.matches:
                fragments = self._highlight_matches(index, fragments)
            if self.selection is not None:
                span = self.selection.columns(index, len(strip_ansi(line)))
                if span is not None:
                    fragments = restyle(fragments, span[0], span[1], _SELECTED)
            rows.append(cut(fragments, content_width))
        if scrollbar != "hidden":
            self._add_scrollbar(rows, len(lines), height, top)
        if not scroll.following:
            rows[-1] = self._jump_bar(rows[-1], content_width)
        if search is not None:
            self._search_box(rows, content_width)
        self._drawn = rows
        self.images = placements(lines, top, height)
        self.covered = tuple(
            tuple((fragment[0], fragment[1]) for fragment in rows[row])
            for image in self.images
            for row in range(image.row, image.row + image.visible)
        )
        return UIContent(get_line=lambda i: rows[i] if i < len(rows) else [], line_count=len(rows))

    def _highlight_matches(self, index: int, fragments: StyleAndTextTuples) -> StyleAndTextTuples:
        search = self.view.search
        assert search is not None
        current = search.current_match
        for match in search.matches_on(index):
            fragments = restyle(fragments, match[1], match[2], _CURRENT if match == current else _MATCH)
        return fragments

    def _add_scrollbar(self, rows: list[StyleAndTextTuples], total: int, height: int, top: int) -> None:
        mode = self.view.options.scrollbar
        shown = total > height and (mode == "always" or not self.view.scroll.following)
        if not shown:
            for row in rows:
                row.append(("", " "))
            return
        thumb = max(1, height * height // total)
        start = top * (height - thumb) // max(1, total - height)
        for index, row in enumerate(rows):
            inside = start <= index < start + thumb
            row.append(("", "┃") if inside else ("dim", "│"))

    def _scrollbar_cell(self, row: StyleAndTextTuples) -> StyleAndTextTuples:
        return row[-1:] if self.view.options.scrollbar != "hidden" else []

    def _jump_bar(self, row: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
        key = self.view.key_label("tui.altScreen.bottom")
        label = f" ↓ Jump to latest message{f' · {key}' if key else ''} "
        theme = self.view.theme
        text = theme.bg("selectedBg", theme.fg("text", truncate(label, width)))
        column = max(0, (width - visible_width(label)) // 2)
        return [*overlay(row, ansi_to_fragments(text), column, width), *self._scrollbar_cell(row)]

    def _search_box(self, rows: list[StyleAndTextTuples], width: int) -> None:
        search = self.view.search
        assert search is not None
        if len(rows) < 4 or width < 12:
            return
        box = min(SEARCH_BOX_WIDTH, width - 2)
        column = width - box - 1
        theme = self.view.theme
        inner = box - 2
        counter = search.counter()
        query = truncate(search.query, max(1, inner - len(counter) - 3))
        middle = f" {query}{' ' * max(1, inner - 2 - visible_width(query) - len(counter))}{counter} "
        previous = self.view.key_label("tui.altScreen.searchPrevious")
        following = self.view.key_label("tui.altScreen.searchNext")
        hint = truncate(f" ↑ {previous} · ↓ {following} ", inner - 2)
        border = "border"
        drawn = [
            theme.fg(border, "┌" + "─" * inner + "┐"),
            theme.fg(border, "│") + middle[:inner].ljust(inner) + theme.fg(border, "│"),
            theme.fg(border, "└" + "─" * (inner - visible_width(hint) - 1) + hint + "─┘"),
        ]
        for offset, text in enumerate(drawn, start=1):
            row = rows[offset]
            rows[offset] = [*overlay(row, ansi_to_fragments(text), column, width), *self._scrollbar_cell(row)]

    # --- mouse ---------------------------------------------------------------------------------

    def mouse_handler(self, mouse_event: MouseEvent) -> object:
        view = self.view
        kind = mouse_event.event_type
        if kind in (MouseEventType.SCROLL_UP, MouseEventType.SCROLL_DOWN):
            lines = view.options.wheel_lines or WHEEL_AUTO_LINES
            if MouseModifier.ALT in mouse_event.modifiers:
                lines *= ALT_WHEEL_FACTOR
            view.measure()
            view.scroll.scroll_by(-lines if kind == MouseEventType.SCROLL_UP else lines)
            view.invalidate()
            return None
        position = self._position(mouse_event.position.y, mouse_event.position.x)
        if kind == MouseEventType.MOUSE_DOWN and mouse_event.button == MouseButton.LEFT:
            self.selection = Selection(position, position)
            self._pressed_url = self.url_at(mouse_event.position.y, mouse_event.position.x)
        elif kind == MouseEventType.MOUSE_MOVE and self.selection is not None and self.selection.dragging:
            if mouse_event.button == MouseButton.LEFT:
                self.selection.head = position
        elif kind == MouseEventType.MOUSE_UP and self.selection is not None:
            self.selection.head = position if self.selection.dragging else self.selection.head
            self.selection.dragging = False
            url, self._pressed_url = self._pressed_url, None
            if self.selection.empty:
                self.selection = None
                if url is not None and self.on_open_url is not None:
                    self.on_open_url(url)  # a click on a link opens it, as in Pi
            elif view.options.copy_on_select:
                self.copy_selection()
        else:
            return NotImplemented
        view.invalidate()
        return None

    def url_at(self, row: int, column: int) -> str | None:
        """The URL of the link drawn at a cell of the last frame, or None."""
        if not 0 <= row < len(self._drawn):
            return None
        used = 0
        for fragment in self._drawn[row]:
            used += get_cwidth(fragment[1])
            if used > column:
                return link_target(fragment[0])
        return None

    def _position(self, row: int, column: int) -> tuple[int, int]:
        plain = self.view.plain_content()
        line = min(self.top + row, max(0, len(plain) - 1))
        return (line, char_at(plain[line], column) if plain else 0)

    def selected_text(self) -> str:
        if self.selection is None or self.selection.empty:
            return ""
        plain = self.view.plain_content()
        (first, _), (last, _) = self.selection.span()
        parts: list[str] = []
        for line in range(first, min(last, len(plain) - 1) + 1):
            span = self.selection.columns(line, len(plain[line]))
            parts.append(plain[line][span[0] : span[1]].rstrip() if span else "")
        return "\n".join(parts)

    def copy_selection(self) -> bool:
        text = self.selected_text()
        if not text or self.on_copy is None:
            return False
        self.on_copy(text)
        return True
