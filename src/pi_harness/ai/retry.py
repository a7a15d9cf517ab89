"""Error classification for retries and the server-requested delay parsers.

Two layers use this: the agent-level automatic retry in the coding session (on by default) and
the provider-level HTTP retry in ``pi_harness.ai.http`` (off by default).
"""

from __future__ import annotations

import datetime
import math
import re
import time
from collections.abc import Mapping

from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.types import AssistantMessage

# Transient failures worth retrying. Status codes match on word boundaries so that
# "5000 tokens" is not mistaken for HTTP 500.
_RETRYABLE = re.compile(
    r"overloaded|rate.?limit|too many requests|\b(?:429|500|502|503|504|520|524)\b"
    r"|service.?unavailable|server.?error|internal.?error|connection.?error|connection.?refused"
    r"|other side closed|fetch failed|upstream.?connect|reset before headers|terminated"
    r"|retry delay|bad gateway|gateway timeout",
    re.IGNORECASE,
)

# Quota and billing limits recover in hours, not seconds: never retried.
_NON_RETRYABLE = re.compile(
    r"insufficient_quota|quota.?exceeded|billing|monthly usage limit reached|usage limit",
    re.IGNORECASE,
)

RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_error_message(message: str | None) -> bool:
    """True for transient provider errors; quota/billing texts are never retryable."""
    if not message:
        return False
    return bool(_RETRYABLE.search(message)) and not _NON_RETRYABLE.search(message)


def is_retryable_error(message: AssistantMessage, context_window: int | None = None) -> bool:
    """The agent-level retry decision: an ``error`` stop that is not a context overflow (those go
    to compaction) and whose text is transient."""
    if message.get("stopReason") != "error":
        return False
    if is_context_overflow(message, context_window):
        return False
    return is_retryable_error_message(message.get("errorMessage"))


def is_quota_error_message(message: str | None) -> bool:
    return bool(message and _NON_RETRYABLE.search(message))


def agent_retry_delay_ms(attempt: int, base_delay_ms: int, max_delay_ms: int) -> int:
    """Agent-level backoff for 1-based ``attempt``: base * 2^(n-1), capped, no jitter."""
    delay = int(base_delay_ms * (2 ** max(0, attempt - 1)))
    return min(delay, max_delay_ms) if max_delay_ms > 0 else delay


def provider_backoff_ms(attempt_index: int) -> int:
    """Provider-level backoff for 0-based ``attempt_index``: min(0.5 * 2^i, 8) s with jitter."""
    import random  # only a retry needs it

    seconds = min(0.5 * (2**attempt_index), 8.0)
    return int(seconds * 1000 * (0.75 + random.random() * 0.5))


def is_retryable_status(status: int, headers: Mapping[str, str] | None = None) -> bool:
    should = (headers or {}).get("x-should-retry")
    if should is not None:
        if should.strip().lower() == "true":
            return True
        if should.strip().lower() == "false":
            return False
    return status in RETRYABLE_STATUS or status >= 500


_PLEASE_RETRY = re.compile(r"please retry in ([0-9.]+)\s*(ms|s)\b", re.IGNORECASE)
_RETRY_DELAY_FIELD = re.compile(r'"retryDelay"\s*:\s*"([0-9.]+)(ms|s)"', re.IGNORECASE)
# Google quota texts: "Your quota will reset after 18h31m10s" / "reset after 39s"
_RESET_AFTER = re.compile(r"reset after (?:(\d+)h)?(?:(\d+)m)?(\d+(?:\.\d+)?)s", re.IGNORECASE)


def parse_retry_delay_ms(headers: Mapping[str, str] | None, body: str | None = None) -> int | None:
    """The wait a server asked for, in ms, from headers first and then the error body.

    Headers: ``retry-after-ms``, ``retry-after`` (seconds or an HTTP date),
    ``x-ratelimit-reset-after`` (seconds), ``x-ratelimit-reset`` (seconds, or an epoch time).
    Body: ``Please retry in 3s``/``500ms``, ``"retryDelay": "12s"``, ``reset after 1h2m3s``.
    """
    h = {k.lower(): v for k, v in (headers or {}).items()}
    value = h.get("retry-after-ms")
    if value:
        number = _finite(value)
        if number is not None:
            return max(0, int(number))
    value = h.get("retry-after")
    if value:
        number = _finite(value)
        if number is not None:
            return max(0, int(number * 1000))
        when = _http_date_ms(value)
        if when is not None:
            return max(0, when - int(time.time() * 1000))
    for name in ("x-ratelimit-reset-after", "x-ratelimit-reset"):
        value = h.get(name)
        number = _finite(value) if value else None
        if number is None:
            continue
        # x-ratelimit-reset may be an epoch timestamp rather than a delay
        if number > 1_000_000_000:
            return max(0, int(number * 1000 - time.time() * 1000))
        return max(0, int(number * 1000))
    if body:
        m = _PLEASE_RETRY.search(body) or _RETRY_DELAY_FIELD.search(body)
        if m:
            amount = float(m.group(1))
            return int(amount if m.group(2).lower() == "ms" else amount * 1000)
        m = _RESET_AFTER.search(body)
        if m:
            hours, minutes, seconds = int(m.group(1) or 0), int(m.group(2) or 0), float(m.group(3))
            return int((hours * 3600 + minutes * 60 + seconds) * 1000)
    return None


def _finite(value: str) -> float | None:
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _http_date_ms(value: str) -> int | None:
    import email.utils  # only for a date-valued Retry-After

    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:  # "-0000" zone: the date is UTC
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return int(parsed.timestamp() * 1000)
