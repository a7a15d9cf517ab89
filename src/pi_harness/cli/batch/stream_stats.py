"""What a task's JSON event stream says about its run: turns, tokens, cost, budget, failure."""

from __future__ import annotations

from collections.abc import Mapping


class StreamStats:
    """Counts from the events of one session, as the JSON mode prints them."""

    __slots__ = ("budget", "cost", "error", "session_id", "tokens", "turns")

    def __init__(self) -> None:
        self.turns = 0
        self.tokens = 0
        self.cost = 0.0
        self.budget: dict[str, object] | None = None
        self.error: str | None = None  # the last answer failed (after the session's own retries)
        self.session_id: str | None = None

    def add(self, record: Mapping[str, object]) -> None:
        kind = record.get("type")
        if kind == "turn_start":
            self.turns += 1
        elif kind == "message_end":
            self._message(record.get("message"))
        elif kind == "budget_exceeded":
            self.budget = {k: record.get(k) for k in ("limit", "value", "used")}
        elif kind == "session" and isinstance(record.get("id"), str):
            self.session_id = str(record["id"])

    def _message(self, message: object) -> None:
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            return
        usage = message.get("usage")
        if isinstance(usage, Mapping):
            total = usage.get("totalTokens")
            self.tokens += int(total) if isinstance(total, int | float) else 0
            cost = usage.get("cost")
            spent = cost.get("total") if isinstance(cost, Mapping) else None
            if isinstance(spent, int | float):
                self.cost += float(spent)
        stop = message.get("stopReason")
        # A later answer that succeeds (after a retry or a tool turn) clears an earlier failure.
        self.error = str(message.get("errorMessage") or "the model request failed") if stop == "error" else None
