"""Retry classification, backoff and server-requested delays."""

from __future__ import annotations

import email.utils
import time

import pytest

from pi_harness.ai.retry import (
    agent_retry_delay_ms,
    is_quota_error_message,
    is_retryable_error,
    is_retryable_error_message,
    is_retryable_status,
    parse_retry_delay_ms,
    provider_backoff_ms,
)
from pi_harness.ai.types import AssistantMessage, StopReason, empty_usage


@pytest.mark.parametrize(
    "text",
    [
        "529 Overloaded",
        "overloaded_error: Overloaded",
        "429 Rate limit reached for requests",
        "rate_limit_error: too fast",
        "Too Many Requests",
        "429 status code (no body)",
        "500 Internal Server Error",
        "HTTP 502 from upstream",
        "503 The service is temporarily unavailable",
        "504 status code (no body)",
        "520 unknown error",
        "Error 524: a timeout occurred",
        "Service Unavailable",
        "server_error: something broke",
        "internal error encountered",
        "Connection error: peer closed connection without sending complete message body (terminated)",
        "connection refused",
        "other side closed",
        "fetch failed",
        "upstream connect error or disconnect/reset before headers",
        "reset before headers. reset reason: overflow",
        "terminated",
        "Server requested retry delay too long",
        "502 Bad Gateway",
        "Gateway Timeout",
    ],
)
def test_transient_errors_are_retryable(text: str) -> None:
    assert is_retryable_error_message(text)


@pytest.mark.parametrize(
    "text",
    [
        "400 Invalid request: messages must not be empty",
        "401 invalid x-api-key",
        "404 model not found",
        "Request was aborted",
        "the request used 5000 tokens",  # 500 only on word boundaries
        "prompt of 4290 tokens",
        "limit 15030 reached",
        "id req_5024abc",
        "",
        None,
    ],
)
def test_other_errors_are_not_retryable(text: str | None) -> None:
    assert not is_retryable_error_message(text)


@pytest.mark.parametrize(
    "text",
    [
        "429 You exceeded your current quota, please check your plan and billing details. (insufficient_quota)",
        "429 insufficient_quota",
        "429 Quota exceeded for quota metric 'Generate Content API requests per minute'",
        "429 quota_exceeded",
        "402 Billing hard limit has been reached",
        "429 Monthly usage limit reached",
        "429 You have hit your ChatGPT usage limit (team plan). Try again in 3 hours",
        "503 workspace usage limit reached, overloaded",
    ],
)
def test_quota_and_billing_errors_are_never_retryable(text: str) -> None:
    assert not is_retryable_error_message(text)
    assert is_quota_error_message(text)


def _assistant(stop: StopReason, error: str | None, **usage: int) -> AssistantMessage:
    u = empty_usage()
    u.update(usage)  # type: ignore[typeddict-item]
    msg: AssistantMessage = {
        "role": "assistant",
        "content": [],
        "api": "x",
        "provider": "p",
        "model": "m",
        "usage": u,
        "stopReason": stop,
        "timestamp": 0,
    }
    if error is not None:
        msg["errorMessage"] = error
    return msg


def test_agent_retry_decision_combines_stop_reason_overflow_and_text() -> None:
    assert is_retryable_error(_assistant("error", "503 overloaded"))
    assert not is_retryable_error(_assistant("aborted", "503 overloaded"))
    assert not is_retryable_error(_assistant("stop", None))
    assert not is_retryable_error(_assistant("error", "401 bad key"))
    # an overflow goes to compaction, even when the text also looks transient
    assert not is_retryable_error(_assistant("error", "500 prompt is too long: 300000 tokens"))
    assert not is_retryable_error(_assistant("error", "413 status code (no body)"))


def test_agent_backoff_doubles_from_the_base_and_is_capped() -> None:
    assert [agent_retry_delay_ms(n, 2000, 60_000) for n in (1, 2, 3, 4)] == [2000, 4000, 8000, 16000]
    assert agent_retry_delay_ms(10, 2000, 60_000) == 60_000
    assert agent_retry_delay_ms(3, 2000, 5000) == 5000
    assert agent_retry_delay_ms(6, 1000, 0) == 32_000  # 0 = no cap
    # deterministic: no jitter
    assert {agent_retry_delay_ms(2, 2000, 60_000) for _ in range(20)} == {4000}


