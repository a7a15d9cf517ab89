"""The OpenAI Responses API (``POST /v1/responses`` with ``stream: true``) as the fake server speaks it.

Every SSE frame is ``event: <type>`` plus ``data: {"type": <type>, ..., "sequence_number": n}``,
numbered from 0 like the real service. A scripted response becomes::

    response.created, response.in_progress
    per step, one output item at the next output_index:
      text      output_item.added (message) · content_part.added · output_text.delta… ·
                output_text.done · content_part.done · output_item.done
      thinking  output_item.added (reasoning) · reasoning_summary_part.added ·
                reasoning_summary_text.delta… · reasoning_summary_text.done ·
                reasoning_summary_part.done · output_item.done (summary + encrypted_content)
      tool call output_item.added (function_call) · function_call_arguments.delta… ·
                function_call_arguments.done · output_item.done
    error (for ``stream_error``), else the terminal event:
      response.completed | response.incomplete (max_output_tokens) | response.failed

``native_stop`` is either a response status (``completed``, ``incomplete``, ``failed``,
``cancelled``) or an ``incomplete_details.reason`` (e.g. ``content_filter``). A redacted
thinking step is a reasoning item with encrypted content and no summary. ``HTTPErrorSpec.type``
is rendered as the error's ``code`` (e.g. ``context_length_exceeded``); the ``type`` field follows
the status as OpenAI's does.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import orjson

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

_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled"})

# status -> (error type, default code) of OpenAI's error bodies
_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    408: ("server_error", "timeout"),
    409: ("invalid_request_error", "conflict"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    502: ("server_error", None),
    503: ("server_error", None),
    529: ("server_error", "overloaded"),
}


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}{uuid.uuid4().hex[:16]}"


def _frame(payload: dict[str, Any]) -> bytes:
    event_type: str = payload["type"]
    return b"event: " + event_type.encode() + b"\ndata: " + orjson.dumps(payload) + b"\n\n"


def error_object(error: HTTPErrorSpec) -> dict[str, Any]:
    """``{"message", "type", "param", "code"}`` as OpenAI writes it for ``error``."""
    kind, code = _ERROR_KINDS.get(
        error.status, ("server_error" if error.status >= 500 else "invalid_request_error", None)
    )
    if error.status == 400 and code is None and "context window" in error.message.lower():
        code = "context_length_exceeded"
    param = "input" if code == "context_length_exceeded" else None
    return {"message": error.message, "type": kind, "param": param, "code": error.type or code}


class _Encoder:
    """Builds the frames of one response, numbering events and tracking the output items."""

    def __init__(self, response: ScriptedResponse, request: RecordedRequest) -> None:
        self.response = response
        self.body = request.json
        self.sequence = 0
        self.frames: list[bytes] = []
        self.output: list[dict[str, Any]] = []
        self.response_id = response.response_id or _new_id("resp")
        self.created_at = int(time.time())

    def emit(self, event_type: str, **fields: Any) -> None:
        payload: dict[str, Any] = {"type": event_type, **fields, "sequence_number": self.sequence}
        self.sequence += 1
        self.frames.append(_frame(payload))

    def response_object(
        self,
        status: str,
        *,
        usage: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        incomplete_reason: str | None = None,
    ) -> dict[str, Any]:
        reasoning = self.body.get("reasoning") if isinstance(self.body.get("reasoning"), dict) else None
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": False,
            "error": error,
            "incomplete_details": {"reason": incomplete_reason} if incomplete_reason else None,
            "instructions": self.body.get("instructions"),
            "max_output_tokens": self.body.get("max_output_tokens"),
            "model": self.body.get("model", "fake-model"),
            "output": list(self.output),
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "prompt_cache_key": self.body.get("prompt_cache_key"),
            "reasoning": {
                "effort": (reasoning or {}).get("effort"),
                "summary": (reasoning or {}).get("summary"),
            },
            "service_tier": "default",
            "store": self.body.get("store", True),
            "temperature": self.body.get("temperature", 1.0),
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": self.body.get("tools", []),
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }

    def usage(self) -> dict[str, Any]:
        usage = self.response.usage
        cached = usage.get("cacheRead", 0)
        input_tokens = usage.get("input", 0) + cached  # OpenAI's input count includes cached tokens
        output_tokens = usage.get("output", 0)  # includes reasoning tokens
        return {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": usage.get("reasoning", 0)},
            "total_tokens": input_tokens + output_tokens,
        }

    # -- output items ------------------------------------------------------------------------

    def text(self, step: TextStep) -> None:
        index = len(self.output)
        item_id = _new_id("msg")
        self.emit(
            "response.output_item.added",
            output_index=index,
            item={"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"},
        )
        empty_part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        self.emit("response.content_part.added", item_id=item_id, output_index=index, content_index=0, part=empty_part)
        for piece in split_text(step.text, step.chunks):
            self.emit(
                "response.output_text.delta",
                item_id=item_id,
                output_index=index,
                content_index=0,
                delta=piece,
                logprobs=[],
            )
        self.emit(
            "response.output_text.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            text=step.text,
            logprobs=[],
        )
        part = {**empty_part, "text": step.text}
        self.emit("response.content_part.done", item_id=item_id, output_index=index, content_index=0, part=part)
        item = {"id": item_id, "type": "message", "status": "completed", "content": [part], "role": "assistant"}
        self.output.append(item)
        self.emit("response.output_item.done", output_index=index, item=item)

    def thinking(self, step: ThinkingStep) -> None:
        index = len(self.output)
        item_id = _new_id("rs")
        self.emit(
            "response.output_item.added",
            output_index=index,
            item={"id": item_id, "type": "reasoning", "summary": []},
        )
        summary: list[dict[str, Any]] = []
        if not step.redacted and step.text:
            common = {"item_id": item_id, "output_index": index, "summary_index": 0}
            self.emit("response.reasoning_summary_part.added", **common, part={"type": "summary_text", "text": ""})
            for piece in split_text(step.text, step.chunks):
                self.emit("response.reasoning_summary_text.delta", **common, delta=piece)
            self.emit("response.reasoning_summary_text.done", **common, text=step.text)
            part = {"type": "summary_text", "text": step.text}
            self.emit("response.reasoning_summary_part.done", **common, part=part)
            summary.append(part)
        item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": summary}
        if step.signature is not None:
            item["encrypted_content"] = step.signature
        self.output.append(item)
        self.emit("response.output_item.done", output_index=index, item=item)

    def tool_call(self, step: ToolCallStep) -> None:
        index = len(self.output)
        item_id = _new_id("fc")
        call_id = step.id or f"call_{uuid.uuid4().hex[:24]}"
        base = {"id": item_id, "type": "function_call", "call_id": call_id, "name": step.name}
        self.emit(
            "response.output_item.added",
            output_index=index,
            item={**base, "status": "in_progress", "arguments": ""},
        )
        raw = arguments_json(step)
        for piece in split_text(raw, step.chunks):
            self.emit("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece)
        self.emit("response.function_call_arguments.done", item_id=item_id, output_index=index, arguments=raw)
        item = {**base, "status": "completed", "arguments": raw}
        self.output.append(item)
        self.emit("response.output_item.done", output_index=index, item=item)

    # -- whole response ----------------------------------------------------------------------

    def encode(self) -> list[bytes]:
        self.emit("response.created", response=self.response_object("in_progress"))
        self.emit("response.in_progress", response=self.response_object("in_progress"))
        for step in self.response.steps:
            if isinstance(step, TextStep):
                self.text(step)
            elif isinstance(step, ThinkingStep):
                self.thinking(step)
            else:
                self.tool_call(step)
        if self.response.stream_error is not None:
            err = error_object(self.response.stream_error)
            self.emit("error", code=err["code"], message=err["message"], param=err["param"])
            return self.frames
        self.terminal()
        return self.frames

    def terminal(self) -> None:
        native = self.response.native_stop
        if native in _STATUSES:
            status, reason = native, None
        elif native is not None:
            status, reason = "incomplete", native
        else:
            status, reason = {
                "stop": ("completed", None),
                "toolUse": ("completed", None),
                "length": ("incomplete", "max_output_tokens"),
                "error": ("failed", None),
            }[self.response.resolved_stop]
        if status == "incomplete" and reason is None:
            reason = "max_output_tokens"
        if status == "failed":
            error = {"code": "server_error", "message": "The model failed to generate a response."}
            self.emit("response.failed", response=self.response_object("failed", error=error))
            return
        event = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(status, "response.failed")
        self.emit(event, response=self.response_object(status, usage=self.usage(), incomplete_reason=reason))


class OpenAIResponsesProtocol:
    api = "openai-responses"

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        return _Encoder(response, request).encode()

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        headers = {"x-request-id": f"req_{uuid.uuid4().hex}"}
        if error.status == 429:
            headers["retry-after"] = "1"
        if error.body is not None:
            return error.status, headers, error.body.encode("utf-8")
        return error.status, headers, orjson.dumps({"error": error_object(error)})


PROTOCOL = OpenAIResponsesProtocol()
