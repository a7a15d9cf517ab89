"""The I/O seam of the ``read`` tool and its implementation on this machine.

Apart from the other tools' operations (``operations``), which bring process spawning, search
backends and atomic writes with them: a session's first ``read`` imports only this.
"""

from __future__ import annotations

import asyncio
import os
import stat as stat_module
from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from pi_harness.coding.tools.images import SNIFF_BYTES, detect_image_mime_type


class ReadOperations(Protocol):
    async def read_file(self, path: str) -> bytes: ...

    async def access(self, path: str) -> None:
        """Raise unless ``path`` is a readable file."""
        ...

    async def detect_image_mime_type(self, path: str) -> str | None: ...


@runtime_checkable
class ChunkedReadOperations(Protocol):
    """Optional: stream a file, so reading a window of a huge file needs little memory."""

    def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]: ...


# --- on this machine -------------------------------------------------------------------------


def _check_file(path: str, mode: int) -> None:
    info = os.stat(path)
    if stat_module.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", path)
    if not os.access(path, mode):
        raise PermissionError(13, "Permission denied", path)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def _read_whole(path: str, size: int) -> bytes:
    """A regular file of about ``size`` bytes, with plain system calls (no buffered file object,
    whose set-up asks the file system three more questions); it may have grown since."""
    fd = os.open(path, _READ_FLAGS)
    try:
        parts = [os.read(fd, size + 1)]
        while parts[-1]:
            parts.append(os.read(fd, max(size, 65536)))
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 2 else b"".join(parts)


def _read_head(path: str, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


# A regular file up to this size is read on the event loop: a local read of it takes
# microseconds, while a hop to a worker thread (and back through the GIL) costs far more on
# every tool call. Anything else (FIFOs, devices, large files) is read in a thread, so a read
# that blocks never stops the loop, and with it abort and shutdown.
INLINE_READ_LIMIT = 1 << 20


def _small_regular_file(path: str) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat_module.S_ISREG(info.st_mode) and info.st_size <= INLINE_READ_LIMIT


class LocalReadOperations:
    def readable_small_file(self, path: str) -> tuple[bytes, int] | None:
        """The bytes and modification time of a small regular file that ``access`` would let
        through, read at once on the loop with one ``stat`` (``None``: anything else, missing
        files included, which the generic path words and reads)."""
        try:
            info = os.stat(path)
        except OSError:
            return None
        if not stat_module.S_ISREG(info.st_mode) or info.st_size > INLINE_READ_LIMIT or not os.access(path, os.R_OK):
            return None
        return _read_whole(path, info.st_size), info.st_mtime_ns

    def small_file(self, path: str) -> bytes | None:
        """The bytes of a small regular file, read at once on the loop (``None``: any other file,
        which the methods below read in a thread)."""
        return _read_bytes(path) if _small_regular_file(path) else None

    async def read_file(self, path: str) -> bytes:
        if _small_regular_file(path):
            return _read_bytes(path)
        return await asyncio.to_thread(_read_bytes, path)

    async def access(self, path: str) -> None:
        # stat and access only: no open, so nothing here can wait on a FIFO's writer.
        _check_file(path, os.R_OK)

    async def detect_image_mime_type(self, path: str) -> str | None:
        if _small_regular_file(path):
            return detect_image_mime_type(_read_head(path, SNIFF_BYTES))
        return detect_image_mime_type(await asyncio.to_thread(_read_head, path, SNIFF_BYTES))

    async def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]:
        inline = _small_regular_file(path)
        handle = open(path, "rb") if inline else await asyncio.to_thread(open, path, "rb")  # noqa: SIM115
        try:
            while True:
                chunk = handle.read(chunk_size) if inline else await asyncio.to_thread(handle.read, chunk_size)
                if not chunk:
                    return
                yield chunk
        finally:
            handle.close()
