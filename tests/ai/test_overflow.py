"""Context-overflow detection."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from pi_harness.ai.overflow import (
    get_overflow_patterns,
    is_context_overflow,
    register_overflow_pattern,
    unregister_overflow_pattern,
)
from pi_harness.ai.types import AssistantMessage, StopReason, empty_usage


def message(
    error: str | None = None,
    stop: StopReason = "error",
    *,
    provider: str = "openai",
    input: int = 0,
    output: int = 0,
    cache_read: int = 0,
) -> AssistantMessage:
    usage = empty_usage()
    usage["input"], usage["output"], usage["cacheRead"] = input, output, cache_read
    msg: AssistantMessage = {
        "role": "assistant",
        "content": [],
        "api": "openai-completions",
        "provider": provider,
        "model": "m",
        "usage": usage,
        "stopReason": stop,
        "timestamp": 0,
    }
    if error is not None:
        msg["errorMessage"] = error
    return msg


# One realistic message per pattern of the table.
OVERFLOW_MESSAGES = [
    "400 prompt is too long: 213462 tokens > 200000 maximum",  # Anthropic
    "Input is too long for requested model.",  # Amazon Bedrock
    "400 Your input exceeds the context window of this model. Please adjust your input and try again.",  # OpenAI
    "400 The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",  # Gemini
    "400 This model's maximum prompt length is 131072 but the request contains 140000 tokens.",  # xAI
    "400 Please reduce the length of the messages or completion.",  # Groq
    "400 This endpoint's maximum context length is 128000 tokens. However, you requested about 150000 tokens",  # OpenRouter
    "400 prompt token count of 140000 exceeds the limit of 128000",  # GitHub Copilot
    "400 the request exceeds the available context size, try increasing it",  # llama.cpp
    "400 The number of tokens to keep from the initial prompt is greater than the context length",  # LM Studio
    "400 invalid params, context window exceeds limit (2013)",  # MiniMax
    "400 Exceeded model token limit: 262144 (requested: 300000)",  # Kimi For Coding
    "400 Prompt contains 140000 tokens, too large for model with 131072 maximum context length",  # Mistral
    "400 model_context_window_exceeded",  # z.ai
    "400 context_length_exceeded",  # generic
    "400 Context length exceeded for this request",  # generic, spaces
    "400 Too many tokens in the request",  # generic
    "400 Token limit exceeded",  # generic
    "413 Request Entity Too Large",  # Copilot's 413 with a body
]


@pytest.mark.parametrize("text", OVERFLOW_MESSAGES)
def test_every_known_provider_message_is_an_overflow(text: str) -> None:
    assert is_context_overflow(message(text))
    assert is_context_overflow(message(text.upper()))  # case-insensitive


@pytest.mark.parametrize("text", OVERFLOW_MESSAGES)
def test_pattern_match_needs_an_error_stop(text: str) -> None:
    assert not is_context_overflow(message(text, "aborted"))
    assert not is_context_overflow(message(text, "stop"))


@pytest.mark.parametrize(
    "text",
    [
        "429 Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000.",
        "429 Too many tokens: rate limit exceeded for this organization",
        "429 Too Many Requests: too many tokens in the last minute",
        "rate_limit_error: This request would exceed the token limit exceeded quota of 40,000 tokens per minute",
        "Too many tokens per minute (TPM), please slow down",
        "Error 429: token limit exceeded",
    ],
)
def test_rate_limit_texts_that_mention_tokens_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(message(text))


@pytest.mark.parametrize(
    "text",
    [
        "500 Internal server error",
        "401 Invalid API key",
        "Connection error: peer closed connection",
        "400 maximum context length is unknown",  # the pattern wants a number of tokens
        "",
    ],
)
def test_unrelated_errors_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(message(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("400 status code (no body)", True),
        ("413 status code (no body)", True),
        ("400 (no body)", True),
        ("413(no body)", True),
        ("429 status code (no body)", False),
        ("Error: 400 status code (no body)", False),  # anchored at the start
    ],
)
def test_cerebras_bodiless_400_and_413(text: str, expected: bool) -> None:
    assert is_context_overflow(message(text)) is expected


def test_bare_413_from_github_copilot_is_overflow() -> None:
    assert is_context_overflow(message("413 Payload too big", provider="github-copilot"))
    assert not is_context_overflow(message("413 Payload too big", provider="openai"))


def test_silent_overflow_rule_3_stop_with_input_above_the_window() -> None:
    assert is_context_overflow(message(stop="stop", input=90_000, cache_read=20_001), 110_000)
    assert not is_context_overflow(message(stop="stop", input=90_000, cache_read=20_000), 110_000)
    # needs the window
    assert not is_context_overflow(message(stop="stop", input=10**9))
    # only for "stop"
    assert not is_context_overflow(message(stop="toolUse", input=200_000), 100_000)


def test_silent_overflow_rule_4_length_with_no_output_near_the_window() -> None:
    assert is_context_overflow(message(stop="length", input=99_000, output=0), 100_000)
    assert is_context_overflow(message(stop="length", input=50_000, cache_read=49_000), 100_000)
    assert not is_context_overflow(message(stop="length", input=98_999, output=0), 100_000)
    assert not is_context_overflow(message(stop="length", input=99_500, output=1), 100_000)


def test_normal_responses_are_not_overflow() -> None:
    assert not is_context_overflow(message(stop="stop", input=1000, output=50), 100_000)
    assert not is_context_overflow(message(stop="toolUse"), 100_000)


@pytest.fixture
def custom_pattern() -> Iterator[str]:
    pattern = r"ctx budget of \d+ blown"
    register_overflow_pattern(pattern)
    yield pattern
    unregister_overflow_pattern(pattern)


def test_registered_pattern_is_recognised(custom_pattern: str) -> None:
    assert custom_pattern in get_overflow_patterns()
    assert is_context_overflow(message("400 CTX budget of 8192 blown"))
    register_overflow_pattern(custom_pattern)  # registering twice keeps one copy
    assert get_overflow_patterns().count(custom_pattern) == 1


def test_unregistered_pattern_is_forgotten() -> None:
    register_overflow_pattern("my server is full")
    assert is_context_overflow(message("my server is full"))
    unregister_overflow_pattern("my server is full")
    assert not is_context_overflow(message("my server is full"))
    assert "my server is full" not in get_overflow_patterns()


def test_invalid_pattern_is_rejected_at_registration() -> None:
    with pytest.raises(re.error):
        register_overflow_pattern("(unclosed")
    assert "(unclosed" not in get_overflow_patterns()


def test_get_overflow_patterns_returns_a_copy() -> None:
    patterns: Any = get_overflow_patterns()
    patterns.append("x")
    assert "x" not in get_overflow_patterns()
    assert "prompt is too long" in patterns
