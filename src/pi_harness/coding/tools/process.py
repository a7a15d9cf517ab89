"""Process groups of the commands we run: tracking, killing, and (optionally) orphan reaping.

Every shell command starts as the leader of a new session and process group, so one signal to
the group reaches everything it started the ordinary way. Killing is SIGTERM to the group, a
short grace for clean exits, then SIGKILL. Live groups are tracked so the modes' signal handlers
(and interpreter exit) can kill them all.

Processes that leave the group (``setsid``, ``nohup`` plus double fork) escape that kill; Pi lets
them survive. With the ``tools.reapOrphans`` setting (``orphans.py``) a command's environment
carries a marker, so its processes can be found wherever they went.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass

KILL_GRACE_SECONDS = 0.5
_POLL_SECONDS = 0.02
ORPHAN_MARKER_ENV = "PI_HARNESS_BASH_CALL"
_IS_LINUX = sys.platform.startswith("linux")
_IS_WINDOWS = sys.platform == "win32"
_SIGKILL = getattr(signal, "SIGKILL", signal.SIGTERM)

_live_groups: set[int] = set()
_live_markers: set[str] = set()
_atexit_registered = False


# --- tracking ---------------------------------------------------------------------------------


def _ensure_atexit() -> None:
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(kill_all_tracked_processes)
        _atexit_registered = True


def track_process_group(pgid: int) -> None:
    _ensure_atexit()
    _live_groups.add(pgid)


def untrack_process_group(pgid: int) -> None:
    _live_groups.discard(pgid)


def tracked_process_groups() -> frozenset[int]:
    return frozenset(_live_groups)


# --- /proc ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProcInfo:
    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str


def read_proc_info(pid: int) -> ProcInfo | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 4:
        return None
    state = fields[0].decode("ascii", "replace")
    return ProcInfo(pid=pid, ppid=int(fields[1]), pgid=int(fields[2]), sid=int(fields[3]), state=state)


def scan_processes() -> dict[int, ProcInfo]:
    """Every visible process (Linux ``/proc``); empty elsewhere."""
    result: dict[int, ProcInfo] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return result
    for name in names:
        if name.isdigit():
            info = read_proc_info(int(name))
            if info is not None:
                result[info.pid] = info
    return result


def _environ_contains(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return data.startswith(needle) or (b"\0" + needle) in data


# --- killing a group --------------------------------------------------------------------------


def signal_process_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the group (falling back to the single pid); ``False`` if nothing is left."""
    if _IS_WINDOWS:  # pragma: no cover - no process groups there: taskkill ends the whole tree
        result = subprocess.run(["taskkill", "/F", "/T", "/PID", str(pgid)], capture_output=True, check=False)
        return result.returncode == 0
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        try:
            os.kill(pgid, sig)
            return True
        except OSError:
            return False


def process_group_alive(pgid: int) -> bool:
    """Whether a non-zombie member of the group still runs."""
    if _IS_LINUX:
        return any(info.pgid == pgid and info.state not in ("Z", "X") for info in scan_processes().values())
    try:
        os.killpg(pgid, 0)
        return True
    except OSError:
        return False


async def terminate_process_group(pgid: int, grace: float = KILL_GRACE_SECONDS) -> None:
    """SIGTERM the group, give it ``grace`` seconds, then SIGKILL whatever is left."""
    if not signal_process_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not process_group_alive(pgid):
            return
        await asyncio.sleep(_POLL_SECONDS)
    signal_process_group(pgid, _SIGKILL)


def terminate_process_group_sync(pgid: int, grace: float = KILL_GRACE_SECONDS) -> None:
    if not signal_process_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and process_group_alive(pgid):
        time.sleep(_POLL_SECONDS)
    signal_process_group(pgid, _SIGKILL)


def kill_all_tracked_processes(grace: float = KILL_GRACE_SECONDS) -> None:
    """Kill every live command group (and marked orphans); for SIGTERM/SIGHUP handlers and exit."""
    groups = list(_live_groups)
    for pgid in groups:
        signal_process_group(pgid, signal.SIGTERM)
    orphans: set[int] = set()
    for marker in list(_live_markers):
        orphans |= find_call_processes(marker, ())
    signal_pids(orphans, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (any(process_group_alive(pgid) for pgid in groups) or any_alive(orphans)):
        time.sleep(_POLL_SECONDS)
    for pgid in groups:
        signal_process_group(pgid, _SIGKILL)
    signal_pids(orphans, _SIGKILL)
    _live_groups.clear()


# --- marked processes (setting tools.reapOrphans, see orphans.py) -----------------------------


def track_call_marker(marker: str) -> None:
    """Processes carrying ``marker`` are killed by ``kill_all_tracked_processes`` too."""
    _ensure_atexit()
    _live_markers.add(marker)


def untrack_call_marker(marker: str) -> None:
    _live_markers.discard(marker)


def find_call_processes(marker: str, roots: Iterable[int], processes: dict[int, ProcInfo] | None = None) -> set[int]:
    """Live processes that carry ``marker`` in their environment, or descend from ``roots`` or
    from a marked process."""
    processes = scan_processes() if processes is None else processes
    needle = f"{ORPHAN_MARKER_ENV}={marker}\0".encode()
    found = {pid for pid in roots if pid in processes}
    found |= {pid for pid, info in processes.items() if info.state != "Z" and _environ_contains(pid, needle)}
    children: dict[int, list[int]] = {}
    for info in processes.values():
        children.setdefault(info.ppid, []).append(info.pid)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    found.discard(os.getpid())
    return {pid for pid in found if processes[pid].state not in ("Z", "X")}


def signal_pids(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def any_alive(pids: Iterable[int]) -> bool:
    for pid in pids:
        info = read_proc_info(pid)
        if info is not None and info.state not in ("Z", "X"):
            return True
    return False
