"""Agent event listeners: awaited one after another, in registration order.

A slow listener back-pressures the loop (1.4.0). A listener that raises is reported (to the
configured handler, else as a traceback on stderr) and skipped; the run and the remaining
listeners go on.
"""

from __future__ import annotations

import inspect
import sys
import traceback
from collections.abc import Callable

from pi_harness.agent.hooks import ListenerErrorHandler
from pi_harness.agent.types import AgentEvent, AgentListener


def report_to_stderr(error: Exception, event: AgentEvent) -> None:
    detail = "".join(traceback.format_exception(error))
    sys.stderr.write(f"Agent event listener failed on {event.get('type')!s}: {detail}")


class Listeners:
    __slots__ = ("_listeners", "_on_error")

    def __init__(self, on_error: Callable[[], ListenerErrorHandler | None] | None = None) -> None:
        self._listeners: list[AgentListener] = []
        # Looked up per failure so a host can change the handler at any time.
        self._on_error = on_error

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        """Register ``listener``; the returned function unsubscribes it (idempotent)."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def __len__(self) -> int:
        return len(self._listeners)

    async def deliver(self, event: AgentEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                outcome = listener(event)
                if outcome is not None and inspect.isawaitable(outcome):
                    await outcome
            except Exception as error:
                self._report(error, event)

    def _report(self, error: Exception, event: AgentEvent) -> None:
        handler = self._on_error() if self._on_error is not None else None
        try:
            (handler or report_to_stderr)(error, event)
        except Exception:
            report_to_stderr(error, event)
