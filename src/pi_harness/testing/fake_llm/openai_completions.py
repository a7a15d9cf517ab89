"""The fake server's OpenAI Chat Completions dialect (``POST …/chat/completions``).

Streams are written the way api.openai.com writes them: ``data: {chat.completion.chunk}`` frames
with a role chunk first, content/reasoning/tool-call deltas, a chunk carrying ``finish_reason``,
then (when the request asked for ``stream_options.include_usage``) a usage chunk with
``choices: []`` and ``usage: null`` on every earlier chunk, then ``data: [DONE]``. Reasoning is
streamed as ``reasoning_content`` (DeepSeek/llama.cpp style) unless a ``ThinkingStep`` names another
field (``reasoning``, ``reasoning_text``) as its signature. Error bodies are OpenAI's
``{"error": {"message", "type", "param", "code"}}``; the error type ``exceed_context_size_error``
renders llama.cpp's body instead.
"""

from __future__ import annotations

import os
import re
import time

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.openai_errors import error_kind
from pi_harness.testing.fake_llm.script import (
    HTTPErrorSpec,
    RecordedRequest,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter, requested, sse_frame

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
_FINISH = {"stop": "stop", "length": "length", "toolUse": "tool_calls", "error": "content_filter"}
_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

# error types that OpenAI reports as the ``code`` (with the type given here)
_CODE_TYPES: dict[str, str] = {
    "context_length_exceeded": "invalid_request_error",
    "invalid_api_key": "invalid_request_error",
    "model_not_found": "invalid_request_error",
    "rate_limit_exceeded": "requests",
    "insufficient_quota": "insufficient_quota",
}
_CONTEXT_LENGTH = re.compile(r"maximum context length|context_length_exceeded", re.IGNORECASE)


def _random_id(length: int) -> str:
    return "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in os.urandom(length))


def _frame(payload: JsonObject) -> bytes:
    return sse_frame(orjson.dumps(payload))


class _Chunks(StepWriter[bytes]):
    """``chat.completion.chunk`` frames (every chunk repeats the response's id, model and
    fingerprint): the role, the steps' deltas, the finish reason, the usage, ``[DONE]``."""

    def begin(self) -> None:
        body = self.request.json
        self.include_usage = bool(requested(self.request, "stream_options").get("include_usage"))
        self.base: JsonObject = {
            "id": self.response.response_id or f"chatcmpl-{_random_id(29)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": str(body.get("model") or "fake-model"),
            "service_tier": "default",
            "system_fingerprint": "fp_fake0llm0",
        }
        self.tool_index = 0  # tool calls are numbered among themselves, not among the steps

    def chunk(self, delta: JsonObject, finish: str | None = None) -> bytes:
        payload: JsonObject = {
            **self.base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if self.include_usage:
            payload["usage"] = None
        return _frame(payload)

    def encode(self) -> list[bytes]:
        response = self.response
        frames = [self.chunk({"role": "assistant", "content": "", "refusal": None})]
        frames.extend(self.steps())
        if response.stream_error is not None:
            frames.append(_stream_error(response.stream_error))
            return frames
        finish = response.native_stop or _FINISH[response.resolved_stop]
        frames.append(self.chunk({}, finish))
        if self.include_usage:
            frames.append(_frame({**self.base, "choices": [], "usage": usage_object(response.usage)}))
        frames.append(sse_frame(b"[DONE]"))
        return frames

    def text(self, step: TextStep, index: int) -> list[bytes]:
        return [self.chunk({"content": piece}) for piece in self.deltas(step)]

    def thinking(self, step: ThinkingStep, index: int) -> list[bytes]:
        if step.redacted:
            return []  # Chat Completions has no redacted reasoning
        field = step.signature if step.signature in REASONING_FIELDS else "reasoning_content"
        return [self.chunk({"content": None, field: piece}) for piece in self.deltas(step)]

    def tool_call(self, step: ToolCallStep, index: int) -> list[bytes]:
        call_index = self.tool_index
        self.tool_index += 1
        first: JsonObject = {
            "index": call_index,
            "id": step.id or f"call_{_random_id(24)}",
            "type": "function",
            "function": {"name": step.name, "arguments": ""},
        }
        frames = [self.chunk({"tool_calls": [first]})]
        for piece in self.argument_deltas(step):
            frames.append(self.chunk({"tool_calls": [{"index": call_index, "function": {"arguments": piece}}]}))
        return frames


def usage_object(usage: dict[str, int]) -> JsonObject:
    """OpenAI counts cached (and gateway cache-write) tokens inside ``prompt_tokens`` and
    reasoning tokens inside ``completion_tokens``."""
    cache_read = usage.get("cacheRead", 0)
    cache_write = usage.get("cacheWrite", 0)
    prompt = usage.get("input", 0) + cache_read + cache_write
    completion = usage.get("output", 0)
    prompt_details: JsonObject = {"cached_tokens": cache_read, "audio_tokens": 0}
    if cache_write:
        prompt_details["cache_write_tokens"] = cache_write  # OpenRouter's field
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": prompt_details,
        "completion_tokens_details": {
            "reasoning_tokens": usage.get("reasoning", 0),
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _stream_error(error: HTTPErrorSpec) -> bytes:
    if error.body is not None:
        return sse_frame(error.body.encode("utf-8"))
    return _frame({"error": _error_object(error)})


class OpenAICompletionsProtocol(ScriptedProtocol):
    api = "openai-completions"
    writer = _Chunks

    def encode_json(self, response: ScriptedResponse, request: RecordedRequest) -> bytes | None:
        """The whole answer of a non-streamed request (``"stream": false``), as OpenRouter gives
        it for image generation; ``None`` (stream it) for every other request."""
        if request.json.get("stream") is not False:
            return None
        text = "".join(step.text for step in response.steps if isinstance(step, TextStep))
        message: JsonObject = {"role": "assistant", "content": text or None}
        if response.images:
            message["images"] = [
                {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
                for mime, data in response.images
            ]
        answer: JsonObject = {
            "id": response.response_id or f"gen-{_random_id(24)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.json.get("model") or "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": response.native_stop or _FINISH[response.resolved_stop],
                }
            ],
            "usage": usage_object(response.usage),
        }
        return orjson.dumps(answer)

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {"x-request-id": f"req_{_random_id(16)}"}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        if error.type == "exceed_context_size_error":
            # llama.cpp's body, with the prompt size and context size when the message names them.
            details: JsonObject = {"code": error.status, "message": error.message, "type": error.type}
            numbers = [int(n) for n in re.findall(r"\((\d+) tokens\)", error.message)]
            if len(numbers) == 2:
                details["n_prompt_tokens"], details["n_ctx"] = numbers
            return orjson.dumps({"error": details})
        return orjson.dumps({"error": _error_object(error)})


def _error_object(error: HTTPErrorSpec) -> JsonObject:
    # error.type and error.code when the script names neither
    default_type, default_code = error_kind(error.status)
    error_type: str
    code: str | None
    if error.type is not None and error.type in _CODE_TYPES:
        error_type, code = _CODE_TYPES[error.type], error.type
    elif error.type is not None:
        error_type, code = error.type, default_code
    else:
        error_type, code = default_type, default_code
        if error.status == 400 and _CONTEXT_LENGTH.search(error.message):
            code = "context_length_exceeded"
    return {"message": error.message, "type": error_type, "param": None, "code": code}


PROTOCOL = OpenAICompletionsProtocol()
