"""Lost-update protection for ``edit`` and ``write`` (beyond Pi).

``read`` records, per file, what the model saw: size, modification time and a BLAKE2b digest of
the whole file (CPython's own ``_blake2``: importing ``hashlib`` loads OpenSSL's libcrypto, some
10 ms at a session's first read, and the digest never leaves this process). ``edit`` (setting
``tools.staleEditCheck``, on by default) and ``write`` (``tools.staleWriteCheck``, off by
default) refuse to change a file whose content differs from that record: someone else (an
editor, a formatter, another agent, a ``bash`` command) changed it after the model looked, and
applying the model's change would silently drop theirs. A successful ``edit`` or ``write``
records what it wrote, so the model's own changes never count as foreign.

The decision is taken on the content hash: a file that was only touched (same bytes, new
modification time) is still fresh, and a change within the file system's timestamp granularity
is still seen. A file the model never read is not checked (Pi's behaviour: edit works as before).
The record lives with the session's tools, in memory; a resumed session starts with none.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.coding.tools.mutation_queue import mutation_key
from pi_harness.coding.tools.results import ToolError

if TYPE_CHECKING:
    from _blake2 import blake2b


@dataclass(frozen=True)
class FileView:
    """What the model last saw of a file."""

    size: int
    mtime_ns: int | None  # ``None`` where the file is not on this machine's file system
    digest: str


def _hash(data: bytes = b"") -> blake2b:
    from _blake2 import blake2b  # without hashlib, which loads OpenSSL's libcrypto (MiBs)

    return blake2b(data, digest_size=32)


def _mtime_ns(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def stale_text(shown: str, action: str) -> str:
    return (
        f"{shown} has changed on disk since you last read it, so the {action} was not applied and the file "
        f"was left as it is. Read {shown} again and redo the {action} against its current content."
    )


class FileViews:
    """The files of one session's tools, by real path (the key of the mutation queue).

    A record is filed under the path it was made for and moved under its real path only when a
    record is asked for (``get``, by ``edit`` and ``write``): resolving a real path takes a
    system call per path component, and most sessions read far more often than they change a
    file. Moving the waiting records in the order they were made keeps the newest one per file.
    """

    def __init__(self) -> None:
        self._views: dict[str, FileView] = {}
        self._unresolved: dict[str, FileView] = {}  # by the path made for, oldest first

    def get(self, path: str) -> FileView | None:
        if self._unresolved:
            waiting, self._unresolved = self._unresolved, {}
            for made_for, view in waiting.items():
                self._views[mutation_key(made_for)] = view
        return self._views.get(mutation_key(path))

    def saw(self, path: str, data: bytes, mtime_ns: int | None = None) -> None:
        """The model now knows ``data`` as the content of ``path`` (read, or written by our tools);
        ``mtime_ns``: the file's modification time as the caller found it (else looked up)."""
        self._record(path, len(data), _hash(data).hexdigest(), mtime_ns)

    def _record(self, path: str, size: int, digest: str, mtime_ns: int | None = None) -> None:
        view = FileView(size, _mtime_ns(path) if mtime_ns is None else mtime_ns, digest)
        unresolved = self._unresolved
        unresolved.pop(path, None)  # to the end: the newest record of a file is moved last
        unresolved[path] = view

    def is_stale(self, path: str, current: bytes) -> bool:
        """Whether ``current`` differs from what the model last saw (never, for a file not seen)."""
        view = self.get(path)
        if view is None:
            return False
        return view.size != len(current) or view.digest != _hash(current).hexdigest()

    def check(self, path: str, current: bytes, shown: str, action: str) -> None:
        """Raise the tool's error when ``path`` is stale."""
        if self.is_stale(path, current):
            raise ToolError(stale_text(shown, action))

    async def reading(self, path: str, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """``chunks`` passed through; when they have all been read, the file counts as seen."""
        digest = _hash()
        size = 0
        async for chunk in chunks:
            digest.update(chunk)
            size += len(chunk)
            yield chunk
        self._record(path, size, digest.hexdigest())


async def current_bytes(path: str) -> bytes | None:
    """The file's bytes on this machine, ``None`` when there is no such file."""

    def read() -> bytes | None:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    return await asyncio.to_thread(read)


__all__ = ["FileView", "FileViews", "current_bytes", "stale_text"]
