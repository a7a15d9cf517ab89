"""Anthropic Messages streaming, as the fake server speaks it (``POST /v1/messages``).

The frames follow the documented event sequence: ``message_start`` (message id ``msg_…`` and
input/cache usage), then per content block ``content_block_start`` / ``content_block_delta`` /
``content_block_stop`` (a ``ping`` after the first block start), ``message_delta`` with the stop
reason and output usage, and ``message_stop``. Errors use Anthropic's body
``{"type":"error","error":{"type":…,"message":…},"request_id":…}``; a mid-stream failure is an
``event: error`` frame.

Script usage keys: ``input``, ``output``, ``cacheRead``, ``cacheWrite`` (plus ``cacheWrite1h``, the
part of ``cacheWrite`` written with the one-hour TTL) go to ``message_start``; ``message_delta``
carries ``output_tokens`` only, as in Anthropic's documented stream, and ``reasoning`` as
``output_tokens_details.thinking_tokens`` when the script gives it. A 429 gets ``retry-after: 1``
unless the script sets the header (tests of retries use ``"0"``).
"""

from __future__ import annotations

import secrets
import string
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

_ALPHABET = string.ascii_letters + string.digits

_NATIVE_STOP = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use", "error": "refusal"}

# Error ``type`` Anthropic uses for each HTTP status.
ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _random_id(prefix: str) -> str:
    return prefix + "01" + "".join(secrets.choice(_ALPHABET) for _ in range(22))


def _frame(event: str, data: dict[str, Any]) -> bytes:
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


# The service writes its keep-alive with a space after the colon; kept byte-for-byte.
_PING = b'event: ping\ndata: {"type": "ping"}\n\n'


def _error_type(status: int) -> str:
    if status in ERROR_TYPES:
        return ERROR_TYPES[status]
    return "api_error" if status >= 500 else "invalid_request_error"


class AnthropicProtocol:
    api = "anthropic-messages"

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        body = request.json
        model = body.get("model") if isinstance(body.get("model"), str) else "fake-model"
        usage = response.usage
        cache_write = int(usage.get("cacheWrite", 0))
        cache_write_1h = min(int(usage.get("cacheWrite1h", 0)), cache_write)
        output_tokens = int(usage.get("output", 0))
        frames = [
            _frame(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": response.response_id or _random_id("msg_"),
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": int(usage.get("input", 0)),
                            "cache_creation_input_tokens": cache_write,
                            "cache_read_input_tokens": int(usage.get("cacheRead", 0)),
                            "cache_creation": {
                                "ephemeral_5m_input_tokens": cache_write - cache_write_1h,
                                "ephemeral_1h_input_tokens": cache_write_1h,
                            },
                            "output_tokens": min(1, output_tokens),
                            "service_tier": "standard",
                        },
                    },
                },
            )
        ]
        for index, step in enumerate(response.steps):
            block = self._block(index, step)
            if index == 0:  # the keep-alive follows the first block's start
                block.insert(1, _PING)
            frames.extend(block)
        if not response.steps:
            frames.append(_PING)
        if response.stream_error is not None:
            error = response.stream_error
            frames.append(
                _frame(
                    "error",
                    {"type": "error", "error": {"type": error.type or "overloaded_error", "message": error.message}},
                )
            )
            return frames
        delta_usage: dict[str, Any] = {"output_tokens": output_tokens}
        if "reasoning" in usage:
            delta_usage["output_tokens_details"] = {"thinking_tokens": int(usage["reasoning"])}
        frames.append(
            _frame(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": response.native_stop or _NATIVE_STOP[response.resolved_stop],
                        "stop_sequence": None,
                    },
                    "usage": delta_usage,
                },
            )
        )
        frames.append(_frame("message_stop", {"type": "message_stop"}))
        return frames

    def _block(self, index: int, step: TextStep | ThinkingStep | ToolCallStep) -> list[bytes]:
        frames: list[bytes] = []

        def delta(payload: dict[str, Any]) -> None:
            frames.append(
                _frame("content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload})
            )

        def start(block: dict[str, Any]) -> None:
            frames.append(
                _frame(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": block},
                )
            )

        if isinstance(step, TextStep):
            start({"type": "text", "text": ""})
            for piece in split_text(step.text, step.chunks):
                delta({"type": "text_delta", "text": piece})
        elif isinstance(step, ThinkingStep) and step.redacted:
            start({"type": "redacted_thinking", "data": step.signature or ""})
        elif isinstance(step, ThinkingStep):
            start({"type": "thinking", "thinking": "", "signature": ""})
            for piece in split_text(step.text, step.chunks):
                delta({"type": "thinking_delta", "thinking": piece})
            if step.signature:
                delta({"type": "signature_delta", "signature": step.signature})
        else:
            start({"type": "tool_use", "id": step.id or _random_id("toolu_"), "name": step.name, "input": {}})
            # The service opens every tool input with an empty fragment.
            delta({"type": "input_json_delta", "partial_json": ""})
            for piece in split_text(arguments_json(step), step.chunks):
                delta({"type": "input_json_delta", "partial_json": piece})
        frames.append(_frame("content_block_stop", {"type": "content_block_stop", "index": index}))
        return frames

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        request_id = _random_id("req_")
        headers = {"request-id": request_id}
        if error.status == 429:
            headers["retry-after"] = "1"  # scripts override it, e.g. "0" for fast retry tests
        if error.body is not None:
            return error.status, headers, error.body.encode("utf-8")
        body = {
            "type": "error",
            "error": {"type": error.type or _error_type(error.status), "message": error.message},
            "request_id": request_id,
        }
        return error.status, headers, orjson.dumps(body)


PROTOCOL = AnthropicProtocol()
