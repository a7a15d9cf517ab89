"""``pi.exec``: running a program without a shell, for extensions.

The program gets no stdin and a process group of its own, so an abort or a timeout can stop it
with everything it started: SIGTERM first, SIGKILL 5 s later. Output is collected whole and
decoded as UTF-8 (invalid bytes replaced).
"""

from __future__ import annotations

import asyncio
import os
import signal as _signal
from typing import TypedDict

from pi_harness.ai.abort import AbortSignal

KILL_AFTER_SECONDS = 5


class ProgramResult(TypedDict):
    stdout: str
    stderr: str
    code: int  # the exit code; 128 + N for a program ended by signal N, 1 when it could not start
    killed: bool  # stopped by the abort signal or the timeout


async def exec_program(
    command: str,
    args: list[str] | None,
    *,
    cwd: str | None,
    signal: AbortSignal | None = None,
    timeout_ms: float | None = None,
) -> ProgramResult:
    try:
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return {"stdout": "", "stderr": str(exc), "code": 1, "killed": False}
    killed = False

    def kill() -> None:
        nonlocal killed
        if proc.returncode is None:
            killed = True
            _kill_group(proc.pid, _signal.SIGTERM)
            asyncio.get_running_loop().call_later(KILL_AFTER_SECONDS, _kill_group, proc.pid, _signal.SIGKILL)

    if signal is not None:
        signal.add_listener(lambda _reason: kill())
    handle = asyncio.get_running_loop().call_later(timeout_ms / 1000, kill) if timeout_ms else None
    stdout, stderr = await proc.communicate()
    if handle is not None:
        handle.cancel()
    code = proc.returncode if proc.returncode is not None else 0
    return {
        "stdout": stdout.decode("utf-8", errors="replace"),
        "stderr": stderr.decode("utf-8", errors="replace"),
        "code": code if code >= 0 else 128 - code,
        "killed": killed,
    }


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
