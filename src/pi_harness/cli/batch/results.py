"""``results.jsonl``: one record per finished task, appended (and synced) as each task ends.

The file is the batch's memory: ``--resume`` reads it to skip finished tasks, ``pi batch report``
summarises it. A process killed mid-write leaves at most one torn last line, which readers skip
and the next writer closes with a newline before appending.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import orjson

Status = Literal["succeeded", "failed", "error", "timeout", "budget_exceeded", "aborted"]
STATUSES: tuple[Status, ...] = ("succeeded", "failed", "error", "timeout", "budget_exceeded", "aborted")
# Finished: a resumed batch does not run these again. An aborted task was cut short by the
# user, so it runs again.
FINISHED: frozenset[str] = frozenset(STATUSES) - {"aborted"}


@dataclass
class TaskResult:
    id: str
    status: Status
    started_at: str = ""
    ended_at: str = ""
    wall_seconds: float = 0.0
    turns: int = 0
    tokens: int = 0
    cost: float = 0.0
    exit_code: int | None = None
    check: dict[str, object] | None = None
    budget: dict[str, object] | None = None
    error: str | None = None
    cwd: str | None = None
    session_file: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "status": self.status,
            "turns": self.turns,
            "tokens": self.tokens,
            "cost": self.cost,
            "wallSeconds": self.wall_seconds,
            "check": self.check,
            "budget": self.budget,
            "error": self.error,
            "exitCode": self.exit_code,
            "cwd": self.cwd,
            "sessionFile": self.session_file,
            "startedAt": self.started_at,
            "endedAt": self.ended_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> TaskResult:
        status = next((s for s in STATUSES if s == data.get("status")), None)
        if not isinstance(data.get("id"), str) or status is None:
            raise ValueError("not a task result")
        check, budget, code = data.get("check"), data.get("budget"), data.get("exitCode")
        return cls(
            id=str(data["id"]),
            status=status,
            started_at=str(data.get("startedAt") or ""),
            ended_at=str(data.get("endedAt") or ""),
            wall_seconds=_number(data.get("wallSeconds")),
            turns=int(_number(data.get("turns"))),
            tokens=int(_number(data.get("tokens"))),
            cost=_number(data.get("cost")),
            exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
            check=check if isinstance(check, dict) else None,
            budget=budget if isinstance(budget, dict) else None,
            error=str(data["error"]) if data.get("error") is not None else None,
            cwd=str(data["cwd"]) if data.get("cwd") else None,
            session_file=str(data["sessionFile"]) if data.get("sessionFile") else None,
        )


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def read_results(path: Path) -> tuple[dict[str, TaskResult], int]:
    """The last record per task id, and the number of unreadable lines skipped."""
    results: dict[str, TaskResult] = {}
    skipped = 0
    try:
        lines = path.read_bytes().splitlines()
    except FileNotFoundError:
        return results, 0
    for line in lines:
        if not line.strip():
            continue
        try:
            data = orjson.loads(line)
            result = TaskResult.from_json(data) if isinstance(data, dict) else None
        except (orjson.JSONDecodeError, ValueError):
            result = None
        if result is None:
            skipped += 1
            continue
        results[result.id] = result
    return results, skipped


class ResultsWriter:
    """Appends one line per result and syncs it, so a crash loses no finished task."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        size = os.fstat(self._fd).st_size
        if size:
            with path.open("rb") as existing:
                existing.seek(size - 1)
                if existing.read(1) != b"\n":
                    os.write(self._fd, b"\n")  # close a line torn by a killed writer

    def write(self, result: TaskResult) -> None:
        os.write(self._fd, orjson.dumps(result.to_json()) + b"\n")
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


def finished_ids(results: Iterable[TaskResult]) -> set[str]:
    return {r.id for r in results if r.status in FINISHED}
