"""Pi's own protocol (``pi-messages``: ``POST …/messages`` with ``{model, context, options}``) as
a gateway would speak it. The fake serves it under ``/pi`` (``baseUrl``
``http://127.0.0.1:<port>/pi``), apart from Anthropic's ``/messages``.

Each ``data:`` line is one of Pi's assistant-message events without ``partial``:

    {"type": "start"}
    text      text_start · text_delta… · text_end {"content"}
    thinking  thinking_start · thinking_delta… · thinking_end {"content", "contentSignature"?, "redacted"?}
    tool call toolcall_start {"id", "toolName"} · toolcall_delta… · toolcall_end {"toolCall"}
    done {"reason", "usage"}  or, for a ``stream_error``, error {"reason": "error", "usage", "errorMessage"}

Usage is priced as a gateway would, at the fake's list prices (the defaults of
``FakeLLMServer.model``: $1 / $2 / $0.10 / $1.25 per million input / output / cache-read /
cache-write tokens). ``native_stop`` is sent as ``reason`` verbatim. A request without a bearer
token gets 401; errors are ``{"error": {"message", "code"}}``.
"""

from __future__ import annotations

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest, TextStep, ThinkingStep, ToolCallStep
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter, sse_frame

PRICES = {"input": 1.0, "output": 2.0, "cacheRead": 0.1, "cacheWrite": 1.25}  # $ per million tokens
_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "model_not_found", 429: "rate_limited"}


def _event(payload: JsonObject) -> bytes:
    return sse_frame(orjson.dumps(payload))


class _Events(StepWriter[bytes]):
    def text(self, step: TextStep, index: int) -> list[bytes]:
        return [
            _event({"type": "text_start", "contentIndex": index}),
            *(_event({"type": "text_delta", "contentIndex": index, "delta": piece}) for piece in self.deltas(step)),
            _event({"type": "text_end", "contentIndex": index, "content": step.text}),
        ]

    def thinking(self, step: ThinkingStep, index: int) -> list[bytes]:
        end: JsonObject = {"type": "thinking_end", "contentIndex": index, "content": step.text}
        if step.signature is not None:
            end["contentSignature"] = step.signature
        if step.redacted:
            end["redacted"] = True
        return [
            _event({"type": "thinking_start", "contentIndex": index}),
            *(_event({"type": "thinking_delta", "contentIndex": index, "delta": piece}) for piece in self.deltas(step)),
            _event(end),
        ]

    def tool_call(self, step: ToolCallStep, index: int) -> list[bytes]:
        call_id = step.id or f"call_{index}"
        call: JsonObject = {"type": "toolCall", "id": call_id, "name": step.name, "arguments": step.arguments}
        return [
            _event({"type": "toolcall_start", "contentIndex": index, "id": call_id, "toolName": step.name}),
            *(
                _event({"type": "toolcall_delta", "contentIndex": index, "delta": piece})
                for piece in self.argument_deltas(step)
            ),
            _event({"type": "toolcall_end", "contentIndex": index, "toolCall": call}),
        ]

    def usage(self) -> JsonObject:
        counts = {name: self.response.usage.get(name, 0) for name in ("input", "output", "cacheRead", "cacheWrite")}
        cost: JsonObject = {name: PRICES[name] * counts[name] / 1_000_000 for name in counts}
        cost["total"] = sum(PRICES[name] * counts[name] / 1_000_000 for name in counts)
        return {**counts, "totalTokens": sum(counts.values()), "cost": cost}

    def encode(self) -> list[bytes]:
        frames = [_event({"type": "start"}), *self.steps()]
        error = self.response.stream_error
        if error is not None:
            frames.append(
                _event({"type": "error", "reason": "error", "usage": self.usage(), "errorMessage": error.message})
            )
            return frames
        done: JsonObject = {
            "type": "done",
            "reason": self.response.native_stop or self.response.resolved_stop,
            "usage": self.usage(),
        }
        if self.response.response_id:
            done["responseId"] = self.response.response_id
        frames.append(_event(done))
        return frames


class PiMessagesProtocol(ScriptedProtocol):
    api = "pi-messages"
    writer = _Events

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        if not request.headers.get("authorization", "").removeprefix("Bearer ").strip():
            return HTTPErrorSpec(401, "Missing bearer token")
        return None

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        code = error.type or _CODES.get(error.status, "server_error" if error.status >= 500 else "bad_request")
        return orjson.dumps({"error": {"message": error.message, "code": code}})


PROTOCOL = PiMessagesProtocol()
