"""Orphan reaping for bash calls (setting ``tools.reapOrphans``, beyond Pi; Linux).

Killing a command's process group misses processes that left it (``setsid``, ``nohup`` with a
double fork). With this setting:

* the harness becomes a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so a process whose
  parent dies is re-parented to us instead of to init, and its exit status is ours to collect;
* the command's environment carries a marker (``PI_HARNESS_BASH_CALL=<id>``) inherited by
  everything it starts, so its processes can be found in ``/proc`` wherever they went;
* while the command runs, its processes are recorded now and then (a process that dies after
  being re-parented is a zombie without environment, recognisable only by its recorded pid);
* when the call ends (success, failure, abort, timeout), every remaining process of the call is
  sent SIGTERM, then SIGKILL after a grace, and every one of them that became our child is reaped.

Only processes recorded for the call, or zombies of its process group or session, are reaped, so
children owned by other parts of the program (asyncio, ``subprocess``) are never waited for here.
Limit: a process that escapes with ``setsid``, is orphaned and exits again between two recordings
stays a zombie of the harness.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time

from pi_harness.coding.tools.process import (
    KILL_GRACE_SECONDS,
    ORPHAN_MARKER_ENV,
    any_alive,
    find_call_processes,
    read_proc_info,
    scan_processes,
    signal_pids,
    track_call_marker,
    untrack_call_marker,
)

_PR_SET_CHILD_SUBREAPER = 36
SCAN_INTERVAL_SECONDS = 0.5
_POLL_SECONDS = 0.02
_REAP_DEADLINE_SECONDS = 1.0
_subreaper_enabled: bool | None = None


def enable_child_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux); ``False`` where unsupported."""
    global _subreaper_enabled
    if _subreaper_enabled is None:
        _subreaper_enabled = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes  # only needed here, on Linux

                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper_enabled = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper_enabled = False
    return _subreaper_enabled


class OrphanReaper:
    """Finds, kills and reaps what one bash call leaves behind."""

    def __init__(self) -> None:
        enable_child_subreaper()
        self.marker = os.urandom(8).hex()  # (``secrets`` would load OpenSSL: 25 ms at the first bash call)
        self.shell_pid: int | None = None
        self.known: set[int] = set()
        self._scanner: asyncio.Task[None] | None = None
        track_call_marker(self.marker)

    @property
    def env(self) -> dict[str, str]:
        return {ORPHAN_MARKER_ENV: self.marker}

    def attach(self, shell_pid: int) -> None:
        """Start recording the processes of the command whose shell is ``shell_pid``."""
        self.shell_pid = shell_pid
        self._scanner = asyncio.ensure_future(self._scan_periodically())

    def record(self) -> set[int]:
        roots = [self.shell_pid] if self.shell_pid is not None else []
        alive = find_call_processes(self.marker, roots)
        self.known |= alive
        return alive

    async def _scan_periodically(self) -> None:
        while True:
            await asyncio.sleep(SCAN_INTERVAL_SECONDS)
            self.record()

    async def finish(self, grace: float = KILL_GRACE_SECONDS) -> int:
        """Kill and reap the call's remaining processes; returns how many were still running."""
        if self._scanner is not None:
            self._scanner.cancel()
        try:
            alive = self._without_shell(self.record() | self._recorded_alive())
            if alive:
                signal_pids(alive, signal.SIGTERM)
                deadline = time.monotonic() + grace
                while time.monotonic() < deadline and any_alive(alive):
                    await asyncio.sleep(_POLL_SECONDS)
                alive |= self._without_shell(self.record() | self._recorded_alive())  # forked during the grace
                signal_pids(alive, getattr(signal, "SIGKILL", signal.SIGTERM))
            await self._reap()
            return len(alive)
        finally:
            untrack_call_marker(self.marker)

    def _recorded_alive(self) -> set[int]:
        """Recorded processes still running that a new scan cannot find: one started with a
        cleared environment (``env -i setsid ...``) carries no marker, and once the shell is gone
        it descends from nothing we know. Only a pid whose parent is us (it was re-parented) or
        another recorded process counts, so a pid reused by an unrelated process is left alone."""
        me = os.getpid()
        found: set[int] = set()
        for pid in self.known:
            info = read_proc_info(pid)
            if info is not None and info.state not in ("Z", "X") and (info.ppid == me or info.ppid in self.known):
                found.add(pid)
        return found

    def _without_shell(self, pids: set[int]) -> set[int]:
        """The shell itself is asyncio's child: never signal or wait for it here."""
        return {pid for pid in pids if pid != self.shell_pid}

    def _zombies_of_the_call(self) -> set[int]:
        """Our zombie children that stayed in the command's process group or session."""
        me = os.getpid()
        shell = self.shell_pid
        return {
            info.pid
            for info in scan_processes().values()
            if info.ppid == me and info.state == "Z" and shell is not None and shell in (info.pgid, info.sid)
        }

    async def _reap(self) -> None:
        """Collect the exit status of every recorded process that became our child."""
        me = os.getpid()
        pending = self._without_shell(self.known | self._zombies_of_the_call())
        deadline = time.monotonic() + _REAP_DEADLINE_SECONDS
        while pending:
            still: set[int] = set()
            for pid in pending:
                info = read_proc_info(pid)
                if info is None:
                    continue  # gone (reaped by us or by another parent)
                if info.ppid == me:
                    with contextlib.suppress(ChildProcessError):
                        if os.waitpid(pid, os.WNOHANG)[0] == pid:  # noqa: ASYNC222 - WNOHANG never blocks
                            continue
                    still.add(pid)
                elif info.state not in ("Z", "X"):
                    still.add(pid)  # its parent may die and hand it to us
            pending = still
            if not pending or time.monotonic() >= deadline:
                break
            await asyncio.sleep(_POLL_SECONDS)
