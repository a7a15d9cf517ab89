"""Timeouts and HTTP retry policy of MCP connections (plain data: importing it loads no SDK)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pi_harness.ai.retry import parse_retry_delay_ms

MAX_SERVER_DELAY_S = 10.0


@dataclass(frozen=True)
class RetryPolicy:
    """Transient HTTP statuses are retried ``retries`` times with exponential backoff, or after the
    delay the server asks for (capped)."""

    retries: int = 2
    base_delay_s: float = 0.5

    def delay(self, attempt: int, headers: Mapping[str, str]) -> float:
        asked = parse_retry_delay_ms(dict(headers))
        if asked is not None:
            return min(asked / 1000, MAX_SERVER_DELAY_S)
        return float(self.base_delay_s * (2**attempt))


@dataclass(frozen=True)
class ConnectionSettings:
    request_timeout_s: float = 60.0
    connect_timeout_s: float | None = None  # initialize and the first tools/list; None = request timeout
    retry: RetryPolicy = field(default_factory=RetryPolicy)
