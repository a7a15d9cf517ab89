"""A directory lock compatible with Pi's ``proper-lockfile`` (``<file>.lock`` directory).

Pi and pi-harness may write the same ``auth.json``/``settings.json``/``trust.json``; both take
the lock by creating the directory ``<file>.lock`` (atomic ``mkdir``) and treat a lock whose
mtime is older than the stale period as abandoned.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path


class LockTimeout(TimeoutError):
    pass


@contextlib.contextmanager
def locked(path: Path, *, attempts: int = 10, delay_s: float = 0.02, stale_s: float = 10.0) -> Iterator[None]:
    lock = path.with_name(path.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(attempts * 25):
        try:
            lock.mkdir()
            break
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime > stale_s:
                    with contextlib.suppress(OSError):
                        lock.rmdir()
                    continue
            except FileNotFoundError:
                continue
            if attempt >= attempts * 25 - 1:
                raise LockTimeout(f"Could not acquire lock on {path}")
            time.sleep(delay_s)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.rmdir()


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write via a temp file in the same directory and rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode if mode is not None else 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
