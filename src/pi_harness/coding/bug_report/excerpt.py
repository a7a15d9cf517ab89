"""The last messages of a session as short, scrubbed text blocks for a bug report.

Every message is scrubbed *before* it is shortened: cutting first could split a credential so
that its remaining half no longer matches and would be left in the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import orjson

DEFAULT_EXCERPT_MESSAGES = 20
MAX_MESSAGE_CHARS = 2000

Scrub = Callable[[str], str]


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def _json(value: object) -> str:
    return orjson.dumps(value, default=str).decode("utf-8")


def _content_text(content: object) -> str:
    """Text of a content list (or string); images and thinking are named, not included."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text") or ""))
        elif kind == "image":
            parts.append(f"[image {block['mimeType']}]" if block.get("mimeType") else "[image]")
        elif kind == "thinking":
            parts.append("[thinking left out]")
        elif kind == "toolCall":
            parts.append(f"[tool call {block.get('name')}] {_json(block.get('arguments') or {})}")
    return "\n".join(part for part in parts if part)


def _heading(message: Mapping[str, object]) -> str:
    role = str(message.get("role") or "unknown")
    if role == "assistant":
        model = "/".join(str(message[key]) for key in ("provider", "model") if message.get(key))
        stop = message.get("stopReason")
        return f"assistant ({model}, {stop})" if model else f"assistant ({stop})"
    if role == "toolResult":
        return f"tool result {message.get('toolName')}" + (" (error)" if message.get("isError") else "")
    if role == "custom":
        return f"custom message {message.get('customType')}"
    return role


def message_text(message: Mapping[str, object]) -> str:
    """What one session message says, in plain text."""
    role = message.get("role")
    if role == "bashExecution":
        text = f"$ {message.get('command')}\n{message.get('output') or ''}".rstrip()
        code = message.get("exitCode")
        return f"{text}\n(exit code {code})" if isinstance(code, int) and code != 0 else text
    if role in ("branchSummary", "compactionSummary"):
        return str(message.get("summary") or "")
    text = _content_text(message.get("content"))
    error = message.get("errorMessage")
    if role == "assistant" and error:
        text = f"{text}\n[error] {error}".strip()
    return text


def transcript_excerpt(
    messages: Sequence[Mapping[str, object]],
    scrub: Scrub,
    *,
    count: int = DEFAULT_EXCERPT_MESSAGES,
    max_chars: int = MAX_MESSAGE_CHARS,
) -> list[str]:
    """Markdown lines for the last ``count`` messages, each scrubbed, then shortened."""
    chosen = list(messages)[-count:] if count > 0 else []
    first = len(messages) - len(chosen) + 1
    lines: list[str] = []
    for number, message in enumerate(chosen, start=first):
        body = clip(scrub(message_text(message)), max_chars)
        lines += [f"#### {number}. {scrub(_heading(message))}", "", "~~~text", body.replace("~~~", "~ ~ ~"), "~~~", ""]
    return lines


def failed_responses(messages: Sequence[Mapping[str, object]], scrub: Scrub, *, count: int = 5) -> list[str]:
    """One line per recent assistant turn that ended in an error: model, stop reason, error.

    This is diagnostics, not conversation: it goes into every report, transcript or not.
    """
    failed = [m for m in messages if m.get("role") == "assistant" and m.get("stopReason") == "error"][-count:]
    lines: list[str] = []
    for message in failed:
        model = "/".join(str(message[key]) for key in ("provider", "model") if message.get(key)) or "unknown model"
        error = clip(scrub(str(message.get("errorMessage") or "no error message")), 500)
        lines.append(f"- {scrub(model)}: {' '.join(error.split())}")
    return lines
