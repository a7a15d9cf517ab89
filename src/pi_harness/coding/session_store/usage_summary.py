"""What a whole session file counts and cost: its messages, tool calls and billed usage, kept up
to date as entries are added (``get_session_stats``, the footer's totals and cache hit rate).

The figures cover every entry of the file, every branch, as Pi's ``getSessionStats`` does
(``coding/agent_session/stats.py`` says which). Walking ``get_entries()`` for them would parse
every message of a large session, whose covered part (``cold_part.py``) is kept as offsets, and
would do it on every footer update. So ``SessionUsage`` computes them once, when first asked
(the covered part's message lines decoded from the file for the counted fields only,
``usage_scan.py``; everything else added as parsed), then adds each entry as it is appended.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

TOKEN_FIELDS = ("input", "output", "cacheRead", "cacheWrite")


class UsageSummary:
    """Counts, token totals and cost of the entries added so far, in file order."""

    __slots__ = ("cost", "counts", "last_assistant_usage", "tokens")

    def __init__(self) -> None:
        self.counts = {"userMessages": 0, "assistantMessages": 0, "toolCalls": 0, "toolResults": 0, "totalMessages": 0}
        self.tokens = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
        self.cost = 0.0
        # The usage of the latest assistant message that has one (the footer's cache hit rate).
        self.last_assistant_usage: Mapping[str, object] | None = None

    def add_usage(self, usage: object) -> None:
        """One ``usage`` record; anything else, a missing one included, counts nothing."""
        if not isinstance(usage, dict):
            return
        tokens = self.tokens
        for field in TOKEN_FIELDS:
            tokens[field] += int(usage.get(field) or 0)
        total = int(usage.get("totalTokens") or 0)
        if not total:
            total = sum(int(usage.get(field) or 0) for field in TOKEN_FIELDS)
        tokens["total"] += total
        cost = usage.get("cost")
        if isinstance(cost, dict):
            self.cost += float(cost.get("total") or 0.0)

    def add_entry(self, entry: Mapping[str, object]) -> None:
        """One entry, read as plain JSON (a file written by another version may lack a field)."""
        kind = entry.get("type")
        if kind == "message":
            message = entry.get("message")
            if not isinstance(message, dict):
                return
            counts = self.counts
            counts["totalMessages"] += 1
            role = message.get("role")
            if role == "user":
                counts["userMessages"] += 1
            elif role == "assistant":
                counts["assistantMessages"] += 1
                content = message.get("content")
                blocks = content if isinstance(content, list) else []
                counts["toolCalls"] += sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall")
                usage = message.get("usage")
                self.add_usage(usage)
                if isinstance(usage, Mapping):
                    self.last_assistant_usage = usage
            elif role == "toolResult":
                counts["toolResults"] += 1
                self.add_usage(message.get("usage"))
        elif kind in ("compaction", "branch_summary", "usage"):
            self.add_usage(entry.get("usage"))

    def add_entries(self, entries: Iterable[Mapping[str, object]]) -> None:
        for entry in entries:
            self.add_entry(entry)

    def add_summary(self, earlier: UsageSummary) -> None:
        """Add what ``earlier`` counted (entries that come before the ones added after it)."""
        for name, value in earlier.counts.items():
            self.counts[name] += value
        for name, value in earlier.tokens.items():
            self.tokens[name] += value
        self.cost += earlier.cost
        if earlier.last_assistant_usage is not None:
            self.last_assistant_usage = earlier.last_assistant_usage

    def to_json(self) -> dict[str, object]:
        return {
            "counts": self.counts,
            "tokens": self.tokens,
            "cost": self.cost,
            "lastAssistantUsage": self.last_assistant_usage,
        }

    @classmethod
    def from_json(cls, value: object) -> UsageSummary | None:
        """What ``to_json`` wrote (an index beside the session), or None when it is not that."""
        summary = cls()
        if not isinstance(value, dict):
            return None
        counts, tokens, cost, last = (value.get(k) for k in ("counts", "tokens", "cost", "lastAssistantUsage"))
        for given, kept in ((counts, summary.counts), (tokens, summary.tokens)):
            if not isinstance(given, dict) or given.keys() != kept.keys():
                return None
            if not all(type(number) is int and number >= 0 for number in given.values()):
                return None
            kept.update(given)
        if isinstance(cost, bool) or not isinstance(cost, int | float) or not (last is None or isinstance(last, dict)):
            return None
        summary.cost = float(cost)
        summary.last_assistant_usage = last
        return summary


class SessionUsage:
    """``UsageSummary`` of one loaded session, computed when first asked (see above)."""

    def __init__(self, base: Callable[[UsageSummary], None]) -> None:
        self._base: Callable[[UsageSummary], None] | None = base
        self._added: list[Mapping[str, object]] = []
        self._summary: UsageSummary | None = None

    @classmethod
    def of_entries(cls, entries: list[Mapping[str, object]]) -> SessionUsage:
        return cls(lambda summary: summary.add_entries(entries))

    def add(self, entry: Mapping[str, object]) -> None:
        """An entry added to the session (after the ones loaded)."""
        if self._summary is not None:
            self._summary.add_entry(entry)
        else:
            self._added.append(entry)

    def summary(self) -> UsageSummary:
        if self._summary is None:
            summary = UsageSummary()
            if self._base is not None:
                self._base(summary)
            summary.add_entries(self._added)
            self._summary, self._base, self._added = summary, None, []
        return self._summary


__all__ = ["SessionUsage", "UsageSummary"]
