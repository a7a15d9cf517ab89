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

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, TextStep, ThinkingStep, ToolCallStep
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter, sse_frame

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


def _frame(event: str, data: JsonObject) -> bytes:
    return sse_frame(orjson.dumps(data), event)


# The service writes its keep-alive with a space after the colon; kept byte-for-byte.
_PING = b'event: ping\ndata: {"type": "ping"}\n\n'


def _error_type(status: int) -> str:
    if status in ERROR_TYPES:
        return ERROR_TYPES[status]
    return "api_error" if status >= 500 else "invalid_request_error"


class _Blocks(StepWriter[bytes]):
    """``message_start``, each step as one content block at the step's index, ``message_delta``
    with the stop reason and output usage, ``message_stop``."""

    def encode(self) -> list[bytes]:
        response = self.response
        model = self.request.json.get("model")
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
                        "model": model if isinstance(model, str) else "fake-model",
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
        frames.extend(self.steps())
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
        delta_usage: JsonObject = {"output_tokens": output_tokens}
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

    def text(self, step: TextStep, index: int) -> list[bytes]:
        deltas: list[JsonObject] = [{"type": "text_delta", "text": piece} for piece in self.deltas(step)]
        return self._block(index, {"type": "text", "text": ""}, deltas)

    def thinking(self, step: ThinkingStep, index: int) -> list[bytes]:
        if step.redacted:
            return self._block(index, {"type": "redacted_thinking", "data": step.signature or ""}, [])
        deltas: list[JsonObject] = [{"type": "thinking_delta", "thinking": piece} for piece in self.deltas(step)]
        if step.signature:
            deltas.append({"type": "signature_delta", "signature": step.signature})
        return self._block(index, {"type": "thinking", "thinking": "", "signature": ""}, deltas)

    def tool_call(self, step: ToolCallStep, index: int) -> list[bytes]:
        start: JsonObject = {"type": "tool_use", "id": step.id or _random_id("toolu_"), "name": step.name, "input": {}}
        # The service opens every tool input with an empty fragment.
        deltas: list[JsonObject] = [{"type": "input_json_delta", "partial_json": ""}]
        deltas.extend({"type": "input_json_delta", "partial_json": piece} for piece in self.argument_deltas(step))
        return self._block(index, start, deltas)

    @staticmethod
    def _block(index: int, start: JsonObject, deltas: list[JsonObject]) -> list[bytes]:
        frames = [
            _frame("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        ]
        if index == 0:  # the keep-alive follows the first block's start
            frames.append(_PING)
        frames.extend(
            _frame("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            for delta in deltas
        )
        frames.append(_frame("content_block_stop", {"type": "content_block_stop", "index": index}))
        return frames


class AnthropicProtocol(ScriptedProtocol):
    api = "anthropic-messages"
    writer = _Blocks
    retry_after_429 = "1"

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {"request-id": _random_id("req_")}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        body: JsonObject = {
            "type": "error",
            "error": {"type": error.type or _error_type(error.status), "message": error.message},
            "request_id": headers["request-id"],
        }
        return orjson.dumps(body)


PROTOCOL = AnthropicProtocol()
