"""Listener registries: the one way the harness hands events to subscribers.

A registry keeps its listeners in subscription order and awaits them one after another, so a
slow listener back-pressures the producer (1.4.0). What happens when a listener raises is the
owner's choice: with a ``report`` function the failure is reported and the remaining listeners
still get the event; without one the exception reaches the producer.

The ``Agent`` holds one for its events (failures go to ``on_listener_error``, else stderr); the
coding session holds one for session events, one for shutdown requests, and its runtime one for
session replacements.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import traceback
from collections.abc import Callable
from types import CoroutineType
from typing import Generic, TypeAlias, TypeVar

from pi_harness.agent.hooks import ListenerErrorHandler
from pi_harness.agent.types import AgentEvent

E = TypeVar("E")

# A listener may be a plain function or a coroutine function: an awaitable result is awaited,
# anything else it returns is ignored.
Listener: TypeAlias = Callable[[E], object]
ErrorReport: TypeAlias = Callable[[Exception, E], None]


class ListenerRegistry(Generic[E]):
    """Subscribers of one kind of event, called in subscription order."""

    __slots__ = ("_listeners", "_pending", "_report")

    def __init__(self, report: ErrorReport[E] | None = None) -> None:
        self._listeners: list[Listener[E]] = []
        self._report = report
        # Deliveries started by ``deliver_soon`` that are still running.
        self._pending: set[asyncio.Future[None]] = set()

    def subscribe(self, listener: Listener[E]) -> Callable[[], None]:
        """Register ``listener``; the returned function unsubscribes it (idempotent)."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def __len__(self) -> int:
        return len(self._listeners)

    async def deliver(self, event: E) -> None:
        """Call every listener with ``event``, awaiting each before the next."""
        for listener in tuple(self._listeners):
            try:
                outcome = listener(event)
                # A coroutine (most listeners are coroutine functions) without asking ``inspect``.
                if outcome is not None and (type(outcome) is CoroutineType or inspect.isawaitable(outcome)):
                    await outcome
            except Exception as error:
                self._failed(error, event)

    def deliver_soon(self, event: E) -> None:
        """For synchronous producers: plain listeners run now, awaitable results are scheduled
        (``drain`` waits for them)."""
        for listener in tuple(self._listeners):
            try:
                outcome = listener(event)
            except Exception as error:
                self._failed(error, event)
                continue
            if outcome is not None and inspect.isawaitable(outcome):
                self._track(asyncio.ensure_future(outcome), event)

    async def drain(self) -> None:
        """Wait until the deliveries scheduled by ``deliver_soon`` have finished."""
        while self._pending:
            await asyncio.gather(*tuple(self._pending), return_exceptions=True)

    def _track(self, future: asyncio.Future[None], event: E) -> None:
        self._pending.add(future)

        def done(finished: asyncio.Future[None]) -> None:
            self._pending.discard(finished)
            if finished.cancelled():
                return
            error = finished.exception()
            # asyncio re-raises BaseExceptions that are not Exceptions (KeyboardInterrupt,
            # SystemExit) out of the event loop, so only Exceptions arrive here.
            if isinstance(error, Exception):
                self._failed(error, event)

        future.add_done_callback(done)

    def _failed(self, error: Exception, event: E) -> None:
        if self._report is None:
            raise error
        self._report(error, event)


# --- the agent's reporting ------------------------------------------------------------------------


def report_to_stderr(error: Exception, event: AgentEvent) -> None:
    detail = "".join(traceback.format_exception(error))
    sys.stderr.write(f"Agent event listener failed on {event.get('type')!s}: {detail}")


def agent_error_report(handler: Callable[[], ListenerErrorHandler | None]) -> ErrorReport[AgentEvent]:
    """Report to the handler ``handler()`` returns at the time of the failure (so a host may change
    it at any time), else to stderr; a failing handler falls back to stderr too."""

    def report(error: Exception, event: AgentEvent) -> None:
        current = handler()
        try:
            (current or report_to_stderr)(error, event)
        except Exception:
            report_to_stderr(error, event)

    return report


__all__ = ["ErrorReport", "Listener", "ListenerRegistry", "agent_error_report", "report_to_stderr"]
