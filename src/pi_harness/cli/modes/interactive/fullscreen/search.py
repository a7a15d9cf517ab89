"""Search in the fullscreen transcript: the query, its matches, and the overlay that takes the keys.

Matching ignores case and runs over the transcript as displayed (styles removed), so what is
found is what the reader sees. While the search is open the editor stays on screen but typed
text goes to the query; ``searchNext``/``searchPrevious`` move between matches (scrolling each
into view) and ``searchClose`` ends the search. The scrolling keys keep working.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pi_harness.tui.components.base import Component

Match = tuple[int, int, int]  # line, first character, end character

_DELETE = frozenset({"tui.editor.deleteCharBackward"})
_CLEAR = frozenset({"tui.editor.deleteToLineStart", "tui.editor.deleteWordBackward"})


@dataclass
class SearchState:
    query: str = ""
    matches: list[Match] = field(default_factory=list)
    current: int = -1
    by_line: dict[int, list[Match]] = field(default_factory=dict)
    _searched: tuple[str, int] | None = None  # (query, content version) the matches belong to

    def update(self, lines: list[str], version: int, first_visible: int) -> bool:
        """Find the matches again when the query or the content changed; True when the current one moved."""
        key = (self.query, version)
        if key == self._searched:
            return False
        query_changed = self._searched is None or self._searched[0] != self.query
        self._searched = key
        previous = self.matches[self.current] if 0 <= self.current < len(self.matches) else None
        self.matches = find_all(lines, self.query)
        self.by_line = {}
        for match in self.matches:
            self.by_line.setdefault(match[0], []).append(match)
        if not self.matches:
            self.current = -1
            return False
        if not query_changed and previous in self.matches:
            self.current = self.matches.index(previous)  # new output must not move the reader's match
            return False
        # The first match from the top of the view down; else the nearest one above it.
        after = [index for index, match in enumerate(self.matches) if match[0] >= first_visible]
        self.current = after[0] if after else len(self.matches) - 1
        return True

    def step(self, direction: int) -> Match | None:
        if not self.matches:
            return None
        self.current = (self.current + direction) % len(self.matches)
        return self.matches[self.current]

    def matches_on(self, line: int) -> list[Match]:
        return self.by_line.get(line, [])

    @property
    def current_match(self) -> Match | None:
        return self.matches[self.current] if 0 <= self.current < len(self.matches) else None

    def counter(self) -> str:
        if not self.query:
            return ""
        return f"{self.current + 1}/{len(self.matches)}" if self.matches else "0/0"


def find_all(lines: list[str], query: str) -> list[Match]:
    if not query:
        return []
    needle = query.lower()
    found: list[Match] = []
    for index, line in enumerate(lines):
        lowered = line.lower()
        start = lowered.find(needle)
        while start >= 0:
            found.append((index, start, start + len(needle)))
            start = lowered.find(needle, start + len(needle))
    return found


class SearchOverlay:
    """Takes the keys while searching; draws the editor unchanged (the search box floats over the
    transcript, drawn by the transcript area)."""

    def __init__(
        self,
        state: SearchState,
        editor: Component,
        *,
        on_change: Callable[[], None],
        on_step: Callable[[int], None],
        on_close: Callable[[], None],
        on_scroll: Callable[[str], bool],
    ) -> None:
        self.state = state
        self.editor = editor
        self.on_change = on_change
        self.on_step = on_step
        self.on_close = on_close
        self.on_scroll = on_scroll

    def render(self, width: int) -> list[str]:
        return self.editor.render(width)

    def handle_action(self, action: str) -> bool:
        if action == "tui.altScreen.searchNext":
            self.on_step(1)
        elif action == "tui.altScreen.searchPrevious":
            self.on_step(-1)
        elif action == "tui.altScreen.searchClose":
            self.on_close()
        elif action in _DELETE:
            self.state.query = self.state.query[:-1]
            self.on_change()
        elif action in _CLEAR:
            self.state.query = ""
            self.on_change()
        elif action.startswith("tui.altScreen."):
            return self.on_scroll(action)
        else:
            return False
        return True

    def handle_text(self, text: str) -> bool:
        self.state.query += text.replace("\n", " ")
        self.on_change()
        return True

    def handle_paste(self, text: str) -> None:
        self.handle_text(text)

    def dismiss(self) -> None:
        self.on_close()
