"""The streaming event protocol of ``AssistantMessageEventStream``.

``start`` comes first; each content block is opened (``*_start``), grown (``*_delta``) and closed
(``*_end``); exactly one terminal event (``done`` or ``error``) ends the stream. Failures are
``error`` events, never exceptions.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, TypedDict

from pi_harness.ai.types import AssistantMessage, ToolCall


class StartEvent(TypedDict):
    type: Literal["start"]
    partial: AssistantMessage


class BlockStartEvent(TypedDict):
    type: Literal["text_start", "thinking_start", "toolcall_start"]
    contentIndex: int
    partial: AssistantMessage


class BlockDeltaEvent(TypedDict):
    type: Literal["text_delta", "thinking_delta", "toolcall_delta"]
    contentIndex: int
    delta: str
    partial: AssistantMessage


class TextEndEvent(TypedDict):
    type: Literal["text_end", "thinking_end"]
    contentIndex: int
    content: str
    partial: AssistantMessage


class ToolCallEndEvent(TypedDict):
    type: Literal["toolcall_end"]
    contentIndex: int
    toolCall: ToolCall
    partial: AssistantMessage


# The stop reasons of a successful response.
DoneReason: TypeAlias = Literal["stop", "length", "toolUse", "deferred"]


class DoneEvent(TypedDict):
    type: Literal["done"]
    reason: DoneReason
    message: AssistantMessage


class ErrorEvent(TypedDict):
    type: Literal["error"]
    reason: Literal["error", "aborted"]
    error: AssistantMessage


AssistantMessageEvent: TypeAlias = (
    StartEvent | BlockStartEvent | BlockDeltaEvent | TextEndEvent | ToolCallEndEvent | DoneEvent | ErrorEvent
)

TERMINAL_EVENT_TYPES = frozenset({"done", "error"})
