"""Wire and disk data of the LLM layer, as plain ``TypedDict``s with Pi's camelCase keys.

These dicts are what providers produce, what session files store and what JSON/RPC modes
print, so parsed JSON can be used as is. Optional fields that TypeScript leaves undefined are
*omitted* (``NotRequired``), never written as ``null``.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.json_values import JsonObject

# --- content blocks ---------------------------------------------------------------------------


class TextContent(TypedDict):
    type: Literal["text"]
    text: str
    textSignature: NotRequired[str]


class ThinkingContent(TypedDict):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str]
    redacted: NotRequired[bool]


class ImageContent(TypedDict):
    type: Literal["image"]
    data: str
    mimeType: str


class ToolCall(TypedDict):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: JsonObject
    thoughtSignature: NotRequired[str]
    # Set when the complete arguments text was not a JSON object (``arguments`` is then ``{}``):
    # the problem and the raw text, reported to the model instead of running the tool.
    argumentsError: NotRequired[str]


UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall
ContentBlock: TypeAlias = TextContent | ThinkingContent | ImageContent | ToolCall

# --- usage ------------------------------------------------------------------------------------


class UsageCost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


class Usage(TypedDict):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int
    cost: UsageCost
    cacheWrite1h: NotRequired[int]
    reasoning: NotRequired[int]


StopReason: TypeAlias = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]
ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
CacheRetention: TypeAlias = Literal["none", "short", "long"]

THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

# --- messages ---------------------------------------------------------------------------------


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[UserContent]
    timestamp: int


class DiagnosticError(TypedDict):
    message: str
    name: NotRequired[str]
    code: NotRequired[str | int]


class AssistantMessageDiagnostic(TypedDict):
    """Something a provider worked around while producing the message (Pi's ``diagnostics``)."""

    type: str
    timestamp: int
    error: NotRequired[DiagnosticError]
    details: NotRequired[JsonObject]


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: list[AssistantContent]
    api: str
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    timestamp: int
    errorMessage: NotRequired[str]
    # The provider's own stop value (``finish_reason``, ``stop_reason``, ``finishReason``, status).
    rawStopReason: NotRequired[str]
    # Milliseconds from the start of the response stream to its final message.
    durationMs: NotRequired[int]
    responseId: NotRequired[str]
    thinkingLevel: NotRequired[str]
    diagnostics: NotRequired[list[AssistantMessageDiagnostic]]


class ToolResultMessage(TypedDict):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[UserContent]
    isError: bool
    timestamp: int
    # Tool-specific data for renderers and session files; never sent to a model.
    details: NotRequired[object]
    # How long the tool's ``execute`` took; absent when it did not run.
    durationMs: NotRequired[int]
    usage: NotRequired[Usage]
    # ``{calls, complete}``: the calls the tool made to other tools (sessions keep it, models never see it).
    nestedCalls: NotRequired[dict[str, object]]


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


class Tool(TypedDict):
    name: str
    description: str
    parameters: JsonObject


class Context(TypedDict):
    messages: list[Message]
    systemPrompt: NotRequired[str]
    tools: NotRequired[list[Tool]]


# --- model descriptor -------------------------------------------------------------------------


class ModelCostTier(TypedDict):
    """Rates for a whole request whose input (``input + cacheRead + cacheWrite``) exceeds
    ``inputTokensAbove``; the highest matching tier wins."""

    inputTokensAbove: float
    input: float
    output: float
    cacheRead: float
    cacheWrite: float


class ModelCost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    cacheWrite1h: NotRequired[float]
    # ``tiers: list[ModelCostTier]`` may follow (catalogue, models.json); read with
    # ``cost.tier_rates``. Not declared here so that price dicts built from partial prices
    # (the faux provider's) stay valid ``ModelCost`` values.


class Model(TypedDict):
    id: str
    name: str
    api: str
    provider: str
    baseUrl: str
    reasoning: bool
    input: list[str]
    cost: ModelCost
    contextWindow: int
    maxTokens: int
    headers: NotRequired[dict[str, str]]
    compat: NotRequired[JsonObject]
    thinkingLevelMap: NotRequired[dict[str, str | None]]
    # Request and image limits (``maxRequestBytes``, ``images.resize``/``maxPerMessage``/...).
    inputLimits: NotRequired[JsonObject]
    # Best-effort prompt cache lifetime in seconds per retention tier (``short``, ``long``).
    promptCache: NotRequired[dict[str, float]]
    # Fields merged into every request body of the OpenAI-style APIs, and per thinking level.
    samplingParams: NotRequired[JsonObject]
    samplingParamsByThinkingLevel: NotRequired[dict[str, JsonObject]]


# --- helpers ----------------------------------------------------------------------------------


def empty_usage() -> Usage:
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


def new_assistant_message(model: Model, timestamp: int) -> AssistantMessage:
    """The partial message a provider starts streaming into (``stopReason: "pending"``)."""
    return {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": empty_usage(),
        "stopReason": "pending",
        "timestamp": timestamp,
    }
