"""What startup looked at on the way to the first request: every file it read, every path whose
existence it checked, every directory it listed.

A recorded first request may be sent again only while all of these are as they were
(``fingerprint.py``). Reads and listings are seen through the interpreter's audit events
(``open``, ``os.listdir``, ``os.scandir``); existence checks have no event, so while tracing,
``os.stat`` and ``os.lstat`` (which ``os.path``, ``pathlib`` and ``shutil.which`` call) are
wrapped. The import system uses its own ``stat`` and is not seen, and code files are left out
anyway: the pi-harness version is part of the record.

Only one trace runs per process, from the first line of ``main`` to the first request (or to the
moment startup knows no request will be recorded), and only when no usable record was found,
so a run that sends a recorded request pays nothing for it.
"""

from __future__ import annotations

import os
import stat as stat_module
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    PathArgument = int | str | bytes | os.PathLike[str] | os.PathLike[bytes]
    LinkPathArgument = str | bytes | os.PathLike[str] | os.PathLike[bytes]

# (path, how) -> signature; how: "s" (stat), "l" (lstat), "r" (read), "d" (listed)
Observed = dict[tuple[str, str], object]

_SKIPPED_SUFFIXES = (".py", ".pyc", ".so", ".pth", ".dataclasses")
_SKIPPED_PREFIXES = ("/dev/", "/proc/", "/sys/")
# The real functions, taken before any trace wraps them (a signature must not be traced itself).
_stat = os.stat
_lstat = os.lstat


def signature(path: str, how: str) -> object:
    """What ``how`` saw at ``path``: ``None`` for nothing there; ``"d"`` for a directory that was
    only checked; a listed directory's ``mtime_ns`` (an entry added or removed changes it); for a
    file, ``[inode, size, mtime_ns]``."""
    try:
        info = _lstat(path) if how == "l" else _stat(path)
        if how == "d":
            return info.st_mtime_ns
        if stat_module.S_ISDIR(info.st_mode):
            return "d"
        if stat_module.S_ISLNK(info.st_mode):  # only ``lstat`` sees a link: where it points
            return ["l", os.readlink(path)]
    except (OSError, ValueError):
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns]


def _wanted(path: str) -> bool:
    if path.endswith(_SKIPPED_SUFFIXES) or path.startswith(_SKIPPED_PREFIXES):
        return False
    return "/__pycache__/" not in path


_AUDITED = frozenset({"open", "os.listdir", "os.scandir"})
# Startup looks at about a hundred paths; a trace that sees this many is watching a run, not its
# startup (a first request that never came): it stops, and nothing is recorded.
MAX_OBSERVED = 4096


class FileTrace:
    """Collects ``observed`` paths while ``active``; ``stop()`` ends it for good."""

    def __init__(self) -> None:
        self.observed: Observed = {}
        self.active = False
        self.overflowed = False

    def _note(self, path: object, how: str) -> None:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        elif not isinstance(path, str):
            path = os.fspath(path) if hasattr(path, "__fspath__") else None
            if not isinstance(path, str):
                return  # a file descriptor, or bytes of a path-like
        path = os.path.abspath(path)
        if _wanted(path) and (path, how) not in self.observed:
            self.observed[(path, how)] = signature(path, how)
            if len(self.observed) > MAX_OBSERVED:
                self.overflowed = True
                self.stop()

    def _audit(self, event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            if mode is None:
                reading = isinstance(flags, int) and not flags & (os.O_WRONLY | os.O_RDWR)
            else:
                reading = isinstance(mode, str) and "r" in mode and "+" not in mode
            if reading and isinstance(path, (str, bytes)):
                self._note(path, "r")
        elif event in ("os.listdir", "os.scandir"):
            path = args[0] if args else "."
            if isinstance(path, (str, bytes)):
                self._note(path, "d")

    def start(self) -> None:
        self.observed.clear()
        self.overflowed = False
        self.active = True
        trace, audited = self, _AUDITED

        # Hooks stay for the process and see every audit event (``id()`` raises one): a plain
        # function that drops the others at once costs a third of a bound method's call.
        def audit(event: str, args: tuple[object, ...]) -> None:
            if event in audited and trace.active:
                trace._audit(event, args)

        sys.addaudithook(audit)

        def traced_stat(
            path: PathArgument, *, dir_fd: int | None = None, follow_symlinks: bool = True
        ) -> os.stat_result:
            if self.active and dir_fd is None:
                self._note(path, "s" if follow_symlinks else "l")
            return _stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)

        def traced_lstat(path: LinkPathArgument, *, dir_fd: int | None = None) -> os.stat_result:
            if self.active and dir_fd is None:
                self._note(path, "l")
            return _lstat(path, dir_fd=dir_fd)

        # Wrapped, not replaced for good: code that took ``os.stat`` by value keeps a wrapper that
        # only forwards once the trace stopped.
        setattr(os, "stat", traced_stat)  # noqa: B010 - no ``type: ignore`` for a module attribute
        setattr(os, "lstat", traced_lstat)  # noqa: B010

    def stop(self) -> None:
        if self.active:
            self.active = False
            setattr(os, "stat", _stat)  # noqa: B010
            setattr(os, "lstat", _lstat)  # noqa: B010