def test_provider_backoff_grows_to_eight_seconds_with_jitter() -> None:
    for attempt, base in ((0, 500), (1, 1000), (2, 2000), (3, 4000), (4, 8000), (9, 8000)):
        for _ in range(20):
            delay = provider_backoff_ms(attempt)
            assert base * 0.75 <= delay <= base * 1.25, (attempt, delay)


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (408, {}, True),
        (409, {}, True),
        (429, {}, True),
        (500, {}, True),
        (503, {}, True),
        (529, {}, True),
        (400, {}, False),
        (401, {}, False),
        (404, {}, False),
        (400, {"x-should-retry": "true"}, True),
        (503, {"x-should-retry": "false"}, False),
        (429, {"x-should-retry": " FALSE "}, False),
        (503, {"x-should-retry": "maybe"}, True),
    ],
)
def test_retryable_status(status: int, headers: dict[str, str], expected: bool) -> None:
    assert is_retryable_status(status, headers) is expected


def test_retry_after_ms_header() -> None:
    assert parse_retry_delay_ms({"retry-after-ms": "1500"}) == 1500
    assert parse_retry_delay_ms({"Retry-After-Ms": "250.7"}) == 250
    # retry-after-ms wins over retry-after
    assert parse_retry_delay_ms({"retry-after-ms": "100", "retry-after": "30"}) == 100


def test_retry_after_seconds_header() -> None:
    assert parse_retry_delay_ms({"retry-after": "3"}) == 3000
    assert parse_retry_delay_ms({"Retry-After": "0.5"}) == 500
    assert parse_retry_delay_ms({"retry-after": "0"}) == 0


def test_retry_after_http_date_header() -> None:
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    delay = parse_retry_delay_ms({"retry-after": future})
    assert delay is not None
    assert 25_000 <= delay <= 31_000
    past = email.utils.formatdate(time.time() - 300, usegmt=True)
    assert parse_retry_delay_ms({"retry-after": past}) == 0


def test_invalid_retry_after_falls_through() -> None:
    assert parse_retry_delay_ms({"retry-after": "soon"}) is None
    assert parse_retry_delay_ms({"retry-after": "nan"}) is None
    assert parse_retry_delay_ms({"retry-after": "soon"}, "Please retry in 2s") == 2000


def test_x_ratelimit_reset_headers() -> None:
    assert parse_retry_delay_ms({"x-ratelimit-reset-after": "7"}) == 7000
    assert parse_retry_delay_ms({"x-ratelimit-reset": "12"}) == 12_000
    epoch = parse_retry_delay_ms({"x-ratelimit-reset": str(int(time.time()) + 20)})
    assert epoch is not None
    assert 18_000 <= epoch <= 21_000
    assert parse_retry_delay_ms({"x-ratelimit-reset": str(int(time.time()) - 20)}) == 0


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Resource exhausted. Please retry in 3s.", 3000),
        ("please retry in 22.5s", 22_500),
        ("Please retry in 500ms", 500),
        ('{"error": {"details": [{"@type": "RetryInfo", "retryDelay": "12s"}]}}', 12_000),
        ('{"retryDelay":"34.07s"}', 34_070),
        ('{"retryDelay": "900ms"}', 900),
        ("Your quota will reset after 1h2m3s.", 3_723_000),
        ("quota will reset after 39s", 39_000),
        ("nothing to see here", None),
        ("", None),
    ],
)
def test_delays_in_error_bodies(body: str, expected: int | None) -> None:
    assert parse_retry_delay_ms({}, body) == expected


def test_headers_take_precedence_over_the_body() -> None:
    assert parse_retry_delay_ms({"retry-after": "1"}, "Please retry in 9s") == 1000


def test_no_information_gives_none() -> None:
    assert parse_retry_delay_ms(None) is None
    assert parse_retry_delay_ms({"content-type": "application/json"}, None) is None
