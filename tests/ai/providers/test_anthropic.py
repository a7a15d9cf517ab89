"""The ``anthropic-messages`` provider over real HTTP against the fake LLM server."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import httpx2
import orjson
import pytest

from pi_harness.ai.abort import AbortController
from pi_harness.ai.api import complete_simple
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.anthropic import (
    PROVIDER,
    AnthropicOptions,
    stream_anthropic,
    stream_simple_anthropic,
)
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, Message
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)

API = "anthropic-messages"
READ_TOOL = {
    "name": "read",
    "description": "Read a file",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    },
}


def context(text: str = "Hello", **extra: Any) -> Context:
    ctx: Context = {"messages": [{"role": "user", "content": text, "timestamp": 1}]}
    ctx.update(extra)  # type: ignore[typeddict-item]
    return ctx


def options(**kwargs: Any) -> AnthropicOptions:
    kwargs.setdefault("api_key", "test-key")
    return AnthropicOptions(**kwargs)


async def collect(stream: AssistantMessageEventStream) -> list[dict[str, Any]]:
    return [event async for event in stream]  # type: ignore[misc]


def event_types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


# --- content --------------------------------------------------------------------------------------


async def test_text_response_events_request_and_result() -> None:
    script = ScriptedResponse(steps=[TextStep("Hello there!", chunks=3)], response_id="msg_01TextAnswer")
    with FakeLLMServer([script]) as server:
        model = server.model(API)
        stream = stream_anthropic(model, context("Hi"), options())
        events = await collect(stream)
        result = await stream.result()

    assert event_types(events) == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert "".join(e["delta"] for e in events if e["type"] == "text_delta") == "Hello there!"
    assert events[-1]["reason"] == "stop"
    assert result["content"] == [{"type": "text", "text": "Hello there!"}]
    assert result["stopReason"] == "stop"
    assert result["responseId"] == "msg_01TextAnswer"
    assert (result["api"], result["provider"], result["model"]) == (API, "fake", "fake-model")
    assert "errorMessage" not in result

    request = server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "test-key"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert "anthropic-beta" not in request.headers  # no tools, no thinking
    body = request.json
    assert body["model"] == "fake-model"
    assert body["stream"] is True
    assert body["max_tokens"] == 16_384  # raw stream default: the model maximum, as in Pi
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}
    ]
    assert "system" not in body and "tools" not in body and "thinking" not in body


async def test_thinking_with_signature_and_redacted_thinking() -> None:
    script = ScriptedResponse(
        steps=[
            ThinkingStep("Let me think.", chunks=2, signature="EqQBsig=="),
            ThinkingStep("", redacted=True, signature="EmwKAhgBredacted"),
            TextStep("Answer"),
        ]
    )
    with FakeLLMServer([script]) as server:
        stream = stream_anthropic(server.model(API), context(), options())
        events = await collect(stream)
        result = await stream.result()

    assert event_types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert result["content"][0] == {"type": "thinking", "thinking": "Let me think.", "thinkingSignature": "EqQBsig=="}
    assert result["content"][1] == {
        "type": "thinking",
        "thinking": "[Reasoning redacted]",
        "thinkingSignature": "EmwKAhgBredacted",
        "redacted": True,
    }
    assert events[6]["content"] == "[Reasoning redacted]"
    assert result["content"][2] == {"type": "text", "text": "Answer"}


async def test_single_tool_call_with_growing_partial_arguments() -> None:
    arguments = {"path": "src/main.py", "limit": 20}
    script = ScriptedResponse(steps=[ToolCallStep("read", arguments, id="toolu_01Read", chunks=4)], chunk_delay_ms=3)
    with FakeLLMServer([script]) as server:
        stream = stream_anthropic(server.model(API), context(tools=[READ_TOOL]), options())
        snapshots: list[dict[str, Any]] = []
        deltas: list[str] = []
        events = []
        async for event in stream:
            events.append(event)
            if event["type"] == "toolcall_delta":
                deltas.append(event["delta"])
                snapshots.append(copy.deepcopy(event["partial"]["content"][event["contentIndex"]]["arguments"]))
        result = await stream.result()

    assert event_types(events) == ["start", "toolcall_start"] + ["toolcall_delta"] * 5 + ["toolcall_end", "done"]
    assert deltas[0] == ""  # the service opens every tool input with an empty fragment
    assert "".join(deltas) == orjson.dumps(arguments).decode()
    assert snapshots[-1] == arguments
    assert any(snap and snap != arguments for snap in snapshots)  # a strict prefix was visible mid-stream
    sizes = [len(orjson.dumps(snap)) for snap in snapshots]
    assert sizes == sorted(sizes)
    end = events[-2]
    assert end["toolCall"] == {"type": "toolCall", "id": "toolu_01Read", "name": "read", "arguments": arguments}
    assert result["stopReason"] == "toolUse"
    assert events[-1]["reason"] == "toolUse"
    # Arguments stream eagerly per tool, so the fine-grained-tool-streaming beta is not asked for.
    assert "anthropic-beta" not in server.requests[0].headers
    assert server.requests[0].json["tools"][0]["eager_input_streaming"] is True


async def test_several_tool_calls_after_text() -> None:
    script = ScriptedResponse(
        steps=[
            TextStep("Reading both."),
            ToolCallStep("read", {"path": "a.txt"}, id="toolu_A", chunks=3),
            ToolCallStep("read", {"path": "b.txt", "limit": 5}, id="toolu_B", chunks=5),
        ]
    )
    with FakeLLMServer([script]) as server:
        stream = stream_anthropic(server.model(API), context(tools=[READ_TOOL]), options())
        events = await collect(stream)
        result = await stream.result()

    calls = [block for block in result["content"] if block["type"] == "toolCall"]
    assert calls == [
        {"type": "toolCall", "id": "toolu_A", "name": "read", "arguments": {"path": "a.txt"}},
        {"type": "toolCall", "id": "toolu_B", "name": "read", "arguments": {"path": "b.txt", "limit": 5}},
    ]
    ends = [e for e in events if e["type"] == "toolcall_end"]
    assert [e["contentIndex"] for e in ends] == [1, 2]
    for block in result["content"]:  # no streaming scratch fields survive
        assert set(block) <= {"type", "text", "id", "name", "arguments"}
    assert result["stopReason"] == "toolUse"


# --- usage ----------------------------------------------------------------------------------------


async def test_usage_cache_fields_and_cost() -> None:
    usage = {"input": 1000, "output": 500, "cacheRead": 200, "cacheWrite": 300, "cacheWrite1h": 100, "reasoning": 120}
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")], usage=usage)]) as server:
        model = server.model(
            API, cost={"input": 1.0, "output": 2.0, "cacheRead": 0.1, "cacheWrite": 1.25, "cacheWrite1h": 2.0}
        )
        result = await stream_anthropic(model, context(), options()).result()

    got = result["usage"]
    assert (got["input"], got["output"], got["cacheRead"], got["cacheWrite"]) == (1000, 500, 200, 300)
    assert got["cacheWrite1h"] == 100
    assert got["reasoning"] == 120
    assert got["totalTokens"] == 2000
    cost = got["cost"]
    assert cost["input"] == pytest.approx(0.001)
    assert cost["output"] == pytest.approx(0.001)
    assert cost["cacheRead"] == pytest.approx(0.00002)
    assert cost["cacheWrite"] == pytest.approx((200 * 1.25 + 100 * 2.0) / 1e6)
    assert cost["total"] == pytest.approx(0.001 + 0.001 + 0.00002 + 0.00045)


# --- stop reasons ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "stop", "message"),
    [
        ("end_turn", "stop", None),
        ("pause_turn", "stop", None),
        ("stop_sequence", "stop", None),
        ("max_tokens", "length", None),
        ("tool_use", "toolUse", None),
        ("refusal", "error", "An unknown error occurred"),
        ("sensitive", "error", "An unknown error occurred"),
        ("brand_new_reason", "error", "Unhandled stop reason: brand_new_reason"),
    ],
)
async def test_native_stop_reason_mapping(native: str, stop: str, message: str | None) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("partial")], native_stop=native)]) as server:
        stream = stream_anthropic(server.model(API), context(), options())
        events = await collect(stream)
        result = await stream.result()
    assert result["stopReason"] == stop
    assert result.get("errorMessage") == message
    assert events[-1]["type"] == ("error" if stop == "error" else "done")
    assert result["content"][0]["text"] == "partial"


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "error_type", "overflow", "retryable"),
    [
        (HTTPErrorSpec(401, "invalid x-api-key"), "authentication_error", False, False),
        (
            HTTPErrorSpec(400, "prompt is too long: 210000 tokens > 200000 maximum"),
            "invalid_request_error",
            True,
            False,
        ),
        (
            HTTPErrorSpec(429, "Number of request tokens has exceeded your per-minute rate limit"),
            "rate_limit_error",
            False,
            True,
        ),
        (HTTPErrorSpec(500, "Internal server error"), "api_error", False, True),
        (HTTPErrorSpec(529, "Overloaded"), "overloaded_error", False, True),
    ],
)
async def test_http_errors_become_classified_error_events(
    spec: HTTPErrorSpec, error_type: str, overflow: bool, retryable: bool
) -> None:
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        stream = stream_anthropic(server.model(API), context(), options())
        events = await collect(stream)
        result = await stream.result()

    assert event_types(events) == ["error"]
    assert events[0]["reason"] == "error"
    assert result["stopReason"] == "error"
    message = result["errorMessage"]
    prefix = f'{spec.status} {{"type":"error","error":{{"type":"{error_type}","message":"{spec.message}"}}'
    assert message.startswith(prefix), message
    assert is_context_overflow(result, 200_000) is overflow
    assert is_retryable_error_message(message) is retryable


async def test_rate_limit_carries_retry_after_header() -> None:
    seen: list[tuple[int, dict[str, str]]] = []
    spec = HTTPErrorSpec(429, "rate limited", headers={"retry-after": "7"})
    with FakeLLMServer([ScriptedResponse(http_error=spec), ScriptedResponse(http_error=HTTPErrorSpec(429, "x"))]) as s:
        opts = options(on_response=lambda status, headers: seen.append((status, dict(headers))))
        first = await stream_anthropic(s.model(API), context(), opts).result()
        await stream_anthropic(s.model(API), context(), opts).result()
    assert first["stopReason"] == "error"
    assert [status for status, _ in seen] == [429, 429]
    assert seen[0][1]["retry-after"] == "7"
    assert seen[1][1]["retry-after"] == "1"  # the fake's default for rate limits
    assert seen[0][1]["request-id"].startswith("req_")


async def test_provider_level_retry_after_rate_limit() -> None:
    responses = [
        ScriptedResponse(http_error=HTTPErrorSpec(429, "rate limited", headers={"retry-after": "0"})),
        ScriptedResponse(steps=[TextStep("second time lucky")]),
    ]
    with FakeLLMServer(responses) as server:
        stream = stream_anthropic(server.model(API), context(), options(max_retries=1))
        events = await collect(stream)
        result = await stream.result()
    assert result["stopReason"] == "stop"
    assert result["content"] == [{"type": "text", "text": "second time lucky"}]
    assert len(server.requests) == 2
    assert event_types(events).count("start") == 1


async def test_in_stream_error_event_keeps_partial_content() -> None:
    script = ScriptedResponse(
        steps=[TextStep("Half an ans")], stream_error=HTTPErrorSpec(529, "Overloaded", type="overloaded_error")
    )
    with FakeLLMServer([script]) as server:
        stream = stream_anthropic(server.model(API), context(), options())
        events = await collect(stream)
        result = await stream.result()

    assert event_types(events) == ["start", "text_start"] + ["text_delta"] * 3 + ["text_end", "error"]
    assert result["stopReason"] == "error"
    assert result["errorMessage"] == '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    assert is_retryable_error_message(result["errorMessage"])
    assert result["content"] == [{"type": "text", "text": "Half an ans"}]
    assert result["usage"]["input"] == 10  # from message_start


async def test_dropped_connection_is_a_retryable_error() -> None:
    # message_start, content_block_start, ping, one text delta, then the socket is cut.
    script = ScriptedResponse(steps=[TextStep("abcdef", chunks=3)], drop_after=4)
    with FakeLLMServer([script]) as server:
        stream = stream_anthropic(server.model(API), context(), options())
        events = await collect(stream)
        result = await stream.result()
    assert events[-1]["type"] == "error"
    assert result["stopReason"] == "error"
    assert result["content"] == [{"type": "text", "text": "ab"}]
    assert is_retryable_error_message(result["errorMessage"]), result["errorMessage"]


async def test_abort_mid_stream_keeps_partial_text_and_input_usage() -> None:
    script = ScriptedResponse(steps=[TextStep("one two three four five six", chunks=6)], chunk_delay_ms=40)
    with FakeLLMServer([script]) as server:
        controller = AbortController()
        stream = stream_anthropic(server.model(API), context(), options(signal=controller.signal))
        events = []
        async for event in stream:
            events.append(event)
            if event["type"] == "text_delta":
                controller.abort()
        result = await stream.result()
        for _ in range(100):
            if server.cancelled_streams:
                break
            await asyncio.sleep(0.02)
        cancelled = server.cancelled_streams

    assert events[-1]["type"] == "error"
    assert events[-1]["reason"] == "aborted"
    assert result["stopReason"] == "aborted"
    assert result["errorMessage"] == "This operation was aborted"  # as Pi words an abort mid-body
    assert result["content"] == [{"type": "text", "text": "one t"}]
    assert result["usage"]["input"] == 10
    assert result["usage"]["cost"]["input"] > 0
    assert cancelled == 1


async def test_already_aborted_signal_sends_nothing() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        controller = AbortController()
        controller.abort()
        stream = stream_anthropic(server.model(API), context(), options(signal=controller.signal))
        events = await collect(stream)
        result = await stream.result()
        requests = len(server.requests)
    assert event_types(events) == ["error"]
    assert result["stopReason"] == "aborted"
    assert requests == 0


# --- request body ---------------------------------------------------------------------------------


def _foreign_assistant() -> AssistantMessage:
    return {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Plan: read two files.", "thinkingSignature": "rs_foreign"},
            {"type": "text", "text": "I will read them.", "textSignature": "msg_foreign"},
            {
                "type": "toolCall",
                "id": "call_abc|fc_123",
                "name": "read",
                "arguments": {"path": "a.png"},
                "thoughtSignature": "opaque",
            },
            {"type": "toolCall", "id": "call_2+x", "name": "read", "arguments": {"path": "missing"}},
        ],
        "api": "openai-responses",
        "provider": "openai",
        "model": "gpt-5",
        "usage": {
            "input": 1,
            "output": 1,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 2,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "toolUse",
        "timestamp": 2,
    }


def _history(model_id: str) -> list[Message]:
    own = copy.deepcopy(_foreign_assistant())
    own.update(api=API, provider="fake", model=model_id, stopReason="stop")
    own["content"] = [
        {"type": "thinking", "thinking": "Own reasoning.", "thinkingSignature": "sig-own"},
        {
            "type": "thinking",
            "thinking": "[Reasoning redacted]",
            "thinkingSignature": "redacted-data",
            "redacted": True,
        },
        {"type": "text", "text": "Both read."},
    ]
    failed = copy.deepcopy(own)
    failed.update(stopReason="error", errorMessage="boom")
    failed["content"] = [{"type": "text", "text": "half"}]
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image", "data": "iVBORw0", "mimeType": "image/png"},
            ],
            "timestamp": 1,
        },
        _foreign_assistant(),
        {
            "role": "toolResult",
            "toolCallId": "call_abc|fc_123",
            "toolName": "read",
            "content": [
                {"type": "text", "text": "an image"},
                {"type": "image", "data": "R0lGOD", "mimeType": "image/gif"},
            ],
            "isError": False,
            "timestamp": 3,
        },
        {
            "role": "toolResult",
            "toolCallId": "call_2+x",
            "toolName": "read",
            "content": [{"type": "text", "text": "ENOENT"}],
            "isError": True,
            "timestamp": 4,
        },
        own,
        failed,
        {"role": "user", "content": "Continue \ud800please", "timestamp": 5},
    ]


async def test_request_body_with_system_tools_and_cross_provider_history() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model(API)
        ctx: Context = {"systemPrompt": "You are terse.", "messages": _history("fake-model"), "tools": [READ_TOOL]}
        result = await stream_anthropic(model, ctx, options(temperature=0.2, metadata={"user_id": "u-1"})).result()
    assert result["stopReason"] == "stop"
    body = server.requests[0].json

    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read a file",
            "eager_input_streaming": True,
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            },
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert body["temperature"] == 0.2
    assert body["metadata"] == {"user_id": "u-1"}
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                # another model's reasoning is dropped, as in Pi 1.4.0
                {"type": "text", "text": "I will read them."},
                {"type": "tool_use", "id": "call_abc_fc_123", "name": "read", "input": {"path": "a.png"}},
                {"type": "tool_use", "id": "call_2_x", "name": "read", "input": {"path": "missing"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_abc_fc_123",
                    "content": [
                        {"type": "text", "text": "an image"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGOD"}},
                    ],
                    "is_error": False,
                },
                {"type": "tool_result", "tool_use_id": "call_2_x", "content": "ENOENT", "is_error": True},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Own reasoning.", "signature": "sig-own"},
                {"type": "redacted_thinking", "data": "redacted-data"},
                {"type": "text", "text": "Both read."},
            ],
        },
        # the failed turn is skipped; lone surrogates are removed; the prefix is cached here
        {
            "role": "user",
            "content": [{"type": "text", "text": "Continue please", "cache_control": {"type": "ephemeral"}}],
        },
    ]


async def test_redacted_thinking_from_another_model_is_dropped_and_images_need_image_input() -> None:
    history = _history("some-other-model")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model(API, input=["text"])
        await stream_anthropic(model, {"messages": history}, options()).result()
    messages = server.requests[0].json["messages"]
    assert messages[0]["content"] == [{"type": "text", "text": "Look:"}]
    assert messages[2]["content"][0]["content"] == "an image"
    assert messages[3]["content"] == [{"type": "text", "text": "Both read."}]  # its thinking is dropped


async def test_trailing_tool_results_carry_the_cache_marker() -> None:
    history = _history("fake-model")[:4]
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await stream_anthropic(server.model(API), {"messages": history}, options()).result()
    last = server.requests[0].json["messages"][-1]
    assert [block.get("cache_control") for block in last["content"]] == [None, {"type": "ephemeral"}]


@pytest.mark.parametrize(
    ("base_suffix", "retention", "env", "expected"),
    [
        ("", None, None, {"type": "ephemeral"}),
        ("", "long", None, {"type": "ephemeral", "ttl": "1h"}),  # any server, unless its compat says otherwise
        ("/api.anthropic.com", "long", None, {"type": "ephemeral", "ttl": "1h"}),
        ("/api.anthropic.com", None, "long", {"type": "ephemeral", "ttl": "1h"}),
        ("/api.anthropic.com", "short", "long", {"type": "ephemeral"}),
        ("", "none", None, None),
    ],
)
async def test_cache_retention(
    monkeypatch: pytest.MonkeyPatch,
    base_suffix: str,
    retention: str | None,
    env: str | None,
    expected: dict[str, str] | None,
) -> None:
    if env is not None:
        monkeypatch.setenv("PI_CACHE_RETENTION", env)
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model(API, baseUrl=server.url + base_suffix)
        ctx = context("Hi", systemPrompt="sys")
        result = await stream_anthropic(model, ctx, options(cache_retention=retention)).result()
    assert result["stopReason"] == "stop"
    assert server.requests[0].path == base_suffix + "/v1/messages"
    body = server.requests[0].json
    assert body["system"][0].get("cache_control") == expected
    if expected is None:
        assert body["messages"][-1]["content"] == "Hi"
    else:
        assert body["messages"][-1]["content"] == [{"type": "text", "text": "Hi", "cache_control": expected}]


async def test_disabled_cache_writes_send_no_markers() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        ctx = context("Summarise", systemPrompt="sys")
        await stream_anthropic(server.model(API), ctx, options(disable_cache_writes=True)).result()
    raw = orjson.dumps(server.requests[0].json)
    assert b"cache_control" not in raw
    assert server.requests[0].json["messages"] == [{"role": "user", "content": "Summarise"}]


# --- headers and hooks ----------------------------------------------------------------------------


async def test_oauth_token_uses_bearer_auth() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await stream_anthropic(server.model(API), context(), options(api_key="sk-ant-oat01-secret")).result()
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer sk-ant-oat01-secret"
    assert "x-api-key" not in headers
    assert "oauth-2025-04-20" in headers["anthropic-beta"].split(",")


async def test_oauth_token_from_environment_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat01-from-env")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-loses")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("via registry")])]) as server:
        model = server.model(API, provider="anthropic")
        result = await complete_simple(model, context(), SimpleStreamOptions())
    assert result["content"] == [{"type": "text", "text": "via registry"}]
    assert server.requests[0].headers["authorization"] == "Bearer sk-ant-oat01-from-env"
    assert PROVIDER.api == API


async def test_model_and_request_headers_merge_with_request_winning() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model(API, headers={"X-Model-Header": "model", "X-Shared": "from-model"})
        opts = options(headers={"X-Shared": "from-request", "X-Request-Header": "request"})
        await stream_anthropic(model, context(), opts).result()
    headers = server.requests[0].headers
    assert headers["x-model-header"] == "model"
    assert headers["x-request-header"] == "request"
    assert headers["x-shared"] == "from-request"
    assert headers["x-api-key"] == "test-key"


async def test_empty_key_sends_no_credentials_and_fails_as_an_event() -> None:
    spec = HTTPErrorSpec(401, "x-api-key header is required")
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        result = await stream_anthropic(server.model(API), context(), StreamOptions(api_key="")).result()
    assert "x-api-key" not in server.requests[0].headers
    assert result["stopReason"] == "error"
    assert result["errorMessage"].startswith("401 ")


async def test_on_payload_replaces_the_body() -> None:
    seen: list[dict[str, Any]] = []

    def hook(payload: dict[str, Any], model: Any) -> dict[str, Any]:
        seen.append(copy.deepcopy(payload))
        return {**payload, "max_tokens": 77, "messages": [{"role": "user", "content": "replaced"}]}

    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await stream_anthropic(server.model(API), context("original"), options(on_payload=hook)).result()
    assert seen[0]["messages"][0]["content"][0]["text"] == "original"
    body = server.requests[0].json
    assert body["max_tokens"] == 77
    assert body["messages"] == [{"role": "user", "content": "replaced"}]


async def test_on_payload_returning_none_keeps_the_body() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await stream_anthropic(server.model(API), context("kept"), options(on_payload=lambda p, m: None)).result()
    assert server.requests[0].json["messages"][0]["content"][0]["text"] == "kept"


# --- reasoning levels -----------------------------------------------------------------------------


async def _simple_request(server: FakeLLMServer, model: dict[str, Any], **kwargs: Any) -> Any:
    kwargs.setdefault("api_key", "test-key")
    result = await stream_simple_anthropic(model, context(), SimpleStreamOptions(**kwargs)).result()  # type: ignore[arg-type]
    assert result["stopReason"] == "stop", result.get("errorMessage")
    return server.requests[-1]


async def test_budget_thinking_levels() -> None:
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        model = server.model(API, "claude-sonnet-4-5", reasoning=True, maxTokens=64_000)

        request = await _simple_request(server, model, reasoning="medium", temperature=0.3)
        assert request.json["thinking"] == {"type": "enabled", "budget_tokens": 8192, "display": "summarized"}
        assert request.json["max_tokens"] == 64_000  # the whole model cap: the budget fits inside
        assert "temperature" not in request.json  # ignored while thinking
        assert "interleaved-thinking-2025-05-14" in request.headers["anthropic-beta"]
        assert "output_config" not in request.json

        request = await _simple_request(server, model, reasoning="xhigh")  # clamped to high
        assert request.json["thinking"] == {"type": "enabled", "budget_tokens": 16_384, "display": "summarized"}

        request = await _simple_request(server, model, reasoning="low", thinking_budgets={"low": 3000})
        assert request.json["thinking"] == {"type": "enabled", "budget_tokens": 3000, "display": "summarized"}
        assert request.json["max_tokens"] == 64_000

        request = await _simple_request(server, model, reasoning="high", max_tokens=2000)
        assert request.json["max_tokens"] == 2000 + 16_384
        # on a small model the budget shrinks so that 1024 tokens stay for the answer
        small = server.model(API, "claude-sonnet-4-5", reasoning=True, maxTokens=4096)
        request = await _simple_request(server, small, reasoning="high")
        assert request.json["max_tokens"] == 4096
        assert request.json["thinking"]["budget_tokens"] == 4096 - 1024

        request = await _simple_request(server, model, reasoning="off", temperature=0.3)
        assert "thinking" not in request.json
        assert request.json["temperature"] == 0.3
        assert request.json["max_tokens"] == 64_000
        assert "anthropic-beta" not in request.headers


@pytest.mark.parametrize(
    ("model_id", "level_map", "level", "effort"),
    [
        ("claude-opus-4-6", None, "minimal", "low"),
        ("claude-opus-4-6", None, "low", "low"),
        ("claude-opus-4-6", None, "medium", "medium"),
        ("claude-opus-4-6", None, "high", "high"),
        ("claude-opus-4-6", {"xhigh": "max"}, "xhigh", "max"),  # as the catalogue declares it
        ("claude-opus-4-6", None, "xhigh", "high"),  # no map entry: no xhigh (as Pi)
        ("claude-sonnet-4-6", None, "xhigh", "high"),
        ("claude-opus-4-7", {"xhigh": "xhigh"}, "xhigh", "xhigh"),
    ],
)
async def test_adaptive_thinking_effort(
    model_id: str, level_map: dict[str, str] | None, level: str, effort: str
) -> None:
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        extra = {"thinkingLevelMap": level_map} if level_map else {}
        model = server.model(API, model_id, reasoning=True, maxTokens=128_000, contextWindow=400_000, **extra)
        request = await _simple_request(server, model, reasoning=level)
    assert request.json["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert request.json["output_config"] == {"effort": effort}
    assert request.json["max_tokens"] == 128_000
    assert "anthropic-beta" not in request.headers  # adaptive models interleave natively


async def test_reasoning_is_ignored_on_non_reasoning_models() -> None:
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        model = server.model(API, "claude-3-5-haiku", maxTokens=8192)
        request = await _simple_request(server, model, reasoning="high")
    assert "thinking" not in request.json and "output_config" not in request.json
    assert request.json["max_tokens"] == 8192


# --- the fake's wire format -----------------------------------------------------------------------


async def test_fake_speaks_the_anthropic_event_sequence() -> None:
    script = ScriptedResponse(
        steps=[ThinkingStep("hm", signature="sig"), TextStep("Hi", chunks=2), ToolCallStep("read", {"path": "x"})],
        usage={"input": 12, "output": 34, "cacheRead": 5, "cacheWrite": 6},
        response_id="msg_01Fixed",
    )
    with FakeLLMServer([script]) as server:
        async with httpx2.AsyncClient() as client:
            response = await client.post(
                server.url + "/v1/messages", json={"model": "claude-x", "messages": [], "stream": True}
            )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = [frame for frame in response.text.split("\n\n") if frame]
    names = [frame.split("\n")[0].removeprefix("event: ") for frame in frames]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert frames[2] == 'event: ping\ndata: {"type": "ping"}'
    data = [orjson.loads(frame.split("\ndata: ", 1)[1]) for frame in frames]
    start = data[0]["message"]
    assert start["id"] == "msg_01Fixed" and start["model"] == "claude-x" and start["role"] == "assistant"
    assert start["usage"]["input_tokens"] == 12
    assert start["usage"]["cache_read_input_tokens"] == 5
    assert start["usage"]["cache_creation_input_tokens"] == 6
    assert data[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert [frame["delta"] for frame in data[3:6]] == [
        {"type": "thinking_delta", "thinking": "h"},
        {"type": "thinking_delta", "thinking": "m"},
        {"type": "signature_delta", "signature": "sig"},
    ]
    tool_start = data[11]["content_block"]
    assert tool_start["type"] == "tool_use" and tool_start["input"] == {} and tool_start["id"].startswith("toolu_")
    assert data[12]["delta"] == {"type": "input_json_delta", "partial_json": ""}
    assert data[17] == {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 34},
    }


async def test_fake_error_body_shape() -> None:
    with FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(529, "Overloaded"))]) as server:
        async with httpx2.AsyncClient() as client:
            response = await client.post(server.url + "/v1/messages", json={"model": "m"})
    assert response.status_code == 529
    body = response.json()
    assert body["type"] == "error"
    assert body["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert body["request_id"] == response.headers["request-id"]


# --- stream shapes the scripted fake never produces (proxies, truncation) ------------------------


class RawSSEServer:
    """A loopback HTTP server answering every request with one fixed 200 event-stream body."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.server: asyncio.AbstractServer | None = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        headers = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1]) for line in headers.split(b"\r\n") if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
        writer.write(head % len(self.body) + self.body)
        await writer.drain()
        writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


