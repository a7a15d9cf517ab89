"""A read timeout that costs next to nothing per read: one timer per connection, re-armed lazily.

A streamed response is read in many small pieces, each under the read timeout (no byte for that
long ends the request). ``asyncio.timeout`` per read schedules and cancels a timer every time,
which costs ten times the read of a chunk that is already there. ``ReadDeadline`` instead records
the deadline of the current read and keeps a single timer: when it fires early (the reads went on
meanwhile) it is set again for the newest deadline; when it fires late enough during a read, the
reading task is cancelled and the read reports ``TimeoutError``. A cancellation from elsewhere
(an abort) is passed on as it is, as ``asyncio.timeout`` does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class ReadDeadline:
    __slots__ = ("_deadline", "_expired", "_handle", "_handle_at", "_task")

    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None
        self._handle_at = 0.0
        self._deadline = 0.0
        self._task: asyncio.Task[object] | None = None  # the task inside a read, while it waits
        self._expired = False

    async def run(self, read: Awaitable[T], timeout: float | None) -> T:
        """``await read``, or ``TimeoutError`` after ``timeout`` seconds (``None``: no limit)."""
        if timeout is None:
            return await read
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        self._deadline = loop.time() + timeout
        if self._handle is None or self._handle_at > self._deadline:
            self._schedule(loop, self._deadline)
        self._task, self._expired = task, False
        try:
            return await read
        except asyncio.CancelledError:
            if self._expired and task.uncancel() == 0:
                raise TimeoutError from None
            raise
        finally:
            self._task = None

    def _schedule(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle, self._handle_at = loop.call_at(when, self._fire), when

    def _fire(self) -> None:
        self._handle = None
        task = self._task
        if task is None:
            return  # between reads: the next read sets a timer of its own
        loop = task.get_loop()
        if loop.time() < self._deadline:
            self._schedule(loop, self._deadline)  # reads went on since this timer was set
            return
        self._expired = True
        task.cancel()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._task = None


__all__ = ["ReadDeadline"]
