"""What the fake server's protocols have in common: SSE framing, the walk over a response's steps,
and the making of an HTTP error response.

A protocol module defines a ``StepWriter``, which writes one response: how a text, thinking or
tool-call step is written and what surrounds the steps; and a ``ScriptedProtocol`` naming that
writer and saying what an error's headers and body are.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Generic, TypeAlias, TypeVar

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.script import (
    HTTPErrorSpec,
    RecordedRequest,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
    arguments_json,
    split_text,
)

# Status, headers and body of an HTTP response.
ErrorResponse: TypeAlias = tuple[int, dict[str, str], bytes]

_Piece = TypeVar("_Piece")


def sse_frame(data: bytes, event: str | None = None, *, line_end: bytes = b"\n") -> bytes:
    """One Server-Sent Event: an optional ``event:`` line, the ``data:`` line and the blank line."""
    head = b"event: " + event.encode() + line_end if event is not None else b""
    return head + b"data: " + data + line_end + line_end


def requested(request: RecordedRequest, field: str) -> JsonObject:
    """An object field of the request body (``{}`` when absent or not an object)."""
    value = request.json.get(field)
    return value if isinstance(value, dict) else {}


class ResponseWriter(ABC):
    """Writes one scripted response as SSE frames. One instance per response, so it may keep
    count of what it wrote (sequence numbers, tool-call indexes...)."""

    def __init__(self, response: ScriptedResponse, request: RecordedRequest) -> None:
        self.response = response
        self.request = request
        self.begin()

    def begin(self) -> None:  # noqa: B027  # a hook: writers that track nothing leave it as it is
        """Set up what the writer tracks for this response (ids, counters); nothing by default."""

    @abstractmethod
    def encode(self) -> list[bytes]:
        """The complete SSE frames of the response, in order."""


class StepWriter(ResponseWriter, Generic[_Piece]):
    """A ``ResponseWriter`` that turns each step into pieces (frames, parts...) of its stream."""

    def steps(self) -> list[_Piece]:
        """The pieces of every step in order; ``index`` is the step's position in the response."""
        pieces: list[_Piece] = []
        for index, step in enumerate(self.response.steps):
            if isinstance(step, TextStep):
                pieces.extend(self.text(step, index))
            elif isinstance(step, ThinkingStep):
                pieces.extend(self.thinking(step, index))
            else:
                pieces.extend(self.tool_call(step, index))
        return pieces

    @staticmethod
    def deltas(step: TextStep | ThinkingStep) -> list[str]:
        """The step's text in the script's number of deltas."""
        return split_text(step.text, step.chunks)

    @staticmethod
    def argument_deltas(step: ToolCallStep) -> list[str]:
        """The JSON text of the call's arguments in the script's number of fragments."""
        return split_text(arguments_json(step), step.chunks)

    @abstractmethod
    def text(self, step: TextStep, index: int) -> list[_Piece]: ...

    @abstractmethod
    def thinking(self, step: ThinkingStep, index: int) -> list[_Piece]: ...

    @abstractmethod
    def tool_call(self, step: ToolCallStep, index: int) -> list[_Piece]: ...


class ScriptedProtocol(ABC):
    """One provider API as the fake server speaks it (the server's ``WireProtocol``)."""

    api: ClassVar[str]
    # Writes each response's stream.
    writer: ClassVar[type[ResponseWriter]]
    # The ``retry-after`` a 429 gets unless the script sets the header (the real service's hint).
    retry_after_429: ClassVar[str | None] = None

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        return self.writer(response, request).encode()

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> ErrorResponse:
        """Status, the protocol's headers and its error body, or the script's raw ``body``."""
        headers = self.error_headers(error)
        if error.status == 429 and self.retry_after_429 is not None:
            headers["retry-after"] = self.retry_after_429  # scripts override it, e.g. "0" in retry tests
        if error.body is not None:
            return error.status, headers, error.body.encode("utf-8")
        return error.status, headers, self.error_body(error, headers)

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        """What the service refuses before answering (see ``WireProtocol``); nothing by default."""
        return None

    @abstractmethod
    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]: ...

    @abstractmethod
    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        """The body of an error the script gives no raw ``body`` for (``headers`` as sent)."""
