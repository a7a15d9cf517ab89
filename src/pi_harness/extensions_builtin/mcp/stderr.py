"""Relay a stdio server's stderr into mcp.log, one prefixed line at a time.

The SDK hands ``errlog`` to the child process as its stderr, so it must be a real file. We give
it the write end of a pipe, close our copy once the child exists, and read the other end on the
event loop. A grandchild that keeps the pipe open cannot hold shutdown up: ``close`` cancels the
reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import TextIO

from pi_harness.extensions_builtin.mcp.log import McpLog

_MAX_LINE = 64 * 1024


class StderrRelay:
    def __init__(self, log: McpLog, server: str) -> None:
        self._log = log
        self._server = server
        read_fd, write_fd = os.pipe()
        self._reader_file = os.fdopen(read_fd, "rb", buffering=0)
        self.errlog: TextIO = os.fdopen(write_fd, "w", encoding="utf-8")
        self._task: asyncio.Task[None] | None = None

    def spawned(self) -> None:
        """The child has its own copy of the write end: drop ours and start reading."""
        self.errlog.close()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=_MAX_LINE)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), self._reader_file)
        try:
            while True:
                try:
                    line = await reader.readline()
                except ValueError:  # a line beyond the limit: log what arrived and go on
                    line = await reader.read(_MAX_LINE)
                if not line:
                    return
                text = line.decode("utf-8", errors="replace").rstrip()
                if text:
                    self._log.write(self._server, f"stderr: {text}")
        finally:
            transport.close()

    async def close(self) -> None:
        if not self.errlog.closed:
            self.errlog.close()
        task, self._task = self._task, None
        if task is None:
            self._reader_file.close()
            return
        # Give the reader a moment to drain what the server wrote while exiting.
        with contextlib.suppress(asyncio.CancelledError, TimeoutError, OSError):
            await asyncio.wait_for(asyncio.shield(task), 0.2)
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await task
        self._reader_file.close()
