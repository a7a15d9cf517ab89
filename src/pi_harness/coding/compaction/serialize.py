"""Rendering a conversation as plain text for a summary request.

The transcript is labelled text rather than chat messages so the model summarises it instead of
continuing it. Thinking is left out (1.4.0) and long tool results are cut to 2,000 characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.types import Message
from pi_harness.coding.message_content import content_blocks, text_parts
from pi_harness.coding.messages import convert_to_llm

TOOL_RESULT_MAX_CHARS = 2000


def _tool_call(block: Mapping[str, object]) -> str:
    arguments = block.get("arguments")
    items = arguments.items() if isinstance(arguments, Mapping) else ()
    pairs = ", ".join(f"{key}={dumps_str(value)}" for key, value in items)
    return f"{block.get('name')}({pairs})"


def truncate_tool_result(text: str, limit: int = TOOL_RESULT_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_llm_messages(messages: Iterable[Message]) -> str:
    parts: list[str] = []
    for message in messages:
        role = message["role"]
        if role == "user":
            text = "".join(text_parts(message.get("content")))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = content_blocks(message.get("content"))
            text = "\n".join(text_parts(blocks))
            if text:
                parts.append(f"[Assistant]: {text}")
            calls = [_tool_call(b) for b in blocks if b.get("type") == "toolCall"]
            if calls:
                parts.append(f"[Assistant tool calls]: {'; '.join(calls)}")
        elif role == "toolResult":
            text = "".join(text_parts(message.get("content")))
            if text:
                parts.append(f"[Tool result]: {truncate_tool_result(text)}")
    return "\n\n".join(parts)


def serialize_conversation(messages: Iterable[AgentMessage]) -> str:
    """Agent messages (bash runs, custom messages and summaries included) as labelled text."""
    return serialize_llm_messages(convert_to_llm(messages))
