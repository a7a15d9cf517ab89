"""``/fork``: pick a user message, from any branch of the session tree, to start a new session at.

Messages are listed oldest first, as they appear in the session file, with the newest selected
(Pi's order). Drawn as Pi 1.4.0 draws it: each message takes its text on one row, its position
(``Message 3 of 7``) on the next, then a blank row; up to ``max_visible`` messages centred on the
selection. Typing filters the list (our addition; the filter shows above the list while it is
on); Enter forks, Escape cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from pi_harness.tui.ansi import truncate, wrap
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.list_cursor import moved_index
from pi_harness.tui.fuzzy import fuzzy_score
from pi_harness.tui.theme import bold, inverse

TITLE = "Fork from Message"
SUBTITLE = "Select a user message to copy the active path up to that point into a new session"


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
        max_visible: int = 10,
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
        rule = theme.fg("border", "─" * max(1, width))
        room = max(1, width - 2)
        lines = ["", *(" " + row for row in wrap(bold(TITLE), room))]
        lines += [" " + row for row in wrap(theme.fg("muted", SUBTITLE), room)]
        lines += ["", rule, ""]
        if self.query:  # typing filters the list (our addition); the filter shows while it is on
            lines.append(truncate(theme.fg("muted", "  > ") + self.query + inverse(" "), width))
        total = len(self.candidates)
        if not self.shown:
            text = "  No matching messages" if self.query else "  No user messages found"
            lines.append(truncate(theme.fg("muted", text), width))
        start = max(0, min(self.index - self.max_visible // 2, len(self.shown) - self.max_visible))
        end = min(start + self.max_visible, len(self.shown))
        for position in range(start, end):
            candidate = self.shown[position]
            chosen = position == self.index
            text = truncate(candidate.text, max(1, width - 2))
            lines.append((theme.fg("accent", "› ") + bold(text)) if chosen else "  " + text)
            lines.append(theme.fg("muted", f"  Message {candidate.position} of {total}"))
            lines.append("")
        if start > 0 or end < len(self.shown):
            lines.append(theme.fg("muted", f"  ({self.index + 1}/{len(self.shown)})"))
        return [*(truncate(line, width) for line in lines), "", rule]
