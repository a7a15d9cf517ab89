"""The request body of OpenAI Chat Completions (``POST /chat/completions``), as Pi writes it.

Only the fields Pi sends are declared, including the dialects of compatible servers (reasoning
switches, gateway routing, Anthropic-style cache markers). Keys are written in the order the
converters build them, which is the order on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.providers.openai_completions_compat import Routing

# Fields compatible servers stream reasoning in; the one a thinking block came from is its
# signature, and same-model replay writes the reasoning back there.
ReasoningField: TypeAlias = Literal["reasoning_content", "reasoning", "reasoning_text"]


class CacheControl(TypedDict):
    """Anthropic's prompt-cache marker, which gateways in front of Claude accept."""

    type: Literal["ephemeral"]
    ttl: NotRequired[Literal["1h"]]


class TextPart(TypedDict):
    type: Literal["text"]
    text: str
    cache_control: NotRequired[CacheControl]


class ImageUrl(TypedDict):
    url: str  # a ``data:`` URL


class ImagePart(TypedDict):
    type: Literal["image_url"]
    image_url: ImageUrl


class SystemMessageParam(TypedDict):
    # ``developer`` for reasoning models on servers that know the role.
    role: Literal["system", "developer"]
    content: str | list[TextPart]


class UserMessageParam(TypedDict):
    role: Literal["user"]
    content: str | list[TextPart | ImagePart]


class FunctionCallParam(TypedDict):
    name: str
    arguments: str  # JSON text


class ToolCallParam(TypedDict):
    id: str
    type: Literal["function"]
    function: FunctionCallParam


class AssistantMessageParam(TypedDict):
    role: Literal["assistant"]
    content: str | list[TextPart] | None
    reasoning_content: NotRequired[str]
    reasoning: NotRequired[str]
    reasoning_text: NotRequired[str]
    tool_calls: NotRequired[list[ToolCallParam]]
    # OpenRouter's encrypted reasoning items, replayed to the model that wrote them.
    reasoning_details: NotRequired[list[JsonObject]]


class ToolMessageParam(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str
    name: NotRequired[str]


ChatMessage: TypeAlias = SystemMessageParam | UserMessageParam | AssistantMessageParam | ToolMessageParam


class FunctionDefinition(TypedDict):
    name: str
    description: str
    parameters: JsonObject
    strict: NotRequired[bool]


class ToolDefinition(TypedDict):
    type: Literal["function"]
    function: FunctionDefinition
    cache_control: NotRequired[CacheControl]


class StreamOptionsParam(TypedDict):
    include_usage: bool


class ChatTemplateKwargs(TypedDict):
    enable_thinking: bool
    preserve_thinking: NotRequired[bool]


class ThinkingSwitch(TypedDict):
    type: Literal["enabled", "disabled"]
    clear_thinking: NotRequired[bool]  # Z.ai: keep earlier reasoning in the context


class ReasoningSwitch(TypedDict, total=False):
    enabled: bool  # Together
    effort: str  # OpenRouter


class GatewayOptions(TypedDict):
    gateway: Routing


class ChatCompletionsRequest(TypedDict):
    model: str
    messages: list[ChatMessage]
    stream: Literal[True]
    stream_options: NotRequired[StreamOptionsParam]
    store: NotRequired[bool]
    # The output cap, under the name the server knows (``maxTokensField``).
    max_completion_tokens: NotRequired[int]
    max_tokens: NotRequired[int]
    temperature: NotRequired[float]
    tools: NotRequired[list[ToolDefinition]]
    tool_stream: NotRequired[bool]  # z.ai: stream tool-call arguments
    # "auto" | "none" | "required", or {"type": "function", "function": {"name": ...}}.
    tool_choice: NotRequired[str | Mapping[str, object]]
    # Thinking switches of the ``thinkingFormat`` dialects.
    enable_thinking: NotRequired[bool]
    chat_template_kwargs: NotRequired[ChatTemplateKwargs]
    thinking: NotRequired[ThinkingSwitch]
    reasoning: NotRequired[ReasoningSwitch]
    reasoning_effort: NotRequired[str]
    provider: NotRequired[Routing]  # OpenRouter
    providerOptions: NotRequired[GatewayOptions]  # Vercel AI Gateway
    prompt_cache_key: NotRequired[str]
    prompt_cache_retention: NotRequired[Literal["24h"]]
