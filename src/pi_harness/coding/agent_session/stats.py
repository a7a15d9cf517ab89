"""``get_session_stats`` and ``get_context_usage`` (RPC ``get_session_stats``; see rpc.md).

1.4.0 semantics: counts, tokens and cost cover the whole session file - every branch, responses
hidden by ``context_edit`` or compacted away, usage reported by tools, compaction and branch
summary generation, and ``usage`` entries (cache warming) - i.e. what was billed, not the
current context. ``contextUsage`` is the current context estimate
(``pi_harness.coding.compaction.session_context_usage``); its ``tokens``/``percent`` are null
right after a compaction.
"""

from __future__ import annotations

from pi_harness.ai.types import Model
from pi_harness.coding.compaction import session_context_usage
from pi_harness.coding.session_store.store import SessionManager


def session_stats(manager: SessionManager, model: Model | None) -> dict[str, object]:
    """``{sessionFile?, sessionId, userMessages, assistantMessages, toolCalls, toolResults,
    totalMessages, tokens: {input, output, cacheRead, cacheWrite, total}, cost, contextUsage?}``."""
    summary = manager.usage_summary()  # kept up to date by the store, not walked here
    stats: dict[str, object] = {}
    session_file = manager.get_session_file()
    if session_file is not None:
        stats["sessionFile"] = str(session_file)
    stats["sessionId"] = manager.get_session_id()
    stats.update(summary.counts)
    stats["tokens"] = dict(summary.tokens)
    stats["cost"] = summary.cost
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
