"""``get_session_stats`` and ``get_context_usage`` (RPC ``get_session_stats``; see rpc.md).

1.4.0 semantics: counts, tokens and cost cover the whole session file - every branch, responses
hidden by ``context_edit`` or compacted away, usage reported by tools, compaction and branch
summary generation, and ``usage`` entries (cache warming) - i.e. what was billed, not the
current context. ``contextUsage`` is the current context estimate
(``pi_harness.coding.compaction.session_context_usage``); its ``tokens``/``percent`` are null
right after a compaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pi_harness.ai.types import Model
from pi_harness.coding.compaction import session_context_usage
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.store import SessionManager

_TOKEN_FIELDS = (("input", "input"), ("output", "output"), ("cacheRead", "cacheRead"), ("cacheWrite", "cacheWrite"))


class _Totals:
    __slots__ = ("cost", "tokens")

    def __init__(self) -> None:
        self.tokens = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
        self.cost = 0.0

    def add(self, usage: object) -> None:
        """Add one ``usage`` record (anything else, a missing one included, counts nothing)."""
        if not isinstance(usage, dict):
            return
        for key, field in _TOKEN_FIELDS:
            self.tokens[key] += int(usage.get(field) or 0)
        total = int(usage.get("totalTokens") or 0)
        if not total:
            total = sum(int(usage.get(field) or 0) for _key, field in _TOKEN_FIELDS)
        self.tokens["total"] += total
        cost = usage.get("cost")
        if isinstance(cost, dict):
            self.cost += float(cost.get("total") or 0.0)


def _count(entries: Iterable[SessionEntry]) -> tuple[dict[str, int], _Totals]:
    counts = {"userMessages": 0, "assistantMessages": 0, "toolCalls": 0, "toolResults": 0, "totalMessages": 0}
    totals = _Totals()
    for entry in entries:
        # Read as plain JSON: a session file written by another version may lack a field.
        record: Mapping[str, object] = entry
        kind = record.get("type")
        if kind == "message":
            message = record.get("message")
            if not isinstance(message, dict):
                continue
            counts["totalMessages"] += 1
            role = message.get("role")
            if role == "user":
                counts["userMessages"] += 1
            elif role == "assistant":
                counts["assistantMessages"] += 1
                content = message.get("content")
                blocks = content if isinstance(content, list) else []
                counts["toolCalls"] += sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall")
                totals.add(message.get("usage"))
            elif role == "toolResult":
                counts["toolResults"] += 1
                totals.add(message.get("usage"))
        elif kind in ("compaction", "branch_summary", "usage"):
            totals.add(record.get("usage"))
    return counts, totals


def session_stats(manager: SessionManager, model: Model | None) -> dict[str, object]:
    """``{sessionFile?, sessionId, userMessages, assistantMessages, toolCalls, toolResults,
    totalMessages, tokens: {input, output, cacheRead, cacheWrite, total}, cost, contextUsage?}``."""
    counts, totals = _count(manager.get_entries())
    stats: dict[str, object] = {}
    session_file = manager.get_session_file()
    if session_file is not None:
        stats["sessionFile"] = str(session_file)
    stats["sessionId"] = manager.get_session_id()
    stats.update(counts)
    stats["tokens"] = totals.tokens
    stats["cost"] = totals.cost
    usage = context_usage_of(manager, model)
    if usage is not None:
        stats["contextUsage"] = usage
    return stats


def context_usage_of(manager: SessionManager, model: Model | None) -> dict[str, object] | None:
    if model is None:
        return None
    usage = session_context_usage(manager.build_session_context().messages, int(model.get("contextWindow") or 0))
    return dict(usage) if usage is not None else None


__all__ = ["context_usage_of", "session_stats"]
