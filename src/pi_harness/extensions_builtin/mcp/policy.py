"""Connection allowances and the HTTP retry policy (plain data: importing it loads no SDK)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.ai.retry import parse_retry_delay_ms

MAX_SERVER_DELAY_S = 10.0
RETRY_DELAYS_S = (0.25, 1.0)  # Pi 1.4.0's waits before the two retries of a transient HTTP failure


@dataclass(frozen=True)
class RetryPolicy:
    """A transient HTTP failure is retried once per entry of ``delays_s``, after that long or after
    the delay the server asks for (capped)."""

    delays_s: tuple[float, ...] = RETRY_DELAYS_S

    @property
    def retries(self) -> int:
        return len(self.delays_s)

    def delay(self, attempt: int, headers: Mapping[str, str]) -> float:
        asked = parse_retry_delay_ms(dict(headers))
        if asked is not None:
            return min(asked / 1000, MAX_SERVER_DELAY_S)
        return self.delays_s[min(attempt, len(self.delays_s) - 1)]


@dataclass(frozen=True)
class ConnectionSettings:
    # Spawning, initialize and the first tools/list may take longer than one request: None = the
    # server's own ``timeout``.
    connect_timeout_s: float | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    # Where ``mcp-auth.json`` lives (the agent directory); None: OAuth servers cannot sign in.
    auth_dir: Path | None = None
