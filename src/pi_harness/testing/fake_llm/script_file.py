"""Scripted responses from JSON: the script-file format (camelCase keys, see testing.md).

``{"responses": [...]}`` (or the bare list) holds one object per response::

    {"steps": [{"text": "hi", "chunks": 2}, {"thinking": "…", "signature": "…"},
               {"toolCall": {"name": "read", "arguments": {"path": "a"}, "id": "call_1"}}],
     "stopReason": "toolUse", "usage": {"input": 10, "output": 5},
     "httpError": {"status": 429, "message": "slow down", "headers": {"retry-after": "0"}}}

``{"text": "hi"}`` is short for one text step. Values are taken as given; a malformed file fails
with the error Python raises for it.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.script import (
    AbstractStop,
    HTTPErrorSpec,
    ScriptedResponse,
    Step,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)


class ScriptError(TypedDict, total=False):
    status: int  # default 500
    message: str  # default "error"
    type: str
    headers: dict[str, str]
    body: str


class ScriptToolCall(TypedDict):
    name: str
    arguments: NotRequired[JsonObject]
    id: NotRequired[str]
    chunks: NotRequired[int]


class ScriptStep(TypedDict, total=False):
    """One of ``text``, ``thinking`` (with ``signature``/``redacted``) or ``toolCall``."""

    text: str
    thinking: str
    chunks: int
    signature: str
    redacted: bool
    toolCall: ScriptToolCall


class ScriptImage(TypedDict):
    mimeType: str
    data: str  # base64


class ScriptResponse(TypedDict, total=False):
    steps: list[ScriptStep]
    text: str
    stopReason: AbstractStop
    nativeStop: str
    usage: dict[str, int]
    httpError: ScriptError
    error: ScriptError  # an older name of ``httpError``
    streamError: ScriptError
    dropAfter: int
    stallAfter: int
    garbage: str  # written as UTF-8
    garbageAfter: int
    delayMs: int
    chunkDelayMs: int
    fragmentBytes: int
    responseId: str
    images: list[ScriptImage]


class ScriptFile(TypedDict):
    responses: list[ScriptResponse]


def response_from_dict(data: ScriptResponse) -> ScriptedResponse:
    """Build a response from the JSON script-file shape (camelCase keys)."""
    steps: list[Step] = []
    for raw in data.get("steps", []):
        if "text" in raw:
            steps.append(TextStep(raw["text"], chunks=raw.get("chunks", 3)))
        elif "thinking" in raw:
            steps.append(
                ThinkingStep(
                    raw["thinking"],
                    chunks=raw.get("chunks", 2),
                    signature=raw.get("signature"),
                    redacted=raw.get("redacted", False),
                )
            )
        elif "toolCall" in raw:
            call = raw["toolCall"]
            steps.append(
                ToolCallStep(call["name"], call.get("arguments", {}), id=call.get("id"), chunks=call.get("chunks", 3))
            )
        else:
            raise ValueError(f"unknown script step: {raw!r}")
    if "text" in data and not steps:
        steps.append(TextStep(data["text"]))

    def error(spec: ScriptError | None) -> HTTPErrorSpec | None:
        if spec is None:
            return None
        return HTTPErrorSpec(
            status=spec.get("status", 500),
            message=spec.get("message", "error"),
            type=spec.get("type"),
            headers=spec.get("headers", {}),
            body=spec.get("body"),
        )

    response = ScriptedResponse(
        steps=steps,
        stop_reason=data.get("stopReason"),
        native_stop=data.get("nativeStop"),
        http_error=error(data.get("httpError")) or error(data.get("error")),
        stream_error=error(data.get("streamError")),
        drop_after=data.get("dropAfter"),
        stall_after=data.get("stallAfter"),
        garbage=data["garbage"].encode("utf-8") if "garbage" in data else None,
        garbage_after=data.get("garbageAfter", 0),
        delay_ms=data.get("delayMs", 0),
        chunk_delay_ms=data.get("chunkDelayMs", 0),
        fragment_bytes=data.get("fragmentBytes"),
        response_id=data.get("responseId"),
        images=[(image["mimeType"], image["data"]) for image in data.get("images", [])],
    )
    if "usage" in data:
        response.usage = dict(data["usage"])
    return response


def load_script(data: ScriptFile | list[ScriptResponse]) -> list[ScriptedResponse]:
    items = data.get("responses", []) if isinstance(data, dict) else data
    return [response_from_dict(item) for item in items]
