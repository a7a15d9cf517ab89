"""What the fake LLM server answers: protocol-neutral scripted responses.

A script is a queue of responses; each request takes the next one. A response either streams
content steps (text, thinking, tool calls with arguments split into fragments) with usage and a
stop reason, or fails (an HTTP error with the provider's real error body, a mid-stream error
event, or a connection dropped after N events). Protocol modules turn it into wire bytes;
``script_file`` reads the same responses from JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import orjson

from pi_harness.ai.json_values import JsonObject, JsonValue

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
    arguments: JsonObject
    id: str | None = None
    chunks: int = 3  # the arguments' JSON text is split into this many fragments
    # Sent instead of ``arguments`` as JSON, verbatim: malformed or cut-off argument text.
    raw_arguments: str | None = None


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
    # Keep the connection open, sending nothing more, after this many SSE events (until the client
    # hangs up): a stream that never ends.
    stall_after: int | None = None
    garbage: bytes | None = None  # raw bytes written into the stream (malformed SSE) ...
    garbage_after: int = 0  # ... after this many SSE events
    delay_ms: int = 0  # before the response headers
    chunk_delay_ms: int = 0  # between SSE events
    fragment_bytes: int | None = None  # write each event in pieces of this many bytes
    response_id: str | None = None
    # Generated images, ``(mime type, base64 data)``: a non-streamed Chat Completions request
    # (image generation over OpenRouter) gets them as ``message.images`` data URLs.
    images: list[tuple[str, str]] = field(default_factory=list)

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
    body: JsonValue  # parsed JSON, or the raw text when it is not JSON
    protocol: str
    raw_body: bytes = b""  # the bytes as received (what a signature covers)
    received_at: float = 0.0  # time.monotonic() when the request was read (retry-delay tests)

    @property
    def json(self) -> JsonObject:
        """The body when it is a JSON object, else an empty one."""
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
    if step.raw_arguments is not None:
        return step.raw_arguments
    return orjson.dumps(step.arguments).decode("utf-8")
