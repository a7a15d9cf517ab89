"""Automatic retry and overflow recovery (agent-loop.md 8.4, compaction.md 6)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from _agent_session_helpers import OVERFLOW, QUOTA, RATE_LIMIT, Recorder, make_session, request_texts, wait_for

from pi_harness.coding.compaction import OVERFLOW_RETRY_FAILED
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep, ToolCallStep


def oc_error(status: int, message: str, type_: str, code: str | None) -> str:
    """Pi's text for an OpenAI error: the status and the error object as compact JSON."""
    error = {"message": message, "type": type_, "param": None, "code": code}
    return f"{status}: " + json.dumps(error, separators=(",", ":"))


async def test_429_and_500_are_retried_with_events_and_the_failures_hidden(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(429, RATE_LIMIT)),
        ScriptedResponse(http_error=HTTPErrorSpec(500, "The server had an error while processing your request.")),
        ScriptedResponse(steps=[TextStep("finally")]),
    )
    result = await make_session(server, project, settings={"retry": {"baseDelayMs": 4, "maxAgentDelayMs": 6}})
    session = result.session
    recorder = Recorder(session)

    await session.prompt("hello")

    assert recorder.trace() == [
        "agent_start",
        "turn_start",
        "message_start:system",
        "message_end:system",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end:retry",
        "auto_retry_start",
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end:retry",
        "auto_retry_start",
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "auto_retry_end",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    starts = recorder.of("auto_retry_start")
    assert [(s["attempt"], s["maxAttempts"], s["delayMs"]) for s in starts] == [(1, 3, 4), (2, 3, 6)]
    assert starts[0]["errorMessage"] == oc_error(429, RATE_LIMIT, "requests", "rate_limit_exceeded")
    assert recorder.of("auto_retry_end") == [{"type": "auto_retry_end", "success": True, "attempt": 2}]
    # Each retry sends the context without the failed attempt; the file keeps it, hidden by edits.
    assert request_texts(server.requests[1])[1:] == ["user:hello"]
    assert request_texts(server.requests[2])[1:] == ["user:hello"]
    assert [m["role"] for m in session.get_messages()] == ["system", "user", "assistant"]
    entries = session.session_manager.get_entries()
    assert sum(1 for e in entries if e["type"] == "context_edit") == 2
    assert sum(1 for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant") == 3
    await result.runtime.shutdown()


async def test_retries_are_exhausted_after_max_retries(server: FakeLLMServer, project: Path) -> None:
    server.default = ScriptedResponse(http_error=HTTPErrorSpec(503, "Service Unavailable"))
    result = await make_session(server, project, settings={"retry": {"baseDelayMs": 1, "maxRetries": 2}})
    recorder = Recorder(result.session)
    await result.session.prompt("hello")
    assert len(server.requests) == 3
    assert [e["attempt"] for e in recorder.of("auto_retry_start")] == [1, 2]
    assert recorder.of("auto_retry_end") == [
        {
            "type": "auto_retry_end",
            "success": False,
            "attempt": 2,
            "finalError": oc_error(503, "Service Unavailable", "server_error", None),
        }
    ]
    assert [e["willRetry"] for e in recorder.of("agent_end")] == [True, True, False]
    assert result.session.get_messages()[-1]["stopReason"] == "error"
    await result.runtime.shutdown()


async def test_a_wrong_typed_max_retries_in_settings_json_keeps_the_default_with_a_warning(
    server: FakeLLMServer, project: Path, tmp_path: Path
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"retry": {"maxRetries": "5", "baseDelayMs": 1, "maxAgentDelayMs": 1}}))
    server.default = ScriptedResponse(http_error=HTTPErrorSpec(503, "Service Unavailable"))
    result = await make_session(server, project, settings_manager=SettingsManager(path, None))
    recorder = Recorder(result.session)
    await result.session.prompt("hello")
    assert len(server.requests) == 4  # the first attempt and the default 3 retries
    assert [e["maxAttempts"] for e in recorder.of("auto_retry_start")] == [3, 3, 3]
    assert f'{path}: retry.maxRetries: expected a non-negative integer, got "5"; using the default 3' in (
        result.diagnostics
    )
    await result.runtime.shutdown()


async def test_quota_errors_are_never_retried(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(429, QUOTA, type="insufficient_quota")))
    result = await make_session(server, project)
    recorder = Recorder(result.session)
    await result.session.prompt("hello")
    assert len(server.requests) == 1
    assert recorder.of("auto_retry_start") == [] and recorder.of("agent_end")[0]["willRetry"] is False
    assert result.session.get_last_assistant_text() == ""
    assert result.session.get_messages()[-1]["errorMessage"] == oc_error(
        429, QUOTA, "insufficient_quota", "insufficient_quota"
    )
    await result.runtime.shutdown()


