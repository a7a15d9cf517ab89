"""The request body of the Gemini API (``GenerateContentRequest``, REST field names), as Pi writes it.

Only the fields Pi sends are declared. Keys are written in the order the converters build them,
which is the order on the wire.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pi_harness.ai.json_values import JsonObject, JsonValue


class InlineData(TypedDict):
    mimeType: str
    data: str


class FunctionCall(TypedDict):
    name: str
    args: JsonObject
    # Only for models that pair results by id (Claude and gpt-oss behind this API).
    id: NotRequired[str]


class FunctionResponse(TypedDict):
    name: str
    # ``{"output": text}``, or ``{"error": text}`` for a failed call.
    response: dict[str, str]
    # Gemini 3 takes a result's images inside the response itself.
    parts: NotRequired[list[Part]]
    id: NotRequired[str]


class Part(TypedDict, total=False):
    """One part of a content: text (a thought when ``thought`` is set), an image, a call or a result."""

    thought: bool
    text: str
    inlineData: InlineData
    functionCall: FunctionCall
    functionResponse: FunctionResponse
    thoughtSignature: str


class Content(TypedDict):
    role: Literal["user", "model"]
    parts: list[Part]


class SystemInstruction(TypedDict):
    # The Gemini SDK sends a system instruction given as text as a user-role content.
    role: Literal["user"]
    parts: list[Part]


class FunctionDeclaration(TypedDict):
    name: str
    description: str
    parametersJsonSchema: JsonValue


class ToolDeclarations(TypedDict):
    functionDeclarations: list[FunctionDeclaration]


class FunctionCallingConfig(TypedDict):
    mode: str


class ToolConfig(TypedDict):
    functionCallingConfig: FunctionCallingConfig


class ThinkingConfig(TypedDict, total=False):
    includeThoughts: bool
    # A token budget (Gemini 2.5; -1 lets the model decide) or a level name (Gemini 3).
    thinkingBudget: int
    thinkingLevel: str


class GenerationConfig(TypedDict, total=False):
    temperature: float
    maxOutputTokens: int
    thinkingConfig: ThinkingConfig


class GenerateContentRequest(TypedDict):
    contents: list[Content]
    systemInstruction: NotRequired[SystemInstruction]
    tools: NotRequired[list[ToolDeclarations]]
    toolConfig: NotRequired[ToolConfig]
    generationConfig: NotRequired[GenerationConfig]
