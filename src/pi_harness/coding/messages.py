"""Turning the coding agent's transcript into LLM messages.

``convert_to_llm`` is the ``Agent``'s conversion hook: user/assistant/toolResult pass through,
bash executions, custom messages and summaries become user messages, and system messages are
left to the request projection (they become the system prompt and tool set, not messages).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from pi_harness.agent.types import (
    AgentMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from pi_harness.ai.types import ImageContent, Message, TextContent, UserMessage

COMPACTION_SUMMARY_PREFIX = (
    "The conversation before this point was condensed into the following summary of what happened so far:"
)
BRANCH_SUMMARY_PREFIX = "The following summarises a branch of this conversation that was explored and then left behind:"
IMAGES_DISABLED_TEXT = "Image reading is disabled."


def bash_execution_to_text(message: BashExecutionMessage) -> str:
    text = f"Ran `{message['command']}`\n"
    output = message.get("output") or ""
    text += f"```\n{output}\n```" if output else "(no output)"
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    else:
        code = message.get("exitCode")
        if isinstance(code, int) and code != 0:
            text += f"\n\nCommand exited with code {code}"
    path = message.get("fullOutputPath")
    if message.get("truncated") and path:
        text += f"\n\n[Output truncated. Full output: {path}]"
    return text


def compaction_summary_text(summary: str) -> str:
    return f"{COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n{summary}\n</summary>"


def branch_summary_text(summary: str) -> str:
    return f"{BRANCH_SUMMARY_PREFIX}\n\n<summary>\n{summary}</summary>"


def _user(text_or_content: str | list[TextContent | ImageContent], timestamp: int) -> UserMessage:
    content = [{"type": "text", "text": text_or_content}] if isinstance(text_or_content, str) else text_or_content
    return {"role": "user", "content": cast(list[TextContent | ImageContent], content), "timestamp": timestamp}


def to_llm_message(message: AgentMessage) -> Message | None:
    """One agent message as an LLM message, or ``None`` when it is not sent."""
    role = message.get("role")
    if role in ("user", "assistant", "toolResult"):
        return cast(Message, message)
    timestamp = int(message.get("timestamp") or 0)
    if role == "bashExecution":
        bash = cast(BashExecutionMessage, message)
        if bash.get("excludeFromContext"):
            return None
        return _user(bash_execution_to_text(bash), timestamp)
    if role == "custom":
        return _user(cast(CustomMessage, message)["content"], timestamp)
    if role == "branchSummary":
        return _user(branch_summary_text(cast(BranchSummaryMessage, message)["summary"]), timestamp)
    if role == "compactionSummary":
        return _user(compaction_summary_text(cast(CompactionSummaryMessage, message)["summary"]), timestamp)
    return None


def convert_to_llm(messages: Iterable[AgentMessage], *, block_images: bool = False) -> list[Message]:
    out: list[Message] = []
    for message in messages:
        converted = to_llm_message(message)
        if converted is None:
            continue
        if block_images:
            converted = _without_images(converted)
        out.append(converted)
    return out


def _without_images(message: Message) -> Message:
    if message["role"] not in ("user", "toolResult"):
        return message
    content = message.get("content")
    if not isinstance(content, list) or not any(b.get("type") == "image" for b in content):
        return message
    blocks: list[object] = []
    for block in content:
        if block.get("type") == "image":
            replacement: TextContent = {"type": "text", "text": IMAGES_DISABLED_TEXT}
            if blocks and blocks[-1] == replacement:
                continue  # consecutive duplicates collapse
            blocks.append(replacement)
        else:
            blocks.append(block)
    return cast(Message, {**message, "content": blocks})
