"""Entries hosts and extensions write directly: the session name, labels and custom entries.

Naming the session emits ``session_info_changed``; a custom entry (an extension's
``append_entry``) is announced with ``entry_appended``, the other entries are not (as in Pi).
"""

from __future__ import annotations

from pi_harness.coding.agent_session.session_errors import SESSION_NAME_EMPTY
from pi_harness.coding.agent_session.session_events import SessionEvents, SessionInfoChangedEvent
from pi_harness.coding.session_store.store import SessionManager


class SessionEntries:
    __slots__ = ("_events", "_manager")

    def __init__(self, manager: SessionManager, events: SessionEvents) -> None:
        self._manager = manager
        self._events = events

    def set_name(self, name: str) -> None:
        if not name or not name.strip():
            raise ValueError(SESSION_NAME_EMPTY)
        manager = self._manager
        manager.append_session_info(name)
        event: SessionInfoChangedEvent = {"type": "session_info_changed"}
        current = manager.get_session_name()
        if current is not None:
            event["name"] = current
        self._events.emit_soon(event)

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._manager.append_label(entry_id, label)

    def append_custom(self, custom_type: str, data: object) -> str:
        entry_id = self._manager.append_custom(custom_type, data)
        self._events.announce_entry_soon(entry_id)
        return entry_id


__all__ = ["SessionEntries"]
