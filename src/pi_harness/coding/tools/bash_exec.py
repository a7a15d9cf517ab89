"""Running one shell command locally: new process group, merged output, abort and timeout.

The command's stdout and stderr share one pipe (so output keeps its arrival order) that we read
ourselves; stdin is ``/dev/null``. On abort or timeout the whole process group is terminated.
Failures are reported the way ``BashOperations.exec`` implementations must report them: raising
:class:`ExecAborted` (message ``aborted``) or :class:`ExecTimedOut` (message ``timeout:<secs>``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools.orphans import OrphanReaper
from pi_harness.coding.tools.process import (
    KILL_GRACE_SECONDS,
    terminate_process_group,
    track_process_group,
    untrack_process_group,
)
from pi_harness.coding.tools.results import format_number

# After the shell exits, background jobs may still hold the output pipe open; read what they
# write for this long, then stop listening instead of waiting for them.
POST_EXIT_DRAIN_SECONDS = 0.25

DataCallback = Callable[[bytes], None]


class ExecAborted(Exception):
    def __init__(self) -> None:
        super().__init__("aborted")


class ExecTimedOut(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"timeout:{format_number(seconds)}")
        self.seconds = seconds


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None  # 128+S when the shell was killed by signal S


class _PipeReader(asyncio.Protocol):
    def __init__(self, on_data: DataCallback, closed: asyncio.Future[None]) -> None:
        self._on_data = on_data
        self._closed = closed

    def data_received(self, data: bytes) -> None:
        self._on_data(data)

    def eof_received(self) -> bool | None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)


def exit_code_of(returncode: int | None) -> int | None:
    """asyncio reports death by signal S as ``-S``; shells report it as ``128+S``."""
    if returncode is None:
        return None
    return 128 - returncode if returncode < 0 else returncode


async def run_shell_command(
    argv: list[str],
    cwd: str,
    *,
    on_data: DataCallback,
    signal: AbortSignal | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    reap_orphans: bool = False,
    kill_grace: float = KILL_GRACE_SECONDS,
) -> ExecResult:
    """Run ``argv`` in a new session/process group and stream its merged output to ``on_data``."""
    if signal is not None and signal.aborted:
        raise ExecAborted()
    child_env = dict(env if env is not None else os.environ)
    reaper = OrphanReaper() if reap_orphans else None
    if reaper is not None:
        child_env.update(reaper.env)
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
        )
    except BaseException:
        os.close(read_fd)
        if reaper is not None:
            await reaper.finish(kill_grace)
        raise
    finally:
        os.close(write_fd)
    track_process_group(proc.pid)
    if reaper is not None:
        reaper.attach(proc.pid)
    closed: asyncio.Future[None] = loop.create_future()
    transport, _ = await loop.connect_read_pipe(
        lambda: _PipeReader(on_data, closed), os.fdopen(read_fd, "rb", buffering=0)
    )
    exited = asyncio.ensure_future(proc.wait())
    aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
    outcome = "exit"
    try:
        waiting: set[asyncio.Future[int] | asyncio.Future[None]] = {exited}
        if aborted is not None:
            waiting.add(aborted)
        limit = timeout if timeout is not None and timeout > 0 else None
        done, _ = await asyncio.wait(waiting, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
        if signal is not None and signal.aborted:
            outcome = "aborted"
        elif exited not in done:
            outcome = "timeout"
        if outcome != "exit":
            if reaper is not None:
                reaper.record()  # before the group dies and its members turn into anonymous zombies
            await terminate_process_group(proc.pid, kill_grace)
            await exited
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(closed), POST_EXIT_DRAIN_SECONDS)
    finally:
        transport.close()
        if aborted is not None:
            aborted.cancel()
        if not exited.done():  # we are being cancelled: do not leave the command running
            await asyncio.shield(terminate_process_group(proc.pid, kill_grace))
        untrack_process_group(proc.pid)
        if reaper is not None:
            await asyncio.shield(reaper.finish(kill_grace))
    if outcome == "aborted":
        raise ExecAborted()
    if outcome == "timeout":
        assert timeout is not None
        raise ExecTimedOut(timeout)
    return ExecResult(exit_code_of(proc.returncode))
