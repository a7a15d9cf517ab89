"""Rendering a conversation as plain text for a summary request.

The transcript is labelled text rather than chat messages so the model summarises it instead of
continuing it. Thinking is left out (1.4.0) and long tool results are cut to 2,000 characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.types import Message
from pi_harness.coding.messages import convert_to_llm

TOOL_RESULT_MAX_CHARS = 2000


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text") or "" for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


def _tool_call(block: dict[str, Any]) -> str:
    arguments = block.get("arguments")
    pairs = ", ".join(f"{key}={dumps_str(value)}" for key, value in (arguments or {}).items())
    return f"{block.get('name')}({pairs})"


def truncate_tool_result(text: str, limit: int = TOOL_RESULT_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_llm_messages(messages: Iterable[Message]) -> str:
    parts: list[str] = []
    for item in messages:
        message = cast(dict[str, Any], item)
        role = message["role"]
        if role == "user":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
            text = "\n".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
            if text:
                parts.append(f"[Assistant]: {text}")
            calls = [_tool_call(b) for b in blocks if b.get("type") == "toolCall"]
            if calls:
                parts.append(f"[Assistant tool calls]: {'; '.join(calls)}")
        elif role == "toolResult":
            text = "".join(_texts(message.get("content")))
            if text:
                parts.append(f"[Tool result]: {truncate_tool_result(text)}")
    return "\n\n".join(parts)


def serialize_conversation(messages: Iterable[AgentMessage]) -> str:
    """Agent messages (bash runs, custom messages and summaries included) as labelled text."""
    return serialize_llm_messages(convert_to_llm(messages))
