"""End-to-end compaction through ``CompactionRunner`` with the faux provider (compaction.md 6-8, 11)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _compaction_helpers import append_all, assistant, tool_result, user, words

from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_error, faux_text
from pi_harness.coding.compaction import (
    OVERFLOW_RETRY_FAILED,
    BeforeCompactEvent,
    CompactionError,
    CompactionFailure,
    CompactionRunner,
    CompactionSettings,
)
from pi_harness.coding.compaction.retry import SummaryRetryPolicy
from pi_harness.coding.messages import convert_to_llm
from pi_harness.coding.session_store import SessionManager

KEEP = CompactionSettings(keep_recent_tokens=205)  # the cut lands on "Now run the suite"


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = FauxProvider(model_id="faux-model", context_window=10_000, max_tokens=2048)
    yield provider
    provider.close()


def _history(manager: SessionManager) -> list[str]:
    t = words(100)
    manager.append_model_change("faux", "faux-model")
    return append_all(
        manager,
        [
            user("Fix the failing test in tests/test_app.py"),
            assistant("", calls=(("r1", "read", {"path": "src/app.py"}),)),
            tool_result("r1", t, "read"),
            assistant("", calls=(("e1", "edit", {"path": "src/app.py"}),)),
            tool_result("e1", "edited", "edit"),
            assistant("Fixed the off-by-one in src/app.py"),
            user("Now run the suite"),
            assistant(t[:-3], calls=(("b1", "bash", {}),)),
            tool_result("b1", t),
            assistant("All green", total=3000),
        ],
    )


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.compacted: list[tuple[dict[str, Any], bool]] = []
        self.failures: list[CompactionFailure] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)

    async def on_compacted(self, entry: Any, from_extension: bool) -> None:
        self.compacted.append((entry, from_extension))

    def on_failed(self, failure: CompactionFailure) -> None:
        self.failures.append(failure)


def _runner(manager: SessionManager, recorder: Recorder, **kwargs: Any) -> CompactionRunner:
    return CompactionRunner(
        manager,
        settings=kwargs.pop("settings", KEEP),
        emit=recorder.emit,
        on_compacted=recorder.on_compacted,
        on_failed=recorder.on_failed,
        **kwargs,
    )


async def test_manual_compaction_end_to_end(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.create(str(tmp_path / "proj"), tmp_path / "sessions")
    ids = _history(manager)
    recorder = Recorder()
    faux.push(
        faux_text(
            "## Goal\nFix the failing test\n\n## Next Steps\n1. Run the suite", usage={"input": 300, "output": 40}
        )
    )
    result = await _runner(manager, recorder).compact(faux.model, None, "keep the test names")

    # The summary request: the summarised part only, serialised, with the extra focus.
    (request,) = faux.requests
    text = request.context["messages"][0]["content"][0]["text"]  # type: ignore[index,typeddict-item]
    assert text.startswith(
        "<conversation>\n[User]: Fix the failing test in tests/test_app.py\n\n"
        '[Assistant tool calls]: read(path="src/app.py")'
    )
    assert "[Assistant]: Fixed the off-by-one in src/app.py" in text
    assert "Now run the suite" not in text  # kept verbatim, not summarised
    assert text.endswith("\n\nAdditional focus: keep the test names")
    assert request.options is not None and request.options.disable_cache_writes

    # The compaction entry and the result.
    entry = manager.get_entries()[-1]
    assert entry["type"] == "compaction" and manager.get_leaf_id() == entry["id"]
    assert entry["firstKeptEntryId"] == ids[6]  # type: ignore[typeddict-item]
    assert entry["summary"] == (  # type: ignore[typeddict-item]
        "## Goal\nFix the failing test\n\n## Next Steps\n1. Run the suite"
        "\n\n<modified-files>\nsrc/app.py\n</modified-files>"
    )
    assert entry["details"] == {"readFiles": [], "modifiedFiles": ["src/app.py"]}  # type: ignore[typeddict-item]
    assert entry["usage"]["input"] == 300  # type: ignore[typeddict-item]
    assert entry["fromHook"] is False  # type: ignore[typeddict-item]
    assert "systemMessage" not in entry  # no system message on the path: nothing to checkpoint
    assert result["summary"] == entry["summary"]  # type: ignore[typeddict-item]
    assert result["tokensBefore"] == entry["tokensBefore"] > 0  # type: ignore[typeddict-item]
    assert 0 < result["estimatedTokensAfter"] < result["tokensBefore"]

    # The rebuilt context: summary first, then the kept tail verbatim.
    context = manager.build_session_context()
    assert [m["role"] for m in context.messages] == [
        "compactionSummary",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    llm = convert_to_llm(context.messages)
    assert "<summary>\n## Goal\nFix the failing test" in llm[0]["content"][0]["text"]  # type: ignore[index,typeddict-item]
    assert SessionManager.open(manager.get_session_file()).build_session_context().messages == context.messages  # type: ignore[arg-type]

    assert recorder.events == [
        {"type": "compaction_start", "reason": "manual"},
        {"type": "compaction_end", "reason": "manual", "result": result, "aborted": False, "willRetry": False},
    ]
    assert recorder.compacted == [(entry, False)]


async def test_manual_failures_raise_with_exact_text(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    recorder = Recorder()
    runner = _runner(manager, recorder)
    with pytest.raises(CompactionError, match=r"^No model selected$"):
        await runner.compact(None)
    keyed = {**faux.model, "api": "anthropic-messages", "provider": "anthropic"}
    with pytest.raises(CompactionError, match=r"^No API key for anthropic$"):
        await runner.compact(keyed)  # type: ignore[arg-type]
    append_all(manager, [user("hi"), assistant("hello")])
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        await runner.compact(faux.model)
    _history(manager)
    faux.push(faux_error("model unavailable"))
    with pytest.raises(CompactionError, match=r"^Summarization failed: model unavailable$"):
        await runner.compact(faux.model)
    faux.push(faux_text("summary"))
    await runner.compact(faux.model)
    with pytest.raises(CompactionError, match=r"^Already compacted$"):
        await runner.compact(faux.model)
    ends = [e for e in recorder.events if e["type"] == "compaction_end"]
    assert [e.get("errorMessage") for e in ends] == [
        "Compaction failed: No model selected",
        "Compaction failed: No API key for anthropic",
        "Compaction failed: Nothing to compact (session too small)",
        "Compaction failed: Summarization failed: model unavailable",
        None,
        "Compaction failed: Already compacted",
    ]
    assert all(e["reason"] == "manual" and e["willRetry"] is False for e in ends)
    assert len([e for e in recorder.events if e["type"] == "compaction_start"]) == 6


async def test_before_compact_hook_can_cancel_or_supply_the_summary(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    ids = _history(manager)
    seen: list[BeforeCompactEvent] = []

    async def cancel(event: BeforeCompactEvent) -> Any:
        seen.append(event)
        return {"cancel": True}

    recorder = Recorder()
    with pytest.raises(CompactionError, match=r"^Compaction cancelled$"):
        await _runner(manager, recorder, before_compact=cancel).compact(faux.model, None, "focus")
    assert recorder.events[-1] == {
        "type": "compaction_end",
        "reason": "manual",
        "aborted": True,
        "willRetry": False,
    }  # as in Pi: a cancelled compaction has neither a result nor an error text
    event = seen[0]
    assert event.reason == "manual" and event.custom_instructions == "focus" and not event.will_retry
    assert event.preparation.first_kept_entry_id == ids[6]
    assert [e["id"] for e in event.branch_entries] == [e["id"] for e in manager.get_branch()]

    async def supply(event: BeforeCompactEvent) -> Any:
        return {"compaction": {"summary": "from extension", "firstKeptEntryId": ids[9], "tokensBefore": 77}}

    result = await _runner(manager, recorder, before_compact=supply).compact(faux.model)
    assert faux.requests == []  # no model call
    entry = manager.get_entries()[-1]
    assert entry["fromHook"] is True and entry["summary"] == "from extension"  # type: ignore[typeddict-item]
    assert result["tokensBefore"] == 77 and recorder.compacted[-1][1] is True


async def test_abort_cancels_a_running_compaction(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    runner = _runner(manager, Recorder())
    faux.push(FauxResponse(content=[{"type": "text", "text": "x" * 400}], delay=0.02, chunk_size=4))
    task = asyncio.create_task(runner.compact(faux.model))
    while not faux.requests:
        await asyncio.sleep(0.005)
    assert runner.is_compacting
    runner.abort()
    with pytest.raises(CompactionError, match=r"^Compaction cancelled$"):
        await task
    assert not runner.is_compacting
    assert all(e["type"] != "compaction" for e in manager.get_entries())


async def test_auto_compaction_reports_failure_and_returns_false(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    recorder = Recorder()
    runner = _runner(manager, recorder)
    faux.push(faux_error("boom"))
    assert await runner.run_auto("threshold", faux.model) is False
    assert recorder.events == [
        {"type": "compaction_start", "reason": "threshold"},
        {
            "type": "compaction_end",
            "reason": "threshold",
            "aborted": False,
            "willRetry": False,
            "errorMessage": "Auto-compaction failed: Summarization failed: boom",
        },
    ]
    assert recorder.failures == [
        CompactionFailure("threshold", "Auto-compaction failed: Summarization failed: boom", False, False, False)
    ]
    # No model, or nothing to compact: nothing starts, so no events at all (as in Pi).
    recorder.events.clear()
    assert await runner.run_auto("threshold", None) is False
    assert recorder.events == []
    faux.push(FauxResponse(content=[{"type": "text", "text": "## Goal\nA summary."}]))
    assert await runner.run_auto("overflow", faux.model) is True
    recorder.events.clear()
    assert await runner.run_auto("overflow", faux.model) is False  # the path ends with it now
    assert recorder.events == []


async def test_failed_overflow_compaction_names_the_recovery(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    recorder = Recorder()
    faux.push(faux_error("boom"))
    assert await _runner(manager, recorder).run_auto("overflow", faux.model, will_retry=True) is False
    message = "Context overflow recovery failed: Summarization failed: boom"
    assert recorder.events[-1] == {
        "type": "compaction_end",
        "reason": "overflow",
        "aborted": False,
        "willRetry": False,
        "errorMessage": message,
    }
    assert recorder.failures == [CompactionFailure("overflow", message, False, False, False)]


async def test_threshold_check_compacts(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    last = assistant("big context", total=9_000)
    manager.append_message(last)  # type: ignore[arg-type]
    recorder = Recorder()
    runner = _runner(manager, recorder, settings=CompactionSettings(reserve_tokens=2_000, keep_recent_tokens=205))
    quiet = assistant("small", total=100)
    assert (await runner.check(quiet, faux.model)).action == "none"  # type: ignore[arg-type]
    faux.push(faux_text("summary"), faux_text("turn prefix"))  # the cut splits the last turn
    outcome = await runner.check(last, faux.model)  # type: ignore[arg-type]
    assert (outcome.action, outcome.reason) == ("compacted", "threshold")
    assert recorder.events[-1]["reason"] == "threshold" and recorder.events[-1]["result"] is not None
    # The same response must not trigger again once it is older than the compaction.
    assert (await runner.check(last, faux.model)).action == "none"  # type: ignore[arg-type]


async def test_overflow_compacts_and_retries_once(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    manager.append_message(user("one more thing"))  # type: ignore[arg-type]
    failed = assistant(
        "",
        calls=(("x1", "bash", {}),),
        stop="error",
        errorMessage="400 prompt is too long: 210000 tokens > 200000 maximum",
    )
    failed_id = manager.append_message(failed)  # type: ignore[arg-type]
    manager.append_message(tool_result("x1", "partial"))  # type: ignore[arg-type]
    recorder = Recorder()
    runner = _runner(manager, recorder)
    faux.push(faux_text("## Goal\nrecovered"), faux_text("## Original Request\nrun"))

    outcome = await runner.check(failed, faux.model)  # type: ignore[arg-type]
    assert (outcome.action, outcome.reason) == ("retry", "overflow")
    edits = [e for e in manager.get_entries() if e["type"] == "context_edit"]
    assert [e["replacement"] for e in edits] == [None, None]  # type: ignore[typeddict-item]
    assert edits[0]["targetId"] == failed_id  # type: ignore[typeddict-item]
    assert manager.get_entries()[-1]["type"] == "compaction"
    assert recorder.events[0] == {"type": "compaction_start", "reason": "overflow"}
    assert recorder.events[1]["willRetry"] is True and recorder.events[1]["result"] is not None
    roles = [m["role"] for m in manager.build_session_context().messages]
    assert "toolResult" not in roles[-2:] and roles[-1] == "user"  # failed attempt omitted

    # The retry overflows again: no second attempt, the exact failure text.
    again = assistant(
        stop="error",
        errorMessage="prompt is too long",
        timestamp=manager.build_session_context().messages[0]["timestamp"] + 10_000,
    )
    manager.append_message(again)  # type: ignore[arg-type]
    outcome = await runner.check(again, faux.model)  # type: ignore[arg-type]
    assert outcome.action == "failed"
    assert recorder.events[-1] == {
        "type": "compaction_end",
        "reason": "overflow",
        "aborted": False,
        "willRetry": False,
        "errorMessage": OVERFLOW_RETRY_FAILED,
    }
    assert OVERFLOW_RETRY_FAILED == (
        "Context overflow recovery failed after one compact-and-retry attempt. "
        "Try reducing context or switching to a larger-context model."
    )
    runner.reset_overflow_recovery()
    assert not runner.overflow_recovery_attempted


async def test_failed_overflow_compaction_keeps_the_omission_and_does_not_retry(
    tmp_path: Path, faux: FauxProvider
) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    failed = assistant(stop="error", errorMessage="context_length_exceeded")
    manager.append_message(failed)  # type: ignore[arg-type]
    recorder = Recorder()
    faux.push(faux_error("summariser down"), faux_error("summariser down"))
    outcome = await _runner(manager, recorder).check(failed, faux.model)  # type: ignore[arg-type]
    assert outcome.action == "failed"
    assert [e["type"] for e in manager.get_entries()[-1:]] == ["context_edit"]
    assert (
        recorder.events[-1]["errorMessage"] == "Context overflow recovery failed: Summarization failed: summariser down"
    )


async def test_silent_overflow_is_compacted_without_retry(tmp_path: Path, faux: FauxProvider) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    done = assistant("fine", total=0)
    done["usage"]["input"] = 12_000
    manager.append_message(done)  # type: ignore[arg-type]
    faux.push(faux_text("summary"), faux_text("turn prefix"))
    recorder = Recorder()
    outcome = await _runner(manager, recorder).check(done, faux.model)  # type: ignore[arg-type]
    assert (outcome.action, outcome.reason) == ("compacted", "overflow")
    assert recorder.events[-1]["willRetry"] is False
    assert all(e["type"] != "context_edit" for e in manager.get_entries())


async def test_compaction_of_the_real_v1_session(shared_data: Path, tmp_path: Path, faux: FauxProvider) -> None:
    path = tmp_path / "real.jsonl"
    path.write_bytes((shared_data / "pi-sessions" / "v1-real-session.jsonl").read_bytes())
    manager = SessionManager.open(path)
    before = manager.build_session_context().messages
    faux.push(faux_text("## Goal\nport the selector"), faux_text("## Original Request\nport"))
    result = await CompactionRunner(manager).compact(faux.model)
    kept_from = manager.get_entry(result["firstKeptEntryId"])
    assert kept_from is not None and kept_from["message"]["role"] != "toolResult"  # type: ignore[typeddict-item]
    after = SessionManager.open(path).build_session_context().messages
    assert after[0]["role"] == "compactionSummary"
    assert after[1:] == before[len(before) - len(after) + 1 :]  # the kept tail is verbatim
    assert 0 < result["estimatedTokensAfter"] < result["tokensBefore"]
    summarised = faux.requests[0].context["messages"][0]["content"][0]["text"]  # type: ignore[index,typeddict-item]
    assert summarised.startswith("<conversation>\n[User]: /mode")


async def test_summary_requests_are_retried_after_a_transient_error(tmp_path: Path, faux: FauxProvider) -> None:
    # As Pi: the summary call is repeated with the retry backoff; the session hears of it.
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    recorder = Recorder()
    policy = SummaryRetryPolicy(enabled=True, max_retries=2, base_delay_ms=1, max_delay_ms=5)
    runner = _runner(manager, recorder, retry_policy=lambda: policy, retry_events=recorder.emit)
    faux.push(faux_error("503 Service Unavailable"), faux_text("## Goal\nRetried summary"))
    assert await runner.run_auto("threshold", faux.model) is True
    assert [e["type"] for e in recorder.events] == [
        "compaction_start",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "compaction_end",
    ]
    scheduled = recorder.events[1]
    assert (scheduled["attempt"], scheduled["maxAttempts"], scheduled["delayMs"]) == (1, 2, 1)
    assert recorder.events[2] == {
        "type": "summarization_retry_attempt_start",
        "source": "compaction",
        "reason": "threshold",
    }
    assert recorder.events[-1]["result"]["summary"].startswith("## Goal\nRetried summary")


async def test_deterministic_summary_errors_and_a_disabled_policy_fail_at_once(
    tmp_path: Path, faux: FauxProvider
) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _history(manager)
    for policy, error in (
        (SummaryRetryPolicy(max_retries=3, base_delay_ms=1), "400 Invalid value for 'max_tokens'"),
        (SummaryRetryPolicy(enabled=False), "503 Service Unavailable"),
    ):
        recorder = Recorder()
        runner = _runner(manager, recorder, retry_policy=lambda policy=policy: policy, retry_events=recorder.emit)
        faux.push(faux_error(error))
        assert await runner.run_auto("threshold", faux.model) is False
        assert [e["type"] for e in recorder.events] == ["compaction_start", "compaction_end"]
        assert len(faux.requests) == 1
        faux.requests.clear()
