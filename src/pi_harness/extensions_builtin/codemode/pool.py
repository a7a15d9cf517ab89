"""Worker slots shared by every session of the process: at most two scripts run at once
(``PI_CODEMODE_MAX_WORKERS``), later ones wait in arrival order, 60 s at most. A slot is freed when
its worker process has exited, so a cancelled worker holds its slot until it is gone."""

from __future__ import annotations

import asyncio
import os
from collections import deque

DEFAULT_MAX_WORKERS = 2
WORKER_WAIT_S = 60.0


def max_workers() -> int:
    try:
        value = int(os.environ.get("PI_CODEMODE_MAX_WORKERS", ""))
    except ValueError:
        return DEFAULT_MAX_WORKERS
    return value if value > 0 else DEFAULT_MAX_WORKERS


class WorkerPool:
    def __init__(self) -> None:
        self.busy = 0
        self._queue: deque[asyncio.Future[None]] = deque()

    async def acquire(self, timeout_s: float) -> bool:
        if self.busy < max_workers() and not self._queue:
            self.busy += 1
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout_s)
            return True
        except TimeoutError:
            self._abandon(waiter)
            return False
        except asyncio.CancelledError:
            self._abandon(waiter)
            raise

    def _abandon(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done() and not waiter.cancelled():
            self.release()  # granted just as the caller gave up
            return
        waiter.cancel()
        if waiter in self._queue:
            self._queue.remove(waiter)

    def release(self) -> None:
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot passes to the next waiter
                return
        self.busy = max(0, self.busy - 1)


POOL = WorkerPool()
