"""Context-overflow detection: whether a failed response means the prompt no longer fits.

An overflow is never retried; it is handed to compaction. The pattern list is data: extensions
and models.json providers can add patterns for servers whose message matches none of these.
"""

from __future__ import annotations

import re

from pi_harness.ai.types import AssistantMessage

_DEFAULT_PATTERNS: tuple[str, ...] = (
    r"prompt is too long",  # Anthropic
    r"input is too long for requested model",  # Amazon Bedrock
    r"exceeds the context window",  # OpenAI
    r"input token count.*exceeds the maximum",  # Google Gemini
    r"maximum prompt length is \d+",  # xAI
    r"reduce the length of the messages",  # Groq
    r"maximum context length is \d+ tokens",  # OpenRouter
    r"exceeds the limit of \d+",  # GitHub Copilot
    r"exceeds the available context size",  # llama.cpp server
    r"greater than the context length",  # LM Studio
    r"context window exceeds limit",  # MiniMax
    r"exceeded model token limit",  # Kimi For Coding
    r"too large for model with \d+ maximum context length",  # Mistral
    r"model_context_window_exceeded",  # z.ai
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    r"request entity too large",  # GitHub Copilot 413 for an oversized body
    r"\b413\b.*copilot|copilot.*\b413\b",
)

# Rate limits also talk about tokens; they are not overflows.
_RATE_LIMIT = re.compile(r"rate.?limit|too many requests|\b429\b|tokens per min|\btpm\b", re.IGNORECASE)
_NO_BODY = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
# GitHub Copilot answers an oversized request body with a bare HTTP 413.
_COPILOT_413 = re.compile(r"^413\b")

_patterns: list[str] = list(_DEFAULT_PATTERNS)
_compiled: re.Pattern[str] | None = None


def get_overflow_patterns() -> list[str]:
    return list(_patterns)


def register_overflow_pattern(pattern: str) -> None:
    """Add a case-insensitive regex recognised as a context-overflow error text."""
    global _compiled
    re.compile(pattern)  # fail early on a bad pattern
    if pattern not in _patterns:
        _patterns.append(pattern)
        _compiled = None


def unregister_overflow_pattern(pattern: str) -> None:
    """Remove a pattern added with ``register_overflow_pattern`` (built-in patterns included)."""
    global _compiled
    if pattern in _patterns:
        _patterns.remove(pattern)
        _compiled = None


def _matcher() -> re.Pattern[str]:
    global _compiled
    if _compiled is None:
        _compiled = re.compile("|".join(f"(?:{p})" for p in _patterns), re.IGNORECASE)
    return _compiled


def is_overflow_error_text(text: str) -> bool:
    if _NO_BODY.search(text):
        return True
    return bool(_matcher().search(text)) and not _RATE_LIMIT.search(text)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    stop = message.get("stopReason")
    error = message.get("errorMessage") or ""
    if stop == "error" and error and is_overflow_error_text(error):
        return True
    if error and _NO_BODY.search(error):
        return True
    if stop == "error" and message.get("provider") == "github-copilot" and _COPILOT_413.search(error):
        return True
    if context_window:
        usage = message.get("usage")
        if usage:
            used = usage.get("input", 0) + usage.get("cacheRead", 0)
            if stop == "stop" and used > context_window:
                return True
            if stop == "length" and usage.get("output", 0) == 0 and used >= 0.99 * context_window:
                return True
    return False
