"""``pi-messages`` (Pi's own protocol) over real HTTP against the fake gateway."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from _streams import collect

from pi_harness.ai import api
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.pi_messages import PiMessagesOptions, stream
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.types import Context, Model
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)

API = "pi-messages"


def context() -> Context:
    return {
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": "Hello", "timestamp": 1}],
        "tools": [{"name": "read", "description": "Read", "parameters": {"type": "object"}}],
    }


def gateway_model(server: FakeLLMServer, **overrides: Any) -> Model:
    return server.model(API, model_id="claude-sonnet-4", provider="radius", **overrides)


def opts(**kwargs: Any) -> PiMessagesOptions:
    return PiMessagesOptions(**{"api_key": "gw-key", **kwargs})


async def test_request_is_model_context_and_set_options() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        model = gateway_model(server, headers={"X-Model-Header": "not sent"})
        options = opts(session_id="s-1", max_tokens=200, headers={"X-Caller": "1"}, debug=True)
        _, message = await collect(stream(model, context(), options))
        request = server.requests[0]
    assert message["stopReason"] == "stop" and message["api"] == API
    assert (request.path, request.query) == ("/pi/messages", "debug=1")
    assert request.headers["authorization"] == "Bearer gw-key"
    assert request.headers["x-caller"] == "1" and "x-model-header" not in request.headers
    assert request.json == {
        "model": "claude-sonnet-4",
        "context": context(),
        "options": {"maxTokens": 200, "sessionId": "s-1"},
    }


async def test_reasoning_and_long_cache_retention_through_the_public_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        await collect(
            api.stream_simple(gateway_model(server), context(), SimpleStreamOptions(api_key="k", reasoning="high"))
        )
        sent = server.requests[0].json["options"]
    assert sent["reasoning"] == "high" and sent["cacheRetention"] == "long"


async def test_events_rebuild_the_message_with_the_gateways_usage() -> None:
    script = ScriptedResponse(
        steps=[
            ThinkingStep("Plan.", signature="sig-1"),
            TextStep("Reading.", chunks=2),
            ToolCallStep("read", {"path": "a.txt"}, id="toolu_1", chunks=3),
        ],
        usage={"input": 1000, "output": 500, "cacheRead": 2000, "cacheWrite": 100},
        response_id="msg_gw_1",
    )
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gateway_model(server), context(), opts()))
    assert [e["type"] for e in events] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    thinking, text, call = message["content"]
    assert thinking == {"type": "thinking", "thinking": "Plan.", "thinkingSignature": "sig-1"}
    assert text == {"type": "text", "text": "Reading."}
    assert call == {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.txt"}}
    assert message["stopReason"] == "toolUse" and message["responseId"] == "msg_gw_1"
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"], usage["totalTokens"]) == (
        1000,
        500,
        2000,
        100,
        3600,
    )
    assert usage["cost"]["total"] == pytest.approx(0.001 + 0.001 + 0.0002 + 0.000125)


async def test_error_event_keeps_partial_content_and_classifies() -> None:
    overflow = "prompt is too long: 210000 tokens > 200000 maximum"
    script = ScriptedResponse(steps=[TextStep("partial")], stream_error=HTTPErrorSpec(400, overflow))
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gateway_model(server), context(), opts()))
    assert events[-1]["type"] == "error"
    assert message["errorMessage"] == overflow
    assert message["content"][0]["text"] == "partial"  # type: ignore[typeddict-item]
    assert is_context_overflow(message)


async def test_http_errors_read_status_phrase_message_and_code() -> None:
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(429, "Rate limit exceeded")),
        ScriptedResponse(http_error=HTTPErrorSpec(503, "Upstream overloaded", type="overloaded")),
        ScriptedResponse(http_error=HTTPErrorSpec(404, "Unknown model claude-sonnet-4")),
        ScriptedResponse(http_error=HTTPErrorSpec(500, "", body="plain failure")),
    ]
    with FakeLLMServer(scripts) as server:
        texts = [(await collect(stream(gateway_model(server), context(), opts())))[1]["errorMessage"] for _ in scripts]
    assert texts == [
        "429 Too Many Requests: Rate limit exceeded (rate_limited)",
        "503 Service Unavailable: Upstream overloaded (overloaded)",
        "404 Not Found: Unknown model claude-sonnet-4 (model_not_found)",
        "500 Internal Server Error: plain failure",
    ]
    assert [is_retryable_error_message(t) for t in texts] == [True, True, False, True]


async def test_missing_key_and_missing_terminal_event() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("abc", chunks=3)], drop_after=3)]) as server:
        _, no_key = await collect(stream(gateway_model(server), context(), PiMessagesOptions(api_key="")))
        assert server.requests == []
        _, cut = await collect(stream(gateway_model(server), context(), opts()))
    assert no_key["errorMessage"] == 'No API key provided for provider "radius"'
    assert cut["stopReason"] == "error" and is_retryable_error_message(cut["errorMessage"])


def test_fake_gateway_wants_a_bearer_token() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")])]) as server:
        response = httpx2.post(server.base_url(API) + "/messages", json={"model": "m"})
        assert server.pending == 1
    assert response.status_code == 401
    assert response.json() == {"error": {"message": "Missing bearer token", "code": "unauthorized"}}
