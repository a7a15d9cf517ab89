"""``/resume``: the sessions of this project (or all projects), newest first, filterable.

Toggles from the key table: ``app.session.togglePath`` shows where each session lives,
``app.session.toggleSort`` switches between newest-first and best-match ordering while
searching, ``app.session.toggleNamedFilter`` keeps only named sessions. ``rename`` and
``delete`` are handed to the caller, which asks and then calls ``set_sessions``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

from pi_harness.coding.session_store.listing import SessionInfo
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector

# Pi's modes: "threaded" (its default) lists by recency and ranks a search by relevance (Pi also
# draws the fork tree there, which we do not yet), "recent" keeps recency while searching,
# "relevance" always ranks by the match.
SortMode = Literal["threaded", "recent", "relevance"]
_NEXT_SORT: dict[str, SortMode] = {"threaded": "recent", "recent": "relevance", "relevance": "threaded"}


def relative_age(moment: datetime, now: float) -> str:
    seconds = max(0.0, now - moment.timestamp())
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 86400 * 30:
        return f"{int(seconds // 86400)}d ago"
    return moment.strftime("%Y-%m-%d")


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
        max_visible: int = 10,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.context = context
        self.on_rename = on_rename
        self.on_delete = on_delete
        self.current_path = current_path
        self.now = now
        self.show_path = False
        self.sort: SortMode = "threaded"
        self.named_only = False
        self._sessions: list[SessionInfo] = []

        def chosen(path: str) -> None:
            if on_select is not None:
                on_select(self._by_path[path])

        self._by_path: dict[str, SessionInfo] = {}
        self.selector: Selector[str] = Selector(
            [], context, title="Resume a session", max_visible=max_visible, on_select=chosen, on_cancel=on_cancel,
            empty_text="No sessions found",
        )  # fmt: skip
        self.selector.sort_by_score = True
        self.set_sessions(sessions)

    def set_sessions(self, sessions: Sequence[SessionInfo]) -> None:
        self._sessions = sorted(sessions, key=lambda info: info.modified, reverse=True)
        self._by_path = {str(info.path): info for info in self._sessions}
        self._rebuild()

    def _rebuild(self) -> None:
        now = self.now()
        items = []
        for info in self._sessions:
            if self.named_only and not info.name:
                continue
            title = " ".join((info.name or info.first_message or "(no messages)").split())
            detail = f"{info.message_count} msgs · {relative_age(info.modified, now)}"
            if self.show_path:
                detail += f" · {self.context.short_path(str(info.path))}"
            marker = "•" if str(info.path) == self.current_path else ""
            search = f"{info.name or ''} {info.all_messages_text} {info.cwd}"
            items.append(SelectItem(str(info.path), title, detail, search_text=search, marker=marker))
        self.selector.set_items(items)
        keys = self.context.key
        self.selector.hint = (
            f"{keys('app.session.togglePath')} path · {keys('app.session.toggleSort')} sort ({self.sort}) · "
            f"{keys('app.session.toggleNamedFilter')} named only{' (on)' if self.named_only else ''} · "
            f"{keys('app.session.rename')} rename · {keys('app.session.delete')} delete"
        )

    @property
    def selected(self) -> SessionInfo | None:
        item = self.selector.selected
        return self._by_path[item.value] if item else None

    @property
    def done(self) -> bool:
        return self.selector.done

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        if action == "app.session.togglePath":
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
            if self.selected is not None and self.on_delete is not None:
                self.on_delete(self.selected)
            return True
        else:
            return self.selector.handle_action(action)
        self._rebuild()
        return True

    def render(self, width: int) -> list[str]:
        return self.selector.render(width)
