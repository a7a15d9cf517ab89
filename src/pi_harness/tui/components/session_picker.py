"""``/resume``: the sessions of this folder (Tab: of every folder), newest first, filterable.

Drawn as Pi 1.4.0 draws it: a header with the scope, name filter and sort mode, two hint lines,
the search line and one row per session (its name or first message, then the message count and
age, with the folder in the "All" scope and the file with the path shown).

Toggles from the key table: ``app.session.togglePath`` shows where each session lives,
``app.session.toggleSort`` switches between newest-first and best-match ordering while
searching, ``app.session.toggleNamedFilter`` keeps only named sessions. ``rename`` is handed
to the caller. ``delete`` asks in place, as Pi does: the row turns red and the hint line asks
"Delete session?" until Enter (then the caller deletes it and calls ``set_sessions``) or Escape;
other keys wait. The open session cannot be deleted. ``show_status`` puts a short message in
the hint line for a few seconds (``on_status`` is told when the picker should be drawn again).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

from pi_harness.coding.session_store.listing import SessionInfo
from pi_harness.tui.ansi import truncate, visible_width, with_background
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.theme import bold, inverse

# Pi's modes: "threaded" (its default) lists by recency and ranks a search by relevance (Pi also
# draws the fork tree there, which we do not yet), "recent" keeps recency while searching,
# "relevance" always ranks by the match.
SortMode = Literal["threaded", "recent", "relevance"]
_NEXT_SORT: dict[str, SortMode] = {"threaded": "recent", "recent": "relevance", "relevance": "threaded"}


def session_age(moment: datetime, now: float) -> str:
    """Pi's short ages: ``now``, ``5m``, ``3h``, ``2d``, ``1w``, ``2mo``, ``1y``."""
    minutes = int(max(0.0, now - moment.timestamp()) // 60)
    hours, days = minutes // 60, minutes // 1440
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    if hours < 24:
        return f"{hours}h"
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


_SORT_LABELS = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}
MAX_VISIBLE = 10


