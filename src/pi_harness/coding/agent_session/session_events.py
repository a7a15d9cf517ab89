"""Session events: what session listeners receive, and the registry that delivers them.

Session listeners get every agent event (``runId`` included, ``agent_end`` extended with
``willRetry``) plus the session's own events below, as plain dicts with Pi's camelCase keys.
Listeners are awaited one after another in subscription order, so a slow listener
back-pressures the session (as in Pi 1.4.0); a listener that raises is reported on stderr and
skipped.

``entry_appended`` is emitted for the entries Pi announces: a custom entry an extension appends
(``append_entry``), the ``context_edit`` entries that hide a failed attempt (auto-retry,
overflow recovery), a virtual model's router state and the ``usage`` entries of cache warming.
Other entries are not announced; hosts that need them read the session (``get_entries``).
``model_changed`` is pi-harness's own: the JSON and RPC modes do not write it.
"""

from __future__ import annotations

import sys
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.agent.listeners import ListenerRegistry
from pi_harness.ai.types import Model
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.store import SessionManager

# Events are JSON-like dicts; a listener reads the keys of the ``type`` it handles.
SessionListener: TypeAlias = Callable[[dict[str, object]], Awaitable[None] | None]


class AgentSettledEvent(TypedDict):
    """(1.4.0) The session will not continue on its own; emitted exactly once per settle."""

    type: Literal["agent_settled"]
    aborted: bool


class QueueUpdateEvent(TypedDict):
    """(1.4.0) The full remaining UI queues after every change."""

    type: Literal["queue_update"]
    steering: list[str]
    followUp: list[str]


class AutoRetryStartEvent(TypedDict):
    type: Literal["auto_retry_start"]
    attempt: int
    maxAttempts: int
    delayMs: int
    errorMessage: str


class AutoRetryEndEvent(TypedDict):
    type: Literal["auto_retry_end"]
    success: bool
    attempt: int
    finalError: NotRequired[str]


class EntryAppendedEvent(TypedDict):
    type: Literal["entry_appended"]
    entry: SessionEntry


class SessionInfoChangedEvent(TypedDict):
    type: Literal["session_info_changed"]
    name: NotRequired[str]


class ThinkingLevelChangedEvent(TypedDict):
    type: Literal["thinking_level_changed"]
    level: str


class BashExecutionUpdateEvent(TypedDict):
    """Output of a user shell command as it arrives; ``id`` is the originating RPC command id."""

    type: Literal["bash_execution_update"]
    delta: str
    id: NotRequired[str]


class ModelChangedEvent(TypedDict):
    """pi-harness's own: the session's model changed (``set_model``, cycling, restore). For
    in-process listeners (the interactive footer, SDK hosts); not written on the JSON/RPC wire,
    where Pi has no such event."""

    type: Literal["model_changed"]
    model: Model
    previousModel: Model | None
    source: Literal["set", "cycle", "restore"]


def report_listener_error(error: Exception, event: dict[str, object]) -> None:
    detail = "".join(traceback.format_exception(error))
    sys.stderr.write(f"Session event listener failed on {event.get('type')!s}: {detail}")


def _as_dict(event: Mapping[str, object]) -> dict[str, object]:
    # Events are dicts already (TypedDicts are dicts at run time); listeners get that very object.
    return event if isinstance(event, dict) else dict(event)


class SessionEvents:
    """The subscribers of one session, and the announcement of entries written to its file."""

    __slots__ = ("_kinds", "_listeners", "_manager", "_unfiltered")

    def __init__(self, manager: SessionManager) -> None:
        self._manager = manager
        self._listeners: ListenerRegistry[dict[str, object]] = ListenerRegistry(report_listener_error)
        # Listeners that act on every event, and the event types the others act on (``wants``).
        self._unfiltered = 0
        self._kinds: Counter[str] = Counter()

    def subscribe(self, listener: SessionListener, kinds: Collection[str] | None = None) -> Callable[[], None]:
        """Register ``listener``; the returned function unsubscribes it (idempotent). ``kinds``:
        the only event types the listener acts on (it is still called with every event), so that
        an event no listener acts on need not be delivered at all (``wants``)."""
        unsubscribe = self._listeners.subscribe(listener)
        wanted = frozenset(kinds) if kinds is not None else None
        if wanted is None:
            self._unfiltered += 1
        else:
            self._kinds.update(wanted)
        subscribed = True

        def forget() -> None:
            nonlocal subscribed
            if subscribed:
                subscribed = False
                if wanted is None:
                    self._unfiltered -= 1
                else:
                    self._kinds.subtract(wanted)
            unsubscribe()

        return forget

    def wants(self, kind: object) -> bool:
        """Whether a listener acts on events of this type (else ``emit`` may be skipped)."""
        # ``get``: a missing type of a ``Counter`` costs a ``__missing__`` call per event otherwise.
        return self._unfiltered > 0 or (isinstance(kind, str) and self._kinds.get(kind, 0) > 0)

    def __len__(self) -> int:
        return len(self._listeners)

    async def emit(self, event: Mapping[str, object]) -> None:
        await self._listeners.deliver(_as_dict(event))

    def emit_soon(self, event: Mapping[str, object]) -> None:
        """For synchronous callers: plain listeners run now, awaitable results are scheduled."""
        self._listeners.deliver_soon(_as_dict(event))

    async def drain(self) -> None:
        """Wait for the scheduled deliveries of ``emit_soon``."""
        await self._listeners.drain()

    # -- entries ----------------------------------------------------------------------------------

    def _appended(self, entry_id: str) -> EntryAppendedEvent | None:
        entry = self._manager.get_entry(entry_id)
        return {"type": "entry_appended", "entry": entry} if entry is not None else None

    def announce_entry_soon(self, entry_id: str) -> None:
        """``entry_appended`` for an entry just written (synchronous callers); only for the
        entries Pi announces (see the module's description)."""
        event = self._appended(entry_id)
        if event is not None:
            self.emit_soon(event)

    async def announce_entry(self, entry_id: str) -> None:
        """``entry_appended`` for an entry just written, delivered before returning."""
        event = self._appended(entry_id)
        if event is not None:
            await self.emit(event)


__all__ = [
    "AgentSettledEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "EntryAppendedEvent",
    "ModelChangedEvent",
    "QueueUpdateEvent",
    "SessionEvents",
    "SessionInfoChangedEvent",
    "SessionListener",
    "ThinkingLevelChangedEvent",
    "report_listener_error",
]
