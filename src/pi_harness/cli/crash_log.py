"""Crash records in ``<agentDir>/crashes.json`` and the notice on the next start (1.4.0).

The file is a JSON array of records, newest last, at most five. A record is announced once, on
the next start, and only while it is younger than seven days. The record holds what a bug report
needs (time, version, exception, traceback) and deliberately not the command line, which may carry
``--api-key``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypedDict

# Reading lives below the UI so that ``/bug`` can share it (the terminal UI may not import the CLI).
from pi_harness.coding.crash_records import read_crash_records

PRODUCT_NAME = "pi-harness"
MAX_CRASH_RECORDS = 5
ANNOUNCE_WITHIN = timedelta(days=7)


class CrashRecord(TypedDict):
    timestamp: str  # ISO-8601 UTC with milliseconds
    version: str
    python: str
    platform: str
    error: str  # "<ExceptionType>: <message>"
    stack: str
    announced: bool


def _crash_file(agent_directory: Path | None) -> Path:
    from pi_harness.coding.config.paths import agent_dir
    from pi_harness.coding.crash_records import crash_file

    return crash_file(agent_dir(agent_directory))


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_iso(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _write_records(path: Path, records: Sequence[Mapping[str, object]]) -> None:
    import tempfile  # only when a crash is recorded: it pulls in shutil, bz2 and lzma

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".crashes-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def record_crash(
    error: BaseException, *, agent_directory: Path | None = None, now: datetime | None = None
) -> Path | None:
    """Append a record for ``error`` (keeping the newest five); ``None`` if it cannot be written.

    Never raises: a failure to record must not hide the crash itself.
    """
    import platform

    from pi_harness.__about__ import __version__

    try:
        path = _crash_file(agent_directory)
        record: CrashRecord = {
            "timestamp": _iso(now or datetime.now(UTC)),
            "version": __version__,
            "python": platform.python_version(),
            "platform": sys.platform,
            "error": f"{type(error).__name__}: {error}",
            "stack": "".join(traceback.format_exception(error)),
            "announced": False,
        }
        records = [*read_crash_records(path), dict(record)][-MAX_CRASH_RECORDS:]
        _write_records(path, records)
        return path
    except Exception:
        return None


def _local_date(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def announce_previous_crash(*, agent_directory: Path | None = None, now: datetime | None = None) -> str | None:
    """The notice for unannounced crashes of the last seven days, or ``None``.

    It names the newest crash (with a count when there were several), where the records are, and
    ``/bug``. Every mode shows it, but only the interactive mode has slash commands, so the notice
    says so. Every record is marked announced, so it shows once.
    """
    try:
        path = _crash_file(agent_directory)
        records = read_crash_records(path)
    except Exception:
        return None
    if not records:
        return None
    current = now or datetime.now(UTC)
    fresh: list[tuple[datetime, Mapping[str, object]]] = []
    for record in records:
        moment = _parse_iso(record.get("timestamp"))
        if record.get("announced") or moment is None or current - moment > ANNOUNCE_WITHIN:
            continue
        fresh.append((moment, record))
    if any(not r.get("announced") for r in records):
        for record in records:
            record["announced"] = True
        with contextlib.suppress(OSError):
            _write_records(path, records)
    if not fresh:
        return None
    moment, newest = max(fresh, key=lambda item: item[0])
    error = str(newest.get("error") or "unknown error").splitlines()[0]
    more = f" ({len(fresh)} crashes in the last 7 days)" if len(fresh) > 1 else ""
    return (
        f"{PRODUCT_NAME} crashed on {_local_date(moment)}{more}: {error}. The crash record is in {path}; "
        "run /bug in the interactive mode to write a bug report."
    )
