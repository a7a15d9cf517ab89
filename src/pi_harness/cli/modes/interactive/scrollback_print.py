"""A long conversation printed into the scrollback while it is still being laid out.

Resuming a session prints every block of its conversation before the screen starts. Laying the
blocks out (markdown, highlighting, wrapping) and the terminal taking in the text (a megabyte for
a couple of thousand messages) take about as long as each other; done one after the other they
add up. Here a thread writes batches of lines while the caller renders the next blocks, so the
terminal reads the first screens while the later ones are still being drawn. The bytes written
are the same as one write of all lines; ``print_while_rendering`` returns once all are written.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable, Iterable

# Characters per batch: small enough that the terminal starts early, large enough that handing a
# batch to the thread (which waits for the interpreter lock each time) is rare.
BATCH_CHARS = 32_768


class _Writer:
    """A thread that writes the batches it is given, in order, with ``write``."""

    def __init__(self, write: Callable[[list[str]], None]) -> None:
        self._write = write
        self._batches: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="scrollback-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (batch := self._batches.get()) is not None:
            if self.error is not None:
                continue  # after a failed write only the end is awaited
            try:
                self._write(batch)
            except Exception as error:  # handed to the caller by put() or close()
                self.error = error

    def put(self, batch: list[str]) -> None:
        if self.error is not None:
            raise self.error
        self._batches.put(batch)

    def close(self) -> None:
        """Wait until everything handed over is written; the writer's error, if any, is raised."""
        self._batches.put(None)
        self._thread.join()
        if self.error is not None:
            raise self.error


def print_while_rendering(blocks: Iterable[list[str]], write: Callable[[list[str]], None]) -> None:
    """Write the lines of ``blocks`` (rendered as the iteration goes) with ``write``, in batches
    of about ``BATCH_CHARS`` characters, from a thread; returns when all of them are written."""
    pending = iter(blocks)
    first = next(pending, None)
    if first is None:
        return  # nothing finished: no thread
    writer = _Writer(write)
    try:
        batch: list[str] = []
        size = 0
        for lines in itertools.chain([first], pending):
            batch.extend(lines)
            size += sum(map(len, lines))
            if size >= BATCH_CHARS:
                writer.put(batch)
                batch, size = [], 0
        if batch:
            writer.put(batch)
    finally:
        writer.close()
