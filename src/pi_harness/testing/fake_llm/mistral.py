"""Mistral's chat endpoint (``POST /v1/chat/completions`` on api.mistral.ai) as the fake speaks it.

The fake serves it under ``/mistral`` (``baseUrl`` ``http://127.0.0.1:<port>/mistral``) so that
one server can tell it from the OpenAI dialect on the same path. Frames are ``data: {chunk}``:

    role chunk (``{"role": "assistant", "content": ""}``)
    text      ``{"content": "<piece>"}`` per delta
    thinking  ``{"content": [{"type": "thinking", "thinking": [{"type": "text", "text": …}]}]}``
    tool call ``{"tool_calls": [{"id": <9 chars>, "function": {"name", "arguments"}, "index": n}]}``
              whole in one delta, as Mistral sends it (``chunks`` is ignored)
    final     ``{"content": ""}`` with ``finish_reason`` and ``usage``
    ``data: [DONE]``

``native_stop`` is the literal ``finish_reason``; a ``stream_error`` ends the stream with
``finish_reason: "error"``, which is how Mistral reports a failure mid-stream. Error bodies are
``{"object": "error", "message", "type", "param", "code"}``, except a 401 from the gateway, which is
``{"message": "Unauthorized", "request_id": …}`` (also the answer to a request without a bearer key).
"""

from __future__ import annotations

import os
import time
import uuid

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest, TextStep, ThinkingStep, ToolCallStep
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter, sse_frame

_FINISH = {"stop": "stop", "length": "length", "toolUse": "tool_calls", "error": "error"}
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# status -> (type, code) of Mistral's error object
_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_message_error", "3000"),
    404: ("invalid_model", "1500"),
    422: ("invalid_request_error", "3001"),
    429: ("rate_limited", "1300"),
}


def tool_call_id() -> str:
    return "".join(_ALNUM[b % len(_ALNUM)] for b in os.urandom(9))


class _Chunks(StepWriter[bytes]):
    def begin(self) -> None:
        self.base: JsonObject = {
            "id": self.response.response_id or uuid.uuid4().hex,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": str(self.request.json.get("model") or "fake-model"),
        }
        self.tool_index = 0

    def chunk(self, delta: JsonObject, finish: str | None = None, usage: JsonObject | None = None) -> bytes:
        payload: JsonObject = {**self.base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            payload["usage"] = usage
        return sse_frame(orjson.dumps(payload))

    def text(self, step: TextStep, index: int) -> list[bytes]:
        return [self.chunk({"content": piece}) for piece in self.deltas(step)]

    def thinking(self, step: ThinkingStep, index: int) -> list[bytes]:
        return [
            self.chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": piece}]}]})
            for piece in self.deltas(step)
        ]

    def tool_call(self, step: ToolCallStep, index: int) -> list[bytes]:
        call: JsonObject = {
            "id": step.id or tool_call_id(),
            "function": {"name": step.name, "arguments": "".join(self.argument_deltas(step))},
            "index": self.tool_index,
        }
        self.tool_index += 1
        return [self.chunk({"tool_calls": [call]})]

    def usage(self) -> JsonObject:
        usage = self.response.usage
        cached = usage.get("cacheRead", 0)
        prompt = usage.get("input", 0) + cached
        completion = usage.get("output", 0)
        out: JsonObject = {
            "prompt_tokens": prompt,
            "total_tokens": prompt + completion,
            "completion_tokens": completion,
        }
        if cached:
            out["prompt_tokens_details"] = {"cached_tokens": cached}
        return out

    def encode(self) -> list[bytes]:
        frames = [self.chunk({"role": "assistant", "content": ""})]
        frames.extend(self.steps())
        if self.response.stream_error is not None:
            finish = "error"
        else:
            finish = self.response.native_stop or _FINISH[self.response.resolved_stop]
        frames.append(self.chunk({"content": ""}, finish, self.usage()))
        frames.append(sse_frame(b"[DONE]"))
        return frames


def _request_id() -> str:
    return uuid.uuid4().hex


class MistralProtocol(ScriptedProtocol):
    api = "mistral-conversations"
    writer = _Chunks

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        if not request.headers.get("authorization", "").removeprefix("Bearer ").strip():
            return HTTPErrorSpec(401, "Unauthorized")
        return None

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {"mistral-correlation-id": str(uuid.uuid4()), "x-kong-request-id": _request_id()}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        if error.status == 401:
            return orjson.dumps({"message": error.message, "request_id": headers["x-kong-request-id"]})
        kind, code = _ERROR_KINDS.get(
            error.status, ("internal_server_error" if error.status >= 500 else "invalid_request_error", None)
        )
        if "maximum context length" in error.message:
            code = "3051"
        return orjson.dumps(
            {"object": "error", "message": error.message, "type": error.type or kind, "param": None, "code": code}
        )


PROTOCOL = MistralProtocol()