class SessionPicker:
    def __init__(
        self,
        sessions: Sequence[SessionInfo],
        context: RenderContext,
        *,
        on_select: Callable[[SessionInfo], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        on_rename: Callable[[SessionInfo], None] | None = None,
        on_delete: Callable[[SessionInfo], None] | None = None,
        current_path: str | None = None,
        cwd: str | None = None,
        now: Callable[[], float] = time.time,
        on_status: Callable[[float], None] | None = None,
    ) -> None:
        """``cwd``: the current folder; its sessions are listed first (Tab shows every folder's)."""
        self.context = context
        self.on_rename = on_rename
        self.on_delete = on_delete
        self.on_status = on_status
        self.confirming: str | None = None  # the path whose deletion waits for Enter or Escape
        self._status: tuple[Literal["info", "error"], str, float] | None = None  # kind, text, until
        self.current_path = current_path
        self.cwd = cwd
        self.scope: Literal["current", "all"] = "current" if cwd is not None else "all"
        self.now = now
        self.show_path = False
        self.sort: SortMode = "threaded"
        self.named_only = False
        self._sessions: list[SessionInfo] = []

        def chosen(path: str) -> None:
            if on_select is not None:
                on_select(self._by_path[path])

        self._by_path: dict[str, SessionInfo] = {}
        self.selector: Selector[str] = Selector([], context, on_select=chosen, on_cancel=on_cancel)
        self.selector.sort_by_score = True
        self.set_sessions(sessions)

    def set_sessions(self, sessions: Sequence[SessionInfo]) -> None:
        self._sessions = sorted(sessions, key=lambda info: info.modified, reverse=True)
        self._by_path = {str(info.path): info for info in self._sessions}
        self._rebuild()

    def _rebuild(self) -> None:
        items = []
        for info in self._sessions:
            if self.named_only and not info.name:
                continue
            if self.scope == "current" and info.cwd != self.cwd:
                continue
            title = " ".join((info.name or info.first_message or "(no messages)").split())
            search = f"{info.name or ''} {info.all_messages_text} {info.cwd}"
            items.append(SelectItem(str(info.path), title, search_text=search))
        self.selector.set_items(items)

    @property
    def selected(self) -> SessionInfo | None:
        item = self.selector.selected
        return self._by_path[item.value] if item else None

    @property
    def done(self) -> bool:
        return self.selector.done

    def handle_text(self, text: str) -> bool:
        if self.confirming is not None:
            return True  # typing waits for the answer
        return self.selector.handle_text(text)

    def show_status(self, kind: Literal["info", "error"], text: str, seconds: float) -> None:
        self._status = (kind, text, self.now() + seconds)
        if self.on_status is not None:
            self.on_status(seconds)

    def _answer_delete(self, action: str) -> None:
        path, self.confirming = self.confirming, None
        info = self._by_path.get(path or "")
        if action == "tui.select.confirm" and info is not None and self.on_delete is not None:
            self.on_delete(info)

    def _ask_delete(self) -> None:
        info = self.selected
        if info is None or self.on_delete is None:
            return
        if str(info.path) == self.current_path:
            self.show_status("error", "Cannot delete the currently active session", 3.0)
        else:
            self.confirming = str(info.path)

    def handle_action(self, action: str) -> bool:
        if self.confirming is not None:
            if action in ("tui.select.confirm", "tui.select.cancel"):
                self._answer_delete(action)
            return True  # every other key waits for the answer
        if action == "tui.input.tab":
            if self.cwd is None:
                return True
            self.scope = "all" if self.scope == "current" else "current"
        elif action == "app.session.togglePath":
            self.show_path = not self.show_path
        elif action == "app.session.toggleSort":
            self.sort = _NEXT_SORT[self.sort]
            self.selector.sort_by_score = self.sort != "recent"
        elif action == "app.session.toggleNamedFilter":
            self.named_only = not self.named_only
        elif action == "app.session.rename":
            if self.selected is not None and self.on_rename is not None:
                self.on_rename(self.selected)
            return True
        elif action in ("app.session.delete", "app.session.deleteNoninvasive"):
            if action == "app.session.deleteNoninvasive" and self.selector.query:
                return False
            self._ask_delete()
            return True
        else:
            return self.selector.handle_action(action)
        self._rebuild()
        return True

    # --- drawing (Pi 1.4.0's layout) -----------------------------------------------------------

    def _header(self, width: int) -> list[str]:
        theme, key = self.context.theme, self.context.key

        def muted(text: str) -> str:
            return theme.fg("muted", text)

        def accent(text: str) -> str:
            return theme.fg("accent", text)

        title = "Resume Session (Current Folder)" if self.scope == "current" else "Resume Session (All)"
        if self.scope == "current":
            scope = accent("◉ Current Folder") + muted(" | ○ All")
        else:
            scope = muted("○ Current Folder | ") + accent("◉ All")
        name = muted("Name: ") + accent("Named" if self.named_only else "All")
        sort = muted("Sort: ") + accent(_SORT_LABELS[self.sort])
        right = truncate(f"{scope}  {name}  {sort}", width, "")
        left = truncate(bold(title), max(0, width - visible_width(right) - 1), "")
        first = left + " " * max(0, width - visible_width(left) - visible_width(right)) + right

        def hint(action: str, text: str) -> str:
            return theme.fg("dim", key(action)) + muted(f" {text}")

        sep = muted(" · ")
        if self.confirming is not None:
            question = (
                f"Delete session? {hint('tui.select.confirm', 'confirm')} · {hint('tui.select.cancel', 'cancel')}"
            )
            return [first, theme.fg("error", truncate(question, width)), ""]
        status = self._status
        if status is not None and self.now() < status[2]:
            return [first, theme.fg("error" if status[0] == "error" else "accent", truncate(status[1], width)), ""]
        line1 = hint("tui.input.tab", "scope") + sep + muted('re:<pattern> regex · "phrase" exact')
        parts = [hint("app.session.toggleSort", "sort"), hint("app.session.toggleNamedFilter", "named"),
                 hint("app.session.delete", "delete"),
                 hint("app.session.togglePath", f"path {'(on)' if self.show_path else '(off)'}")]  # fmt: skip
        if self.on_rename is not None:
            parts.append(hint("app.session.rename", "rename"))
        return [first, truncate(line1, width), truncate(sep.join(parts), width)]

    def _empty_text(self) -> str:
        toggle = self.context.key("app.session.toggleNamedFilter")
        if self.named_only:
            if self.scope == "all":
                return f"  No named sessions found. Press {toggle} to show all."
            return f"  No named sessions in current folder. Press {toggle} to show all, or Tab to view all."
        if self.scope == "all":
            return "  No sessions found"
        return "  No sessions in current folder. Press Tab to view all."

    def _row(self, info: SessionInfo, chosen: bool, width: int) -> str:
        theme = self.context.theme
        right = f"{info.message_count} {session_age(info.modified, self.now())}"
        if self.scope == "all" and info.cwd:
            right = f"{self.context.short_path(info.cwd)} {right}"
        if self.show_path:
            right = f"{self.context.short_path(str(info.path))} {right}"
        title = " ".join((info.name or info.first_message or "").split())
        title = truncate(title, max(10, width - 2 - visible_width(right) - 2))
        deleting = str(info.path) == self.confirming
        current = str(info.path) == self.current_path
        colour = "error" if deleting else "accent" if current else "warning" if info.name else None
        text = theme.fg(colour, title) if colour else title
        if chosen:
            text = bold(text)
        left = (theme.fg("accent", "› ") if chosen else "  ") + text
        right_text = theme.fg("error" if deleting else "dim", right)
        line = left + " " * max(1, width - visible_width(left) - visible_width(right)) + right_text
        line = truncate(line, width)
        return with_background(line, width, theme.bg_code("selectedBg")) if chosen else line

    def _list(self, width: int) -> list[str]:
        theme, selector = self.context.theme, self.selector
        items, index = selector.filtered, selector.index
        if not items:
            return [theme.fg("muted", truncate(self._empty_text(), width))]
        start = max(0, min(index - MAX_VISIBLE // 2, len(items) - MAX_VISIBLE))
        end = min(start + MAX_VISIBLE, len(items))
        lines = [self._row(self._by_path[items[at].value], at == index, width) for at in range(start, end)]
        if start > 0 or end < len(items):
            lines.append(theme.fg("muted", truncate(f"  ({index + 1}/{len(items)})", width, "")))
        return lines

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("accent", "─" * max(1, width))
        search = truncate("> " + self.selector.query + inverse(" "), width)
        return ["", rule, "", *self._header(width), "", search, "", *self._list(width), "", rule]
