"""Cross-process advisory lock of a session file (beyond Pi; setting ``sessions.lock``).

Pi lets two processes append to the same session file and interleave their lines. With the lock
enabled, the process that writes a session holds ``<file>.lock`` (``filelock``, an OS-level lock
released automatically when the process dies); a second writer is refused with a clear error.
Reading never takes the lock.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_harness.coding.session_store.jsonl import make_private_dirs


class SessionLockedError(RuntimeError):
    """Another process is writing this session file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        super().__init__(
            f"Session file is in use by another process: {self.path} "
            "(close the other pi process, or open the session read-only)"
        )


def lock_path_for(session_file: str | os.PathLike[str]) -> Path:
    path = Path(session_file)
    return path.with_name(path.name + ".lock")


class SessionFileLock:
    """A non-blocking exclusive lock on one session file."""

    def __init__(self, session_file: str | os.PathLike[str]) -> None:
        from filelock import FileLock  # imported on first use: ``filelock`` is slow to import

        self.session_file = Path(session_file)
        self._lock = FileLock(lock_path_for(session_file), timeout=0, thread_local=False)

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def acquire(self) -> None:
        """Take the lock or raise ``SessionLockedError`` at once (never waits)."""
        from filelock import Timeout

        if self._lock.is_locked:
            return
        make_private_dirs(self.session_file.parent)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise SessionLockedError(self.session_file) from None

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release(force=True)
