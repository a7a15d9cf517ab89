"""Non-interactive modes own stdout: only their records or answer reach it.

``take_over_stdout()`` keeps a private duplicate of file descriptor 1 for the protocol output and
points descriptor 1 and ``sys.stdout`` at stderr. Stray output - ``print()`` in a library or an
extension, logging handlers bound to stdout, child processes that inherit descriptor 1 - then lands
on stderr and can never corrupt a JSONL stream. Protocol output goes through ``RawStdout``, which
writes whole records to the private descriptor and flushes at once.

A reader that goes away (EPIPE) ends the process with exit code 1: nothing more can be delivered,
and unwinding through the agent loop could wait on work whose results nobody will read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
from collections.abc import Callable
from typing import TextIO

BROKEN_PIPE_EXIT_CODE = 1


def exit_on_broken_pipe() -> None:
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(BROKEN_PIPE_EXIT_CODE)


class RawStdout:
    """Unbuffered writes of whole records to the real stdout descriptor."""

    def __init__(self, fd: int | None, on_broken_pipe: Callable[[], None] = exit_on_broken_pipe) -> None:
        self._fd = fd
        self._on_broken_pipe = on_broken_pipe
        self._lock = threading.Lock()
        self.broken = fd is None

    def write(self, data: bytes | str) -> None:
        payload = data.encode("utf-8") if isinstance(data, str) else data
        with self._lock:
            if self.broken or self._fd is None:
                self._broken()
                return
            view = memoryview(payload)
            try:
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
            except OSError as exc:
                if exc.errno != errno.EPIPE:
                    raise
                self.broken = True
                self._broken()

    def write_line(self, text: str) -> None:
        """One record: ``text`` followed by a single ``\\n`` (LF-only framing)."""
        self.write(text + "\n")

    def flush(self) -> None:
        """Writes are never buffered; present so the writer can stand in for a stream."""

    def fileno(self) -> int:
        if self._fd is None:
            raise OSError("stdout is not available")
        return self._fd

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None
                self.broken = True

    def _broken(self) -> None:
        self._on_broken_pipe()


class StdoutTakeover:
    """The state of a takeover; ``restore()`` puts descriptor 1 and ``sys.stdout`` back."""

    def __init__(self, raw: RawStdout, saved_fd: int | None, previous_stdout: TextIO | None) -> None:
        self.raw = raw
        self._saved_fd = saved_fd
        self._previous_stdout = previous_stdout
        self.active = True

    def restore(self) -> None:
        if not self.active:
            return
        self.active = False
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        if self._saved_fd is not None:
            with contextlib.suppress(OSError):
                os.dup2(self._saved_fd, 1)
                os.close(self._saved_fd)
            self._saved_fd = None
        self.raw.close()
        sys.stdout = self._previous_stdout

    def __enter__(self) -> StdoutTakeover:
        return self

    def __exit__(self, *_: object) -> None:
        self.restore()


def take_over_stdout(on_broken_pipe: Callable[[], None] = exit_on_broken_pipe) -> StdoutTakeover:
    """Redirect stray stdout to stderr and return the raw writer for protocol output."""
    previous = sys.stdout
    with contextlib.suppress(Exception):
        if previous is not None:
            previous.flush()
    try:
        saved = os.dup(1)
    except OSError:
        saved = None
    private: int | None = None
    if saved is not None:
        # A second duplicate for the writer, so restore() still has one after the writer closes.
        private = os.dup(saved)
        os.set_inheritable(private, False)
        with contextlib.suppress(OSError):
            os.dup2(2, 1)
    sys.stdout = sys.stderr
    return StdoutTakeover(RawStdout(private, on_broken_pipe), saved, previous)
