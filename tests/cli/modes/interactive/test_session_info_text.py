"""``/session``'s text, section by section, as Pi 1.4.0 words it.

Observed in Pi 1.4.0 after one answer of 10 input and 5 output tokens (fake model, no cache):
``Session Info``, ``File:``/``ID:``, ``Messages`` (Total 3, User 1, Assistant 1, ``Tools: 0
calls, 0 results``), ``Tokens`` (Input 10, Output 5, Total 15), ``Cache Warming`` (``Mode:
streaming``, ``Status: Inactive (cache lifetime unavailable)``) and ``Cost`` (``Total: $0.000``).
"""

from __future__ import annotations

from pi_harness.cli.modes.interactive.session_info import (
    CostShare,
    SessionFacts,
    cost_breakdown,
    session_info_text,
    warming_status_text,
)
from pi_harness.coding.cache_misses import CacheWaste
from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.theme import load_theme

THEME = load_theme("dark", "truecolor")


def facts(**changes: object) -> SessionFacts:
    stats = {"sessionId": "abc", "totalMessages": 3, "userMessages": 1, "assistantMessages": 1, "toolCalls": 0,
             "toolResults": 0, "tokens": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "total": 15},
             "cost": 0.00004}  # fmt: skip
    base: dict[str, object] = dict(
        stats=stats, name=None, warming_mode="streaming", warming_status="Inactive (cache lifetime unavailable)",
        decision=None, shares=[CostShare("fake/fake-1", 0.00004, 15)], selected_key="fake/fake-1", waste=CacheWaste(),
    )  # fmt: skip
    base.update(changes)
    return SessionFacts(**base)  # type: ignore[arg-type]


def test_the_sections_of_a_short_session() -> None:
    text = strip_ansi(session_info_text(facts(), THEME))
    assert text.split("\n") == [
        "Session Info", "", "File: In-memory", "ID: abc", "",
        "Messages", "Total: 3", "User: 1", "Assistant: 1", "Tools: 0 calls, 0 results", "",
        "Tokens", "Input: 10", "Output: 5", "Total: 15", "",
        "Cache Warming", "Mode: streaming", "Status: Inactive (cache lifetime unavailable)", "",
        "Cost", "Total: $0.000",
    ]  # fmt: skip


def test_cache_split_cost_per_model_and_rebilled_misses() -> None:
    stats = dict(facts().stats)
    stats.update(sessionFile="/s/a.jsonl", cost=1.5,
                 tokens={"input": 1000, "output": 50, "cacheRead": 3000, "cacheWrite": 200, "total": 4250})  # fmt: skip
    shares = [CostShare("a/one", 1.0, 3000), CostShare("b/two", 0.5, 1250)]
    waste = CacheWaste(missed_tokens=2048, missed_cost=0.25, miss_count=2)
    text = strip_ansi(session_info_text(facts(stats=stats, name="Prep", shares=shares, waste=waste), THEME))
    assert "Name: Prep\nFile: /s/a.jsonl" in text
    assert "Input: 4,200\n  Cached: 3,000 (71.4%)\n  Uncached: 1,200 (200 written to cache)\nOutput: 50" in text
    assert text.endswith("Total: $1.500\n  a/one: $1.000 (3.0k tokens)\n  b/two: $0.500 (1.3k tokens)\n"
                         "Cache Re-billed: $0.250 (2,048 tokens, 2 misses)")  # fmt: skip


def test_cost_breakdown_groups_models_and_tool_usage() -> None:
    def usage(cost: float, tokens: int) -> dict[str, object]:
        return {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": cost}}

    entries = [
        {"type": "message", "message": {"role": "assistant", "provider": "p", "model": "auto",
                                        "responseModel": "real", "usage": usage(0.1, 10)}},
        {"type": "usage", "provider": "p", "model": "real", "usage": usage(0.2, 5)},
        {"type": "compaction", "usage": usage(0.5, 100)},
        {"type": "message", "message": {"role": "user", "content": "hi"}},
    ]  # fmt: skip
    shares = cost_breakdown(entries)
    assert [(share.key, round(share.cost, 3), share.tokens) for share in shares] == [
        ("Tools/summaries", 0.5, 100), ("p/real", 0.3, 15)]  # fmt: skip


def test_warming_status_words() -> None:
    assert warming_status_text({"state": "inactive", "reason": "cache warming disabled"}, 0) == (
        "Inactive (cache warming disabled)"
    )
    decision = {"phase": "idle", "warmCost": 0.01, "missCost": 0.2, "continuationProbability": 0.15,
                "expectedSavings": 0.12, "economicsAvailable": True, "action": "warm"}  # fmt: skip
    status = {"state": "scheduled", "nextWarmAt": 125_500, "decision": decision}
    assert warming_status_text(status, 0) == (  # type: ignore[arg-type]
        "Warming in 2m 6s (15% estimated continuation, expected savings $0.120 >= $0.05 -> warm)"
    )
