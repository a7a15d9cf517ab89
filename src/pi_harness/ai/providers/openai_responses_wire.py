"""The request body of the OpenAI Responses API (``POST /responses``), as Pi writes it.

Only the fields Pi sends are declared. Keys are written in the order the converters build them,
which is the order on the wire.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.json_values import JsonObject


class InputText(TypedDict):
    type: Literal["input_text"]
    text: str


class InputImage(TypedDict):
    type: Literal["input_image"]
    detail: Literal["auto"]
    image_url: str  # a ``data:`` URL


InputContent: TypeAlias = InputText | InputImage


class InputMessage(TypedDict):
    role: Literal["user", "system", "developer"]
    content: list[InputContent]


class InstructionMessage(TypedDict):
    """The system prompt: plain text content, as Pi sends it."""

    role: Literal["system", "developer"]
    content: str


class OutputText(TypedDict):
    type: Literal["output_text"]
    text: str
    annotations: list[JsonObject]


class OutputMessageItem(TypedDict):
    """An earlier assistant answer, replayed under the id of the item it came from."""

    type: Literal["message"]
    role: Literal["assistant"]
    content: list[OutputText]
    status: Literal["completed"]
    id: str
    phase: NotRequired[str]


class FunctionCallItem(TypedDict):
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str  # JSON text
    # The ``fc_`` item id, only sent back to the model that produced it.
    id: NotRequired[str]


class FunctionCallOutputItem(TypedDict):
    type: Literal["function_call_output"]
    call_id: str
    output: str | list[InputContent]


# A reasoning item is replayed exactly as the service sent it (``JsonObject``).
InputItem: TypeAlias = (
    InputMessage | InstructionMessage | OutputMessageItem | FunctionCallItem | FunctionCallOutputItem | JsonObject
)


class FunctionTool(TypedDict):
    type: Literal["function"]
    name: str
    description: str
    parameters: JsonObject
    strict: NotRequired[bool]


class ReasoningParam(TypedDict):
    effort: str
    summary: NotRequired[str]


class ResponsesRequest(TypedDict):
    model: str
    input: list[InputItem]
    stream: Literal[True]
    store: bool
    prompt_cache_key: NotRequired[str]
    prompt_cache_retention: NotRequired[Literal["24h"]]
    prompt_cache_options: NotRequired[dict[str, str]]
    max_output_tokens: NotRequired[int]
    temperature: NotRequired[float]
    service_tier: NotRequired[str]
    tools: NotRequired[list[FunctionTool]]
    reasoning: NotRequired[ReasoningParam]
    include: NotRequired[list[str]]


class TextSignature(TypedDict):
    """What a text block's ``textSignature`` holds (as JSON): the output message item it came from."""

    v: Literal[1]
    id: str
    phase: NotRequired[str]
