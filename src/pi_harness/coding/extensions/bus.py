"""``pi.events``: a shared bus extensions use to talk to each other.

Handler errors are logged and never propagated, so one extension cannot break another.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import sys
from collections.abc import Callable

# ``handler(data)``; it may return an awaitable, which runs as a task of its own.
BusHandler = Callable[[object], object]


class EventBus:
    def __init__(self) -> None:
        self._handlers: dict[str, list[BusHandler]] = {}

    def on(self, channel: str, handler: BusHandler) -> Callable[[], None]:
        self._handlers.setdefault(channel, []).append(handler)

        def unsubscribe() -> None:
            handlers = self._handlers.get(channel, [])
            if handler in handlers:
                handlers.remove(handler)

        return unsubscribe

    def emit(self, channel: str, data: object = None) -> None:
        for handler in list(self._handlers.get(channel, [])):
            try:
                result = handler(data)
                if inspect.isawaitable(result):
                    task = asyncio.ensure_future(result)
                    task.add_done_callback(functools.partial(_log_task_error, channel))
            except Exception as exc:
                print(f"Event handler error ({channel}): {exc}", file=sys.stderr)

    def clear(self) -> None:
        self._handlers.clear()


def _log_task_error(channel: str, task: asyncio.Future[object]) -> None:
    if not task.cancelled() and task.exception() is not None:
        print(f"Event handler error ({channel}): {task.exception()}", file=sys.stderr)
