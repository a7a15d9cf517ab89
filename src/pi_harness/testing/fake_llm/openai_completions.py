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

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
_FINISH = {"stop": "stop", "length": "length", "toolUse": "tool_calls", "error": "content_filter"}
_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

# status -> (error.type, error.code) when the script names neither
_DEFAULT_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
    529: ("server_error", "overloaded"),
}
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


def _frame(payload: Any) -> bytes:
    return b"data: " + orjson.dumps(payload) + b"\n\n"


class OpenAICompletionsProtocol:
    api = "openai-completions"

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        body = request.json
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        base: dict[str, Any] = {
            "id": response.response_id or f"chatcmpl-{_random_id(29)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": str(body.get("model") or "fake-model"),
            "service_tier": "default",
            "system_fingerprint": "fp_fake0llm0",
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            payload: dict[str, Any] = {
                **base,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
            if include_usage:
                payload["usage"] = None
            return _frame(payload)

        frames = [chunk({"role": "assistant", "content": "", "refusal": None})]
        tool_index = 0
        for step in response.steps:
            if isinstance(step, TextStep):
                frames.extend(chunk({"content": piece}) for piece in split_text(step.text, step.chunks))
            elif isinstance(step, ThinkingStep):
                if step.redacted:
                    continue  # Chat Completions has no redacted reasoning
                field = step.signature if step.signature in REASONING_FIELDS else "reasoning_content"
                frames.extend(chunk({"content": None, field: piece}) for piece in split_text(step.text, step.chunks))
            elif isinstance(step, ToolCallStep):
                frames.extend(self._tool_call_chunks(step, tool_index, chunk))
                tool_index += 1
        if response.stream_error is not None:
            frames.append(self._stream_error(response.stream_error))
            return frames
        finish = response.native_stop or _FINISH[response.resolved_stop]
        frames.append(chunk({}, finish))
        if include_usage:
            frames.append(_frame({**base, "choices": [], "usage": self.usage(response.usage)}))
        frames.append(b"data: [DONE]\n\n")
        return frames

    @staticmethod
    def _tool_call_chunks(step: ToolCallStep, index: int, chunk: Any) -> list[bytes]:
        call_id = step.id or f"call_{_random_id(24)}"
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": step.name, "arguments": ""},
        }
        frames = [chunk({"tool_calls": [first]})]
        for piece in split_text(arguments_json(step), step.chunks):
            frames.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        return frames

    @staticmethod
    def usage(usage: dict[str, int]) -> dict[str, Any]:
        """OpenAI counts cached (and gateway cache-write) tokens inside ``prompt_tokens`` and
        reasoning tokens inside ``completion_tokens``."""
        cache_read = usage.get("cacheRead", 0)
        cache_write = usage.get("cacheWrite", 0)
        prompt = usage.get("input", 0) + cache_read + cache_write
        completion = usage.get("output", 0)
        prompt_details: dict[str, int] = {"cached_tokens": cache_read, "audio_tokens": 0}
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

    @staticmethod
    def _stream_error(error: HTTPErrorSpec) -> bytes:
        if error.body is not None:
            return b"data: " + error.body.encode("utf-8") + b"\n\n"
        return _frame({"error": _error_object(error)})

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        headers = {"x-request-id": f"req_{_random_id(16)}"}
        if error.body is not None:
            return error.status, headers, error.body.encode("utf-8")
        if error.type == "exceed_context_size_error":
            payload: dict[str, Any] = {"error": {"code": error.status, "message": error.message, "type": error.type}}
            numbers = [int(n) for n in re.findall(r"\((\d+) tokens\)", error.message)]
            if len(numbers) == 2:
                payload["error"]["n_prompt_tokens"], payload["error"]["n_ctx"] = numbers
            return error.status, headers, orjson.dumps(payload)
        return error.status, headers, orjson.dumps({"error": _error_object(error)})


def _error_object(error: HTTPErrorSpec) -> dict[str, Any]:
    default_type, default_code = _DEFAULT_ERRORS.get(
        error.status, ("server_error" if error.status >= 500 else "invalid_request_error", None)
    )
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
