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

import orjson

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.testing.fake_llm.openai_errors import ERROR_KINDS, ErrorKind, error_kind
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, TextStep, ThinkingStep, ToolCallStep, arguments_json
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter, requested, sse_frame

_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled"})

# The Responses dialect names a code for more statuses than the shared table does.
_ERROR_KINDS: dict[int, ErrorKind] = {
    **ERROR_KINDS,
    408: ("server_error", "timeout"),
    409: ("invalid_request_error", "conflict"),
    413: ("invalid_request_error", "request_too_large"),
    502: ("server_error", None),
}


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}{uuid.uuid4().hex[:16]}"


def error_object(error: HTTPErrorSpec) -> JsonObject:
    """``{"message", "type", "param", "code"}`` as OpenAI writes it for ``error``."""
    kind, code = error_kind(error.status, _ERROR_KINDS)
    if error.status == 400 and code is None and "context window" in error.message.lower():
        code = "context_length_exceeded"
    param = "input" if code == "context_length_exceeded" else None
    return {"message": error.message, "type": kind, "param": param, "code": error.type or code}


class _Events(StepWriter[bytes]):
    """The events of one response, numbered in order; each step is the output item at its index."""

    def begin(self) -> None:
        self.body = self.request.json
        self.sequence = 0
        self.output: list[JsonValue] = []
        self.response_id = self.response.response_id or _new_id("resp")
        self.created_at = int(time.time())

    def event(self, event_type: str, **fields: JsonValue) -> bytes:
        """The next frame: ``{"type", ...fields, "sequence_number"}``."""
        payload: JsonObject = {"type": event_type, **fields, "sequence_number": self.sequence}
        self.sequence += 1
        return sse_frame(orjson.dumps(payload), event_type)

    def response_object(
        self,
        status: str,
        *,
        usage: JsonObject | None = None,
        error: JsonObject | None = None,
        incomplete_reason: str | None = None,
    ) -> JsonObject:
        reasoning = requested(self.request, "reasoning")
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
            "reasoning": {"effort": reasoning.get("effort"), "summary": reasoning.get("summary")},
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

    def usage(self) -> JsonObject:
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

    def text(self, step: TextStep, index: int) -> list[bytes]:
        item_id = _new_id("msg")
        frames = [
            self.event(
                "response.output_item.added",
                output_index=index,
                item={"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"},
            )
        ]
        empty_part: JsonObject = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        common: JsonObject = {"item_id": item_id, "output_index": index, "content_index": 0}
        frames.append(self.event("response.content_part.added", **common, part=empty_part))
        frames.extend(
            self.event("response.output_text.delta", **common, delta=piece, logprobs=[]) for piece in self.deltas(step)
        )
        frames.append(self.event("response.output_text.done", **common, text=step.text, logprobs=[]))
        part: JsonObject = {**empty_part, "text": step.text}
        frames.append(self.event("response.content_part.done", **common, part=part))
        item: JsonObject = {
            "id": item_id,
            "type": "message",
            "status": "completed",
            "content": [part],
            "role": "assistant",
        }
        self.output.append(item)
        frames.append(self.event("response.output_item.done", output_index=index, item=item))
        return frames

    def thinking(self, step: ThinkingStep, index: int) -> list[bytes]:
        item_id = _new_id("rs")
        frames = [
            self.event(
                "response.output_item.added",
                output_index=index,
                item={"id": item_id, "type": "reasoning", "summary": []},
            )
        ]
        summary: list[JsonValue] = []
        if not step.redacted and step.text:
            common: JsonObject = {"item_id": item_id, "output_index": index, "summary_index": 0}
            frames.append(
                self.event("response.reasoning_summary_part.added", **common, part={"type": "summary_text", "text": ""})
            )
            frames.extend(
                self.event("response.reasoning_summary_text.delta", **common, delta=piece)
                for piece in self.deltas(step)
            )
            frames.append(self.event("response.reasoning_summary_text.done", **common, text=step.text))
            part: JsonObject = {"type": "summary_text", "text": step.text}
            frames.append(self.event("response.reasoning_summary_part.done", **common, part=part))
            summary.append(part)
        item: JsonObject = {"id": item_id, "type": "reasoning", "summary": summary}
        if step.signature is not None:
            item["encrypted_content"] = step.signature
        self.output.append(item)
        frames.append(self.event("response.output_item.done", output_index=index, item=item))
        return frames

    def tool_call(self, step: ToolCallStep, index: int) -> list[bytes]:
        item_id = _new_id("fc")
        call_id = step.id or f"call_{uuid.uuid4().hex[:24]}"
        base: JsonObject = {"id": item_id, "type": "function_call", "call_id": call_id, "name": step.name}
        frames = [
            self.event(
                "response.output_item.added",
                output_index=index,
                item={**base, "status": "in_progress", "arguments": ""},
            )
        ]
        raw = arguments_json(step)
        frames.extend(
            self.event("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece)
            for piece in self.argument_deltas(step)
        )
        frames.append(
            self.event("response.function_call_arguments.done", item_id=item_id, output_index=index, arguments=raw)
        )
        item: JsonObject = {**base, "status": "completed", "arguments": raw}
        self.output.append(item)
        frames.append(self.event("response.output_item.done", output_index=index, item=item))
        return frames

    # -- whole response ----------------------------------------------------------------------

    def encode(self) -> list[bytes]:
        frames = [
            self.event("response.created", response=self.response_object("in_progress")),
            self.event("response.in_progress", response=self.response_object("in_progress")),
        ]
        frames.extend(self.steps())
        if self.response.stream_error is not None:
            err = error_object(self.response.stream_error)
            frames.append(self.event("error", code=err["code"], message=err["message"], param=err["param"]))
            return frames
        frames.append(self.terminal())
        return frames

    def terminal(self) -> bytes:
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
            error: JsonObject = {"code": "server_error", "message": "The model failed to generate a response."}
            return self.event("response.failed", response=self.response_object("failed", error=error))
        event = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(status, "response.failed")
        return self.event(event, response=self.response_object(status, usage=self.usage(), incomplete_reason=reason))


class OpenAIResponsesProtocol(ScriptedProtocol):
    api = "openai-responses"
    writer = _Events
    retry_after_429 = "1"

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {"x-request-id": f"req_{uuid.uuid4().hex}"}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        return orjson.dumps({"error": error_object(error)})


PROTOCOL = OpenAIResponsesProtocol()
