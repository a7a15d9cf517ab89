"""Putting one session's records on disk.

* The file is created with an exclusive create (``O_EXCL``, Node's ``"wx"``) holding the header
  and every buffered entry, the first time the session qualifies (first user or assistant
  message), so a session that never gets a real message leaves no file behind.
* Every later entry is one append of one line (``O_APPEND``, a single ``write``), through a
  descriptor kept open between appends while the path still names the file it was opened on
  (one ``stat`` per append instead of an ``open`` and a ``close``): a file deleted or replaced
  under us is seen as before, by its path.
* A file that did not end with ``\\n`` (a torn last line) gets one before the next record.
* Whole-file rewrites (migration) go through a temp file and a rename.
* Files and directories created here are ``0600`` / ``0700`` (beyond Pi, which leaves them to the
  umask): sessions hold secrets. Existing files keep their mode.

Beyond Pi, both off by default: ``fsync`` makes every append durable before it is acknowledged
(and the directory after the file was created); ``lock`` holds a cross-process lock while this
process writes the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable
from pathlib import Path

from pi_harness.coding.session_store.jsonl import (
    SESSION_FILE_MODE,
    atomic_write,
    encode_record,
    fsync_directory,
    make_private_dirs,
)
from pi_harness.coding.session_store.lock import SessionFileLock

_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _write_and_close(fd: int, data: bytes, *, fsync: bool) -> None:
    """Write all of ``data`` to the open ``fd`` (durably with ``fsync``), then close it."""
    try:
        _write_all(fd, data)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


class SessionWriter:
    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False, lock: bool = False) -> None:
        self.path = Path(path)
        self._name = os.fspath(self.path)
        self.fsync = fsync
        self._lock = SessionFileLock(self.path) if lock else None
        self._needs_newline = False
        # The append descriptor and the (device, inode) of the file it is open on.
        self._fd = -1
        self._file: tuple[int, int] = (-1, -1)

    def __del__(self) -> None:
        fd = getattr(self, "_fd", -1)  # absent when ``__init__`` failed
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _drop(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def _append_fd(self) -> int:
        """A descriptor appending to the file the path names now (``FileNotFoundError`` when none)."""
        info = os.stat(self._name)
        if self._fd >= 0 and (info.st_dev, info.st_ino) == self._file:
            return self._fd
        self._drop()
        fd = os.open(self._name, _APPEND_FLAGS)
        opened = os.fstat(fd)
        self._fd, self._file = fd, (opened.st_dev, opened.st_ino)
        return fd

    def claim(self) -> None:
        """Take the cross-process lock (when enabled) before touching an existing file."""
        if self._lock is not None:
            self._lock.acquire()

    def note_torn_tail(self, ends_with_newline: bool) -> None:
        self._needs_newline = not ends_with_newline

    def create(self, records: Iterable[object]) -> None:
        """Write a new file holding ``records``; fails if the path already holds data."""
        self.claim()
        make_private_dirs(self.path.parent)
        data = b"".join(encode_record(r) for r in records)
        self._drop()
        try:
            fd = os.open(self.path, _CREATE_FLAGS, SESSION_FILE_MODE)
        except FileExistsError:
            # An existing but blank file (e.g. opened explicitly while empty) may be reused.
            if self.path.is_file() and not self.path.read_bytes().strip():
                fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0))
            else:
                raise FileExistsError(errno.EEXIST, "Session file already exists", str(self.path)) from None
        _write_and_close(fd, data, fsync=self.fsync)
        if self.fsync:
            fsync_directory(self.path.parent)
        self._needs_newline = False

    def append(self, record: object) -> None:
        """Append one record; raises ``FileNotFoundError`` if the file vanished."""
        data = encode_record(record)
        if self._needs_newline:
            data = b"\n" + data
        fd = self._append_fd()
        try:
            _write_all(fd, data)
            if self.fsync:
                os.fsync(fd)
        except BaseException:
            self._drop()  # the next append opens the file again, as every append used to
            raise
        self._needs_newline = False

    def rewrite(self, records: Iterable[object]) -> None:
        """Atomically replace the file's whole content."""
        self.claim()
        self._drop()
        atomic_write(self.path, records, sync_directory=self.fsync)
        self._needs_newline = False

    def close(self) -> None:
        self._drop()
        if self._lock is not None:
            self._lock.release()
