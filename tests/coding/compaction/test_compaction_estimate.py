"""Token estimation and the automatic trigger rules."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from _compaction_helpers import append_all, assistant, tool_result, usage, user

from pi_harness.ai.providers.faux import FauxProvider
from pi_harness.coding.compaction import (
    CompactionSettings,
    calculate_context_tokens,
    compaction_reason,
    estimate_context_tokens,
    estimate_tokens,
    session_context_usage,
    should_compact,
)
from pi_harness.coding.session_store import SessionManager


def test_estimate_tokens_per_role() -> None:
    assert estimate_tokens({"role": "user", "content": "abcde"}) == 2
    image = {"type": "image", "data": "x" * 9999, "mimeType": "image/png"}
    assert estimate_tokens({"role": "user", "content": [{"type": "text", "text": "abcd"}, image]}) == 1
    call = {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "a"}}
    # "read" (4) + '{"path":"a"}' (12) + text 4 + thinking 4 = 24 chars
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": "abcd"}, {"type": "thinking", "thinking": "efgh"}, call],
    }
    assert estimate_tokens(message) == 6
    assert estimate_tokens({"role": "toolResult", "content": [image]}) == 1200
    assert estimate_tokens({"role": "custom", "content": "abc"}) == 1
    assert estimate_tokens({"role": "bashExecution", "command": "ls", "output": "abcdef"}) == 2
    assert estimate_tokens({"role": "compactionSummary", "summary": "x" * 9}) == 3
    assert estimate_tokens({"role": "system", "content": "ignored"}) == 0


def test_context_tokens_from_usage() -> None:
    assert calculate_context_tokens(usage(500, input=1)) == 500  # type: ignore[arg-type]
    assert calculate_context_tokens(usage(0, input=1, output=2, cacheRead=3, cacheWrite=4)) == 10  # type: ignore[arg-type]


def test_context_estimate_uses_last_valid_usage_plus_trailing() -> None:
    messages: list[dict[str, Any]] = [
        user("x" * 400),
        assistant("a", total=1000),
        tool_result("c", "y" * 40),
        assistant("b", stop="error", total=99999),  # failed responses do not count
        user("z" * 8),
    ]
    estimate = estimate_context_tokens(messages)  # type: ignore[arg-type]
    assert estimate.last_usage_index == 1 and estimate.usage_tokens == 1000
    assert estimate.trailing_tokens == 10 + 1 + 2
    assert estimate.tokens == 1013
    plain = estimate_context_tokens([user("x" * 400)])  # type: ignore[list-item]
    assert plain.tokens == 100 and plain.last_usage_index is None


def test_threshold_is_strictly_greater() -> None:
    settings = CompactionSettings()
    assert settings == CompactionSettings(enabled=True, reserve_tokens=16384, keep_recent_tokens=20000)
    assert not should_compact(100_000 - 16384, 100_000, settings)
    assert should_compact(100_000 - 16383, 100_000, settings)
    assert not should_compact(10**9, 100_000, CompactionSettings(enabled=False))
    assert CompactionSettings.from_dict({"enabled": False, "reserveTokens": 5}) == CompactionSettings(False, 5, 20000)


def _model(window: int = 100_000) -> Any:
    return FauxProvider(model_id="faux-model", context_window=window).model


def test_reason_guards() -> None:
    model = _model()
    settings = CompactionSettings()
    big = assistant("x", total=90_000)
    assert compaction_reason(big, settings=settings, model=model) == "threshold"  # type: ignore[arg-type]
    assert compaction_reason(assistant("x", total=1000), settings=settings, model=model) is None  # type: ignore[arg-type]
    assert compaction_reason(big, settings=CompactionSettings(enabled=False), model=model) is None  # type: ignore[arg-type]
    assert compaction_reason(big, settings=settings, model=None) is None  # type: ignore[arg-type]

    aborted = assistant("x", total=90_000, stop="aborted")
    assert compaction_reason(aborted, settings=settings, model=model) is None  # type: ignore[arg-type]
    assert compaction_reason(aborted, settings=settings, model=model, before_prompt=True) == "threshold"  # type: ignore[arg-type]

    # Usage from before the latest compaction must not trigger again.
    compaction = {"type": "compaction", "timestamp": "2100-01-01T00:00:00.000Z"}
    assert compaction_reason(big, settings=settings, model=model, latest_compaction=compaction) is None  # type: ignore[arg-type]


def test_reason_overflow_only_for_the_current_model() -> None:
    model = _model()
    settings = CompactionSettings()
    overflow = assistant(stop="error", errorMessage="prompt is too long: 250000 tokens > 200000 maximum")
    assert compaction_reason(overflow, settings=settings, model=model) == "overflow"  # type: ignore[arg-type]
    other = assistant(stop="error", errorMessage="prompt is too long", provider="anthropic", model="small")
    assert compaction_reason(other, settings=settings, model=model) is None  # type: ignore[arg-type]
    silent = assistant("ok", total=0, stop="stop")
    silent["usage"] = usage(0, input=99_000, cacheRead=2_000)
    assert compaction_reason(silent, settings=settings, model=model) == "overflow"  # type: ignore[arg-type]
    truncated = assistant("", stop="length")
    truncated["usage"] = usage(0, input=10_000, output=10)
    assert compaction_reason(truncated, settings=settings, model=model) is None  # type: ignore[arg-type]
    assert (
        compaction_reason(truncated, settings=settings, model=model, requested_max_tokens=4096)  # type: ignore[arg-type]
        == "overflow"
    )


def test_reason_for_error_estimates_from_messages() -> None:
    model = _model()
    settings = CompactionSettings()
    failed = assistant(stop="error", errorMessage="server exploded")
    history = [user("q"), assistant("a", total=85_000), user("x" * 4000)]
    assert compaction_reason(failed, settings=settings, model=model, messages=history) == "threshold"  # type: ignore[arg-type]
    assert compaction_reason(failed, settings=settings, model=model, messages=[user("q")]) is None  # type: ignore[arg-type,list-item]
    compaction = {"type": "compaction", "timestamp": "2100-01-01T00:00:00.000Z"}
    stale = compaction_reason(
        {**failed, "timestamp": 4_200_000_000_000},  # type: ignore[arg-type]
        settings=settings,
        model=model,
        messages=history,
        latest_compaction=compaction,  # type: ignore[arg-type]
    )
    assert stale is None  # the only usage is from before the compaction


def test_context_usage_is_unknown_right_after_compaction(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    ids = append_all(manager, [user("q"), assistant("a", total=5000)])
    assert session_context_usage(manager.build_session_context().messages, 10_000) == {
        "tokens": 5000,
        "contextWindow": 10_000,
        "percent": 50.0,
    }
    manager.append_compaction("summary", ids[1], 5000)
    assert session_context_usage(manager.build_session_context().messages, 10_000) == {
        "tokens": None,
        "contextWindow": 10_000,
        "percent": None,
    }
    append_all(manager, [user("next"), assistant("b", total=800, timestamp=time.time_ns() // 1_000_000 + 1000)])
    assert session_context_usage(manager.build_session_context().messages, 10_000)["tokens"] == 800  # type: ignore[index]
    assert session_context_usage([], 0) is None
