"""Identifiers and timestamps of session records.

Entry ids are short (8 hex chars) and only unique within one file; session ids are UUIDv7s (time
ordered, as in Pi 1.4.0) or a caller-chosen name. Entry timestamps are ISO-8601 UTC strings with
milliseconds, while message timestamps are Unix epoch milliseconds; the helpers here convert
between the two.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Container
from datetime import UTC, datetime, timedelta

from pi_harness.coding.session_store.uuid7 import uuid7

_MAX_SHORT_ID_ATTEMPTS = 100
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MS = timedelta(milliseconds=1)
_SESSION_ID = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")


def short_id() -> str:
    """Eight random lowercase hex chars: the first eight of a UUIDv4's, which are all random
    (the version and variant bits come later), drawn without building a ``UUID``."""
    return os.urandom(4).hex()


def new_entry_id(taken: Container[str]) -> str:
    """Eight lowercase hex chars not in ``taken``; a full UUID if 100 draws all collide."""
    for _ in range(_MAX_SHORT_ID_ATTEMPTS):
        candidate = short_id()
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


def new_session_id() -> str:
    return str(uuid7())


def validate_session_id(session_id: str) -> str:
    """A caller-chosen id: letters, digits, ``.``, ``_``, ``-``, starting and ending alphanumeric."""
    if not _SESSION_ID.match(session_id):
        raise ValueError(
            f"Invalid session id: {session_id!r} (use letters, digits, '.', '_' and '-', "
            "starting and ending with a letter or digit)"
        )
    return session_id


# The formatted second of the last timestamp: entries written within one second share it.
_last_second: tuple[int, str] = (-1, "")


def format_iso(epoch_ms: int) -> str:
    """``YYYY-MM-DDTHH:mm:ss.sssZ`` like JavaScript's ``Date.toISOString()``."""
    global _last_second
    seconds, millis = divmod(epoch_ms, 1000)
    second, text = _last_second
    if second != seconds:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        _last_second = (seconds, text)
    return f"{text}.{millis:03d}Z"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def iso_now() -> str:
    return format_iso(now_ms())


def iso_to_ms(value: str | None) -> int:
    """Epoch milliseconds of an ISO timestamp; 0 when it is missing or unparsable."""
    if not value:
        return 0
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return 0
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return (parsed - _EPOCH) // _ONE_MS


def file_timestamp(iso: str) -> str:
    """The header timestamp as used in file names: every ``:`` and ``.`` becomes ``-``."""
    return iso.replace(":", "-").replace(".", "-")
