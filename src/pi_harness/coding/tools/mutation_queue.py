"""Per-file serialisation of mutating file operations.

Writes and edits of the same real path run one after another in arrival order (``asyncio.Lock``
is FIFO); operations on different files run in parallel. Cancelling a waiting caller never lets
the next operation start while the current one is still touching the file: the lock is released
only once the operation itself has finished.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class _Slot:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


_slots: dict[str, _Slot] = {}


def mutation_key(path: str) -> str:
    """``realpath`` of the file; for a missing file, the real path of its nearest existing
    ancestor joined with the remaining components (so a symlinked parent maps to one key)."""
    absolute = os.path.abspath(path)
    missing: list[str] = []
    current = absolute
    while not os.path.lexists(current):
        parent, name = os.path.split(current)
        if parent == current:
            break
        missing.append(name)
        current = parent
    real = os.path.realpath(current)
    return os.path.join(real, *reversed(missing)) if missing else real


async def _finish_uncancelled(task: asyncio.Future[T]) -> None:
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            continue
        except Exception:
            return
    if not task.cancelled():
        task.exception()  # mark it retrieved: the caller is gone and only needs the lock released


async def with_file_mutation_queue(path: str, operation: Callable[[], Awaitable[T]]) -> T:
    """Run ``operation`` once every earlier mutation of the same file has finished."""
    key = mutation_key(path)
    slot = _slots.get(key)
    if slot is None:
        slot = _slots[key] = _Slot()
    slot.users += 1
    try:
        async with slot.lock:
            task = asyncio.ensure_future(operation())
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                # The caller gave up, but the file operation keeps running: hold the lock until
                # it is done so a queued mutation can never interleave with it.
                await _finish_uncancelled(task)
                raise
    finally:
        slot.users -= 1
        if slot.users == 0 and _slots.get(key) is slot:
            del _slots[key]


def pending_mutations() -> int:
    """How many files currently have a queued or running mutation (for diagnostics and tests)."""
    return len(_slots)
