"""The request body of Anthropic's Messages API (``POST /v1/messages``), as this client writes it.

Only the fields Pi sends are declared. Keys are written in the order the converters build them,
which is the order on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.json_values import JsonObject

AnthropicEffort: TypeAlias = Literal["low", "medium", "high", "xhigh", "max"]


class CacheControl(TypedDict):
    type: Literal["ephemeral"]
    # The one-hour TTL; without it the cache entry lives five minutes.
    ttl: NotRequired[Literal["1h"]]


class TextBlock(TypedDict):
    type: Literal["text"]
    text: str
    cache_control: NotRequired[CacheControl]


class Base64ImageSource(TypedDict):
    type: Literal["base64"]
    media_type: str
    data: str


class ImageBlock(TypedDict):
    type: Literal["image"]
    source: Base64ImageSource
    cache_control: NotRequired[CacheControl]


class ThinkingBlock(TypedDict):
    type: Literal["thinking"]
    thinking: str
    signature: str


class RedactedThinkingBlock(TypedDict):
    type: Literal["redacted_thinking"]
    # Absent when the stored block had no payload: it is replayed anyway, as Pi 1.4.0 does.
    data: NotRequired[str]


class ToolUseBlock(TypedDict):
    type: Literal["tool_use"]
    id: str
    name: str
    input: JsonObject


class ToolResultBlock(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    # Plain text, or blocks when the result carries images.
    content: str | list[TextBlock | ImageBlock]
    is_error: bool
    cache_control: NotRequired[CacheControl]


UserBlock: TypeAlias = TextBlock | ImageBlock | ToolResultBlock
AssistantBlock: TypeAlias = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock


class UserMessageParam(TypedDict):
    role: Literal["user"]
    content: str | list[UserBlock]


class AssistantMessageParam(TypedDict):
    role: Literal["assistant"]
    content: list[AssistantBlock]


MessageParam: TypeAlias = UserMessageParam | AssistantMessageParam


class ToolParam(TypedDict):
    name: str
    description: str
    eager_input_streaming: NotRequired[bool]
    strict: NotRequired[bool]
    input_schema: JsonObject
    cache_control: NotRequired[CacheControl]


class AdaptiveThinking(TypedDict):
    type: Literal["adaptive"]
    display: NotRequired[Literal["summarized", "omitted"]]


class BudgetThinking(TypedDict):
    type: Literal["enabled"]
    budget_tokens: int
    display: NotRequired[Literal["summarized", "omitted"]]


class OutputConfig(TypedDict):
    effort: AnthropicEffort | str


class RequestMetadata(TypedDict):
    user_id: str


class MessagesRequest(TypedDict):
    model: str
    messages: list[MessageParam]
    max_tokens: int
    stream: Literal[True]
    system: NotRequired[list[TextBlock]]
    temperature: NotRequired[float]
    tools: NotRequired[list[ToolParam]]
    thinking: NotRequired[AdaptiveThinking | BudgetThinking]
    output_config: NotRequired[OutputConfig]
    metadata: NotRequired[RequestMetadata]
    # {"type": "auto" | "any" | "none"} or a full object such as {"type": "tool", "name": "read"}.
    tool_choice: NotRequired[Mapping[str, object]]
