"""Replacing a file's content atomically while keeping its mode.

The new content goes to a temporary file in the same directory, gets the old file's permission
bits (or the umask default for a new file) and is renamed over the target, so readers see either
the old or the new content, never a half-written file. A symbolic link is followed: its target is
replaced and the link stays. Where the directory is not writable, the file is rewritten in place.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading

_umask_lock = threading.Lock()


def current_umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:  # os.umask can only be read by setting it
        value = os.umask(0o022)
        os.umask(value)
    return value


def write_file_atomic(path: str, data: bytes) -> None:
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~current_umask()
    try:
        fd, temp_path = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    except PermissionError:
        with open(target, "wb") as handle:
            handle.write(data)
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp_path, mode)
        if existing is not None and hasattr(os, "chown"):
            with contextlib.suppress(OSError):  # only root can give a file away
                os.chown(temp_path, existing.st_uid, existing.st_gid)
        os.replace(temp_path, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_path)
        raise