async def test_auto_retry_can_be_switched_off(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(429, RATE_LIMIT)))
    result = await make_session(server, project)
    result.session.set_auto_retry(False)
    assert result.session.settings.get("retry.enabled") is False
    await result.session.prompt("hello")
    assert len(server.requests) == 1
    await result.runtime.shutdown()


async def test_abort_cancels_the_retry_wait(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(429, RATE_LIMIT)))
    result = await make_session(server, project, settings={"retry": {"baseDelayMs": 10_000, "maxAgentDelayMs": 10_000}})
    session = result.session
    recorder = Recorder(session)
    await session.start_prompt("hello")
    await wait_for(lambda: bool(recorder.of("auto_retry_start")))
    await session.abort()
    assert recorder.trace()[-3:] == ["auto_retry_start", "auto_retry_end", "agent_settled:aborted"]
    assert recorder.of("auto_retry_end") == [
        {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": "Retry cancelled"}
    ]
    assert len(server.requests) == 1 and session.is_idle
    await result.runtime.shutdown()


async def test_abort_retry_alone_settles_without_abort(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(500, "internal error")))
    result = await make_session(server, project, settings={"retry": {"baseDelayMs": 10_000, "maxAgentDelayMs": 10_000}})
    session = result.session
    recorder = Recorder(session)
    task = asyncio.ensure_future(session.prompt("hello"))
    await wait_for(lambda: bool(recorder.of("auto_retry_start")))
    session.abort_retry()
    await task
    assert recorder.of("agent_settled") == [{"type": "agent_settled", "aborted": False}]
    assert recorder.of("auto_retry_end")[0]["finalError"] == "Retry cancelled"
    await result.runtime.shutdown()


async def test_overflow_compacts_retries_once_then_reports_the_exact_failure(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo earlier work"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("earlier answer " * 30)]),
        ScriptedResponse(http_error=HTTPErrorSpec(400, OVERFLOW, type="context_length_exceeded")),
        ScriptedResponse(steps=[TextStep("## Goal\nSummary of the earlier work")]),
        ScriptedResponse(steps=[TextStep("## Original Request\nThe second task")]),
        ScriptedResponse(http_error=HTTPErrorSpec(400, OVERFLOW, type="context_length_exceeded")),
    )
    result = await make_session(server, project, settings={"compaction": {"keepRecentTokens": 1}})
    session = result.session
    await session.prompt("first task")
    recorder = Recorder(session)

    await session.prompt("second task")

    assert recorder.trace()[-14:] == [
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "compaction_start:overflow",
        "compaction_end:overflow",
        "agent_start",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "compaction_end:overflow",
        "agent_settled",
    ]
    first_end, second_end = recorder.of("compaction_end")
    assert first_end["willRetry"] is True and first_end["aborted"] is False and first_end["result"]["summary"]
    assert second_end == {
        "type": "compaction_end",
        "reason": "overflow",
        "aborted": False,
        "willRetry": False,
        "errorMessage": OVERFLOW_RETRY_FAILED,
    }
    assert recorder.of("auto_retry_start") == []
    # As in Pi, the prompt that overflowed is summarised as the prefix of a split turn (a second
    # summary request, after the history's; neither declares tools), and the retry sends only
    # the summary: not the failed attempt, nor the prompt verbatim again.
    history, prefix = (request_texts(server.requests[i]) for i in (3, 4))
    assert "first task" in history[-1] and "second task" not in history[-1]
    assert "second task" in prefix[-1]
    assert all(not server.requests[i].json.get("tools") for i in (3, 4))
    retried = request_texts(server.requests[5])
    assert len(retried) == 2 and retried[1].startswith("user:The conversation before this point was condensed")
    assert "The second task" in retried[1] and "**Turn Context (split turn):**" in retried[1]
    assert first_end["result"]["firstKeptEntryId"] == _failed_attempt_id(session)
    assert session.get_context_usage() == {"tokens": None, "contextWindow": 128_000, "percent": None}
    assert session.get_session_stats()["contextUsage"]["tokens"] is None
    await result.runtime.shutdown()


def _failed_attempt_id(session: Any) -> str:
    """The first overflowed response of the second prompt (the one the recovery hid)."""
    entries = session.session_manager.get_entries()
    edits = [e for e in entries if e["type"] == "context_edit"]
    return str(edits[0]["targetId"])


async def test_a_retry_ending_in_a_non_retryable_error_reports_that_error(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(429, RATE_LIMIT)),
        ScriptedResponse(http_error=HTTPErrorSpec(429, QUOTA, type="insufficient_quota")),
    )
    result = await make_session(server, project)
    recorder = Recorder(result.session)
    await result.session.prompt("hello")
    assert len(server.requests) == 2
    assert recorder.of("auto_retry_end") == [
        {
            "type": "auto_retry_end",
            "success": False,
            "attempt": 1,
            "finalError": oc_error(429, QUOTA, "insufficient_quota", "insufficient_quota"),
        }
    ]
    assert recorder.trace()[-2:] == ["auto_retry_end", "agent_settled"]
    await result.runtime.shutdown()
