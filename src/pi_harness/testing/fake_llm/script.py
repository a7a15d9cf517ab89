"""What the fake LLM server answers: protocol-neutral scripted responses.

A script is a queue of responses; each request takes the next one. A response either streams
content steps (text, thinking, tool calls with arguments split into fragments) with usage and a
stop reason, or fails (an HTTP error with the provider's real error body, a mid-stream error
event, or a connection dropped after N events). Protocol modules turn it into wire bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import orjson

AbstractStop = Literal["stop", "length", "toolUse", "error"]


@dataclass
class TextStep:
    text: str
    chunks: int = 3  # number of deltas the text is split into


@dataclass
class ThinkingStep:
    text: str
    chunks: int = 2
    signature: str | None = None  # Anthropic signature / Responses encrypted content
    redacted: bool = False  # Anthropic redacted_thinking (``signature`` holds the data)


@dataclass
class ToolCallStep:
    name: str
    arguments: dict[str, Any]
    id: str | None = None
    chunks: int = 3  # the arguments' JSON text is split into this many fragments


Step: TypeAlias = TextStep | ThinkingStep | ToolCallStep


@dataclass
class HTTPErrorSpec:
    """An HTTP error response; protocols render their real error body from these fields."""

    status: int
    message: str
    type: str | None = None  # provider error type/code, e.g. "rate_limit_error", "overloaded_error"
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None  # raw body override (e.g. "" for a body-less 413)


@dataclass
class ScriptedResponse:
    steps: list[Step] = field(default_factory=list)
    stop_reason: AbstractStop | None = None  # default: toolUse if any tool call else stop
    native_stop: str | None = None  # exact provider value, overrides stop_reason mapping
    usage: dict[str, int] = field(default_factory=lambda: {"input": 10, "output": 5})
    http_error: HTTPErrorSpec | None = None
    stream_error: HTTPErrorSpec | None = None  # error event after the steps (status ignored by SSE)
    drop_after: int | None = None  # close the connection after this many SSE events
    delay_ms: int = 0  # before the response headers
    chunk_delay_ms: int = 0  # between SSE events
    fragment_bytes: int | None = None  # write each event in pieces of this many bytes
    response_id: str | None = None

    @property
    def resolved_stop(self) -> AbstractStop:
        if self.stop_reason is not None:
            return self.stop_reason
        return "toolUse" if any(isinstance(s, ToolCallStep) for s in self.steps) else "stop"


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: str
    headers: dict[str, str]  # lower-case names
    body: Any  # parsed JSON, or the raw text when it is not JSON
    protocol: str

    @property
    def json(self) -> dict[str, Any]:
        return self.body if isinstance(self.body, dict) else {}


ResponseSource: TypeAlias = ScriptedResponse | Callable[[RecordedRequest], ScriptedResponse]


def split_text(text: str, parts: int) -> list[str]:
    """Split ``text`` into ``parts`` non-empty pieces (fewer when the text is shorter)."""
    if parts <= 1 or len(text) <= 1:
        return [text]
    parts = min(parts, len(text))
    size, rest = divmod(len(text), parts)
    pieces, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < rest else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def arguments_json(step: ToolCallStep) -> str:
    return orjson.dumps(step.arguments).decode("utf-8")


# --- script files -------------------------------------------------------------------------------


def response_from_dict(data: dict[str, Any]) -> ScriptedResponse:
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

    def error(key: str) -> HTTPErrorSpec | None:
        spec = data.get(key)
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
        http_error=error("httpError") or error("error"),
        stream_error=error("streamError"),
        drop_after=data.get("dropAfter"),
        delay_ms=data.get("delayMs", 0),
        chunk_delay_ms=data.get("chunkDelayMs", 0),
        fragment_bytes=data.get("fragmentBytes"),
        response_id=data.get("responseId"),
    )
    if "usage" in data:
        response.usage = dict(data["usage"])
    return response


def load_script(data: dict[str, Any] | list[Any]) -> list[ScriptedResponse]:
    items = data.get("responses", []) if isinstance(data, dict) else data
    return [response_from_dict(item) for item in items]
