"""What ``pi batch`` shows while it runs.

On a terminal: a line per finished task and one status line kept at the bottom (done, running,
failed, cost so far, ETA). Anywhere else (a log file, CI): only the plain per-task lines, so the
output is readable and greppable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from pi_harness.cli.batch.results import TaskResult

_MARKS = {"succeeded": "ok", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT", "budget_exceeded": "BUDGET"}


class Progress:
    def __init__(self, total: int, jobs: int, stream: TextIO | None = None, *, live: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.total = total
        self.jobs = max(1, jobs)
        self.done = 0
        self.running = 0
        self.failed = 0
        self.cost = 0.0
        self._walls: list[float] = []
        self._started = time.monotonic()

    def task_started(self, task_id: str) -> None:
        self.running += 1
        self._redraw()

    def task_finished(self, result: TaskResult) -> None:
        self.running = max(0, self.running - 1)
        self.done += 1
        self.cost += result.cost
        self._walls.append(result.wall_seconds)
        if result.status != "succeeded":
            self.failed += 1
        mark = _MARKS.get(result.status, result.status.upper())
        detail = f" ({result.error})" if result.error and result.status in ("error",) else ""
        line = (
            f"[{self.done}/{self.total}] {mark} {result.id}: {result.turns} turns, {result.tokens} tokens, "
            f"${result.cost:.4f}, {result.wall_seconds:.1f}s{detail}"
        )
        self._print(line)

    def note(self, line: str) -> None:
        self._print(line)

    def finish(self) -> None:
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def status_line(self) -> str:
        return (
            f"{self.done}/{self.total} done, {self.running} running, {self.failed} failed, "
            f"${self.cost:.4f} so far, ETA {self.eta()}"
        )

    def eta(self) -> str:
        remaining = self.total - self.done
        if remaining <= 0:
            return "0s"
        if not self._walls:
            return "?"
        # Average task time spread over the parallel slots.
        seconds = sum(self._walls) / len(self._walls) * remaining / min(self.jobs, remaining)
        return _duration(seconds)

    def _print(self, line: str) -> None:
        if self.live:
            self.stream.write(f"\r\x1b[K{line}\n")
        else:
            self.stream.write(f"{line}\n")
        self._redraw(flush=False)
        self.stream.flush()

    def _redraw(self, *, flush: bool = True) -> None:
        if not self.live:
            return
        self.stream.write(f"\r\x1b[K{self.status_line()}")
        if flush:
            self.stream.flush()


def _duration(value: float) -> str:
    seconds = round(value)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
