"""Session events (agent-loop.md section 9.2) and the listeners that receive them.

Session listeners get every agent event (``runId`` included, ``agent_end`` extended with
``willRetry``) plus the session's own events below, as plain dicts with Pi's camelCase keys.
Listeners are awaited one after another in subscription order, so a slow listener
back-pressures the session (as in Pi 1.4.0); a listener that raises is reported on stderr and
skipped.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.types import Model
from pi_harness.coding.session_store.entries import SessionEntry

SessionListener: TypeAlias = Callable[[dict[str, Any]], "Awaitable[None] | None"]


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
    """pi-harness's own: the session's model changed (``set_model``, cycling, restore)."""

    type: Literal["model_changed"]
    model: Model
    previousModel: Model | None
    source: Literal["set", "cycle", "restore"]


def report_listener_error(error: BaseException, event: dict[str, Any]) -> None:
    detail = "".join(traceback.format_exception(error))
    sys.stderr.write(f"Session event listener failed on {event.get('type')!s}: {detail}")


class SessionListeners:
    """The subscribers of one session."""

    __slots__ = ("_background", "_listeners")

    def __init__(self) -> None:
        self._listeners: list[SessionListener] = []
        self._background: set[asyncio.Future[Any]] = set()

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Register ``listener``; the returned function unsubscribes it (idempotent)."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def __len__(self) -> int:
        return len(self._listeners)

    async def emit(self, event: dict[str, Any]) -> None:
        for listener in tuple(self._listeners):
            try:
                outcome = listener(event)
                if outcome is not None and inspect.isawaitable(outcome):
                    await outcome
            except Exception as error:
                report_listener_error(error, event)

    def emit_soon(self, event: dict[str, Any]) -> None:
        """For synchronous callers: plain listeners run now, awaitable results are scheduled."""
        for listener in tuple(self._listeners):
            try:
                outcome = listener(event)
            except Exception as error:
                report_listener_error(error, event)
                continue
            if outcome is not None and inspect.isawaitable(outcome):
                self._track(asyncio.ensure_future(outcome), event)

    def _track(self, future: asyncio.Future[Any], event: dict[str, Any]) -> None:
        self._background.add(future)

        def done(finished: asyncio.Future[Any]) -> None:
            self._background.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                report_listener_error(finished.exception(), event)  # type: ignore[arg-type]

        future.add_done_callback(done)

    async def drain(self) -> None:
        """Wait for the scheduled deliveries of ``emit_soon``."""
        while self._background:
            await asyncio.gather(*tuple(self._background), return_exceptions=True)


def message_text(message: Any) -> str:
    """The text a user sees in a message: string content, or its text blocks joined."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")


__all__ = [
    "AgentSettledEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "EntryAppendedEvent",
    "ModelChangedEvent",
    "QueueUpdateEvent",
    "SessionInfoChangedEvent",
    "SessionListener",
    "SessionListeners",
    "ThinkingLevelChangedEvent",
    "message_text",
    "report_listener_error",
]