def sse(event: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, bytes) else orjson.dumps(data)
    return (b"event: " + event.encode() + b"\n" if event else b"") + b"data: " + payload + b"\n\n"


MESSAGE_START = {
    "type": "message_start",
    "message": {"id": "msg_raw", "usage": {"input_tokens": 40, "output_tokens": 1}},
}
TEXT_BLOCK = [
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "raw"}},
    {"type": "content_block_stop", "index": 0},
]


async def _raw_result(body: bytes) -> AssistantMessage:
    async with RawSSEServer(body) as base_url:
        with FakeLLMServer() as fake:
            model = fake.model(API, baseUrl=base_url)
        return await stream_anthropic(model, context(), options()).result()


async def test_stream_that_ends_before_message_stop_is_an_error() -> None:
    body = sse("message_start", MESSAGE_START) + b"".join(sse(e["type"], e) for e in TEXT_BLOCK)
    result = await _raw_result(body)
    assert result["stopReason"] == "error"
    assert result["errorMessage"] == "Anthropic stream ended before message_stop"
    assert result["content"] == [{"type": "text", "text": "raw"}]


async def test_malformed_event_data_is_an_error() -> None:
    body = sse("message_start", MESSAGE_START) + sse("content_block_start", b'{"type":"content_block_start",')
    result = await _raw_result(body)
    assert result["stopReason"] == "error"
    assert result["errorMessage"].startswith("Malformed Anthropic stream event content_block_start")
    assert result["usage"]["input"] == 40


async def test_proxy_without_event_lines_and_with_delta_usage() -> None:
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"input_tokens": 45, "output_tokens": 9, "cache_read_input_tokens": None},
    }
    events = [MESSAGE_START, *TEXT_BLOCK, {"type": "proxy.stats"}, delta, {"type": "message_stop"}]
    result = await _raw_result(b"".join(sse(None, e) for e in events))
    assert result["stopReason"] == "stop"
    assert result["responseId"] == "msg_raw"
    assert result["content"] == [{"type": "text", "text": "raw"}]
    # present values overwrite; null and missing ones keep what message_start said
    assert (result["usage"]["input"], result["usage"]["output"], result["usage"]["cacheRead"]) == (45, 9, 0)


async def test_temperature_is_left_out_where_compat_says_the_server_takes_none() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]), ScriptedResponse(steps=[TextStep("ok")])]) as server:
        for compat in ({}, {"supportsTemperature": False}):
            model = server.model(API, compat=compat)
            await stream_anthropic(model, context(), options(temperature=0.3)).result()
        sent, left_out = (request.json for request in server.requests)
    assert sent["temperature"] == 0.3
    assert "temperature" not in left_out
