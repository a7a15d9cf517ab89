"""Record output for JSON and RPC modes: compact JSON, one record per ``\\n``, never blocking.

Records are serialised at once and handed to a writer thread, so a client that reads slowly (or
stops reading) never blocks the agent and no record is lost; ``flush()`` waits until everything
queued has been written (before exiting).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Mapping
from typing import Protocol

from pi_harness.ai.jsonutil import dumps


class ByteSink(Protocol):
    def write(self, data: bytes | str) -> None: ...


# One record: a JSON object, serialised at once and never changed here.
Record = Mapping[str, object]
_STOP = object()


class RecordWriter:
    def __init__(self, sink: ByteSink) -> None:
        self._sink = sink
        self._queue: queue.SimpleQueue[bytes | object] = queue.SimpleQueue()
        self._pending = 0
        self._lock = threading.Lock()
        self._drained = threading.Event()
        self._drained.set()
        self._thread = threading.Thread(target=self._run, name="pi-record-writer", daemon=True)
        self._thread.start()

    def write(self, record: Record) -> None:
        data = dumps(record) + b"\n"
        with self._lock:
            self._pending += 1
            self._drained.clear()
        self._queue.put(data)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if not isinstance(item, bytes):  # the stop marker
                return
            try:
                self._sink.write(item)
            finally:
                with self._lock:
                    self._pending -= 1
                    if self._pending == 0:
                        self._drained.set()

    def flush_sync(self, timeout: float | None = None) -> bool:
        return self._drained.wait(timeout)

    async def flush(self, timeout: float | None = 10.0) -> bool:
        return await asyncio.to_thread(self._drained.wait, timeout)

    def close(self) -> None:
        self._queue.put(_STOP)
