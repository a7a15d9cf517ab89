"""``/fork``: pick a user message, from any branch of the session tree, to start a new session at.

Messages are listed oldest first, as they appear in the session file, with the newest selected
(Pi's order). Each message takes two rows: its text on one line, then its position (``Message 3
of 7``) and, for a message the active branch does not pass through, ``other branch``. Typing
filters the list; Enter forks, Escape cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.list_cursor import moved_index
from pi_harness.tui.components.selector import scroll_start
from pi_harness.tui.fuzzy import fuzzy_score
from pi_harness.tui.theme import inverse

TITLE = "Fork from a message"
SUBTITLE = "A new session starts with the conversation up to the chosen message, which returns to the editor"


@dataclass(frozen=True)
class ForkCandidate:
    entry_id: str
    text: str
    position: int  # 1-based, in file order
    on_active_branch: bool


class ForkSelector:
    def __init__(
        self,
        messages: Sequence[tuple[str, str]],
        context: RenderContext,
        *,
        active_ids: Collection[str] = (),
        on_select: Callable[[str], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        max_visible: int = 8,
    ) -> None:
        """``messages``: ``(entry_id, text)`` in file order; ``active_ids``: the active branch's entries."""
        self.context = context
        self.candidates = [
            ForkCandidate(entry_id, " ".join(text.split()), index + 1, entry_id in active_ids)
            for index, (entry_id, text) in enumerate(messages)
        ]
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.max_visible = max(1, max_visible)
        self.query = ""
        self.shown = list(self.candidates)
        self.index = max(0, len(self.shown) - 1)
        self.chosen: str | None = None
        self.cancelled = False
        self._scroll = 0

    @property
    def done(self) -> bool:
        return self.cancelled or self.chosen is not None

    @property
    def selected(self) -> ForkCandidate | None:
        return self.shown[self.index] if self.shown else None

    def _refilter(self) -> None:
        query = self.query.strip()
        self.shown = [c for c in self.candidates if not query or fuzzy_score(query, c.text) is not None]
        self.index = max(0, len(self.shown) - 1)  # the newest match, like the unfiltered list

    def handle_text(self, text: str) -> bool:
        self.query += text
        self._refilter()
        return True

    def handle_action(self, action: str) -> bool:
        count = len(self.shown)
        moved = moved_index(action, self.index, count, self.max_visible)
        if moved is not None:
            self.index = moved
        elif action == "tui.select.confirm":
            chosen = self.selected
            if chosen is not None:
                self.chosen = chosen.entry_id
                if self.on_select is not None:
                    self.on_select(chosen.entry_id)
        elif action == "tui.select.cancel":
            self.cancelled = True
            if self.on_cancel is not None:
                self.on_cancel()
        elif action == "tui.editor.deleteCharBackward" and self.query:
            self.query = self.query[:-1]
            self._refilter()
        else:
            return action.startswith("tui.select.")
        return True

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("borderAccent", "─" * width)
        lines = [
            rule,
            truncate(theme.style(TITLE, "accent", bold=True), width),
            truncate(theme.fg("muted", SUBTITLE), width),
            truncate(theme.fg("muted", "> ") + self.query + inverse(" "), width),
        ]
        total = len(self.candidates)
        if not self.shown:
            lines.append(truncate(theme.fg("muted", "  No matching messages"), width))
        self._scroll = scroll_start(self.index, len(self.shown), self.max_visible, self._scroll)
        for position in range(self._scroll, min(len(self.shown), self._scroll + self.max_visible)):
            candidate = self.shown[position]
            chosen = position == self.index
            text = ("→ " if chosen else "  ") + candidate.text
            lines.append(truncate(theme.style(text, "accent", bold=True) if chosen else text, width))
            where = f"    Message {candidate.position} of {total}"
            if not candidate.on_active_branch:
                where += " · other branch"
            lines.append(truncate(theme.fg("muted", where), width))
        if len(self.shown) > self.max_visible:
            lines.append(truncate(theme.fg("muted", f"  ({self.index + 1}/{len(self.shown)})"), width))
        keys = self.context.key
        hint = f"{keys('tui.select.confirm')} fork · {keys('tui.select.cancel')} cancel · type to filter"
        lines.append(truncate(theme.fg("dim", hint), width))
        lines.append(rule)
        return lines
