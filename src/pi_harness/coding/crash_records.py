"""Reading the crash records of ``<agentDir>/crashes.json``.

The CLI writes the records and announces them (``pi_harness.cli.crash_log``); reading lives here,
below the UI, because ``/bug`` in the terminal UI and the bug report builder need the records
too and may not import the CLI layer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pi_harness.coding.config.paths import CRASHES_FILE

STACK_TAIL_LINES = 12  # the innermost frames and the exception: where it broke


@dataclass(frozen=True)
class CrashSummary:
    """What a bug report says about one crash."""

    timestamp: str
    version: str
    python: str
    platform: str
    error: str  # first line of "<ExceptionType>: <message>"
    stack_tail: str  # the last lines of the traceback (whole lines)


def crash_file(agent_directory: Path) -> Path:
    return agent_directory / CRASHES_FILE


def read_crash_records(path: Path) -> list[dict[str, object]]:
    """The records in the file, oldest first; a missing or damaged file counts as empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if isinstance(data, dict):  # tolerate a {"crashes": [...]} wrapper
        data = data.get("crashes")
    return [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []


def _text(record: Mapping[str, object], key: str, default: str = "unknown") -> str:
    value = record.get(key)
    return value if isinstance(value, str) and value else default


def summarize(record: Mapping[str, object]) -> CrashSummary:
    stack = _text(record, "stack", "").rstrip("\n").splitlines()
    return CrashSummary(
        timestamp=_text(record, "timestamp"),
        version=_text(record, "version"),
        python=_text(record, "python"),
        platform=_text(record, "platform"),
        error=_text(record, "error", "unknown error").splitlines()[0],
        stack_tail="\n".join(stack[-STACK_TAIL_LINES:]),
    )


def recent_crashes(agent_directory: Path, limit: int = 3) -> list[CrashSummary]:
    """Summaries of the newest ``limit`` records, newest first (announced or not)."""
    records = read_crash_records(crash_file(agent_directory))
    return [summarize(record) for record in reversed(records[-limit:])] if limit > 0 else []
