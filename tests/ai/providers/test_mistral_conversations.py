"""``mistral-conversations`` over real HTTP against the fake server's Mistral dialect."""

from __future__ import annotations

import base64
from typing import Any

import httpx2
import orjson
import pytest
from _streams import collect, hello

from pi_harness.ai import api
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.mistral_conversations import MistralOptions, stream
from pi_harness.ai.providers.mistral_convert import ToolCallIdNormalizer, derive_tool_call_id, short_hash
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

API = "mistral-conversations"
PNG = base64.b64encode(b"\x89PNG").decode()


def mistral_model(server: FakeLLMServer, **overrides: Any) -> Model:
    return server.model(API, model_id="mistral-large-latest", provider="mistral", **overrides)


def opts(**kwargs: Any) -> MistralOptions:
    return MistralOptions(**{"api_key": "mistral-key", **kwargs})


def test_tool_call_ids_match_pis_hash() -> None:
    # Values computed with Pi's shortHash for the same inputs.
    assert short_hash("call_abc|fc_1") == "1a0y4ff6e5uy9"
    assert short_hash("héllo€𝄞") == "24msrbcszw"
    assert derive_tool_call_id("abcDEF123") == "abcDEF123"
    assert derive_tool_call_id("call_abc|fc_1") == "j6ob6a1or"  # Pi: shortHash("callabcfc1")[:9]
    normalize = ToolCallIdNormalizer()
    assert normalize("call_abc|fc_1") == normalize("call_abc|fc_1")
    assert len({normalize(f"toolu_{i}") for i in range(50)}) == 50


async def test_request_url_headers_and_body_in_pis_order() -> None:
    context: Context = {
        "systemPrompt": "Be terse.",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Look"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
                "timestamp": 1,
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "thinkingSignature": "x"},
                    {"type": "text", "text": "Reading"},
                    {"type": "toolCall", "id": "toolu_01ABC", "name": "read", "arguments": {"path": "a"}},
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude",
                "usage": {
                    "input": 0,
                    "output": 0,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 0,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "toolUse",
                "timestamp": 2,
            },
            {
                "role": "toolResult",
                "toolCallId": "toolu_01ABC",
                "toolName": "read",
                "content": [],
                "isError": True,
                "timestamp": 3,
            },
        ],
        "tools": [{"name": "read", "description": "Read", "parameters": {"type": "object"}}],
    }
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        options = opts(session_id="sess-9", max_tokens=100, temperature=0.2, tool_choice="any")
        _, message = await collect(stream(mistral_model(server), context, options))
        request = server.requests[0]
    assert message["stopReason"] == "stop"
    assert request.path == "/mistral/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer mistral-key"
    assert request.headers["x-affinity"] == "sess-9"
    body = request.json
    assert list(body) == [
        "model",
        "stream",
        "messages",
        "tools",
        "temperature",
        "max_tokens",
        "tool_choice",
        "prompt_cache_key",
    ]
    system, user, assistant, tool = body["messages"]
    assert system == {"role": "system", "content": "Be terse."}
    assert user["content"][1] == {"type": "image_url", "image_url": f"data:image/png;base64,{PNG}"}
    call_id = derive_tool_call_id("toolu_01ABC")
    assert assistant == {
        "role": "assistant",
        "prefix": False,
        # Another model's thinking is not replayed (Pi drops it in its message transform).
        "content": [{"type": "text", "text": "Reading"}],
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'}, "index": 0}
        ],
    }
    assert tool == {
        "role": "tool",
        "name": "read",
        "content": [{"type": "text", "text": "[tool error] (no tool output)"}],
        "tool_call_id": call_id,
    }
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read", "description": "Read", "parameters": {"type": "object"}, "strict": False},
        }
    ]


async def test_same_model_thinking_replays_as_a_thinking_part() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[ThinkingStep("Let me see."), TextStep("Answer")])]) as server:
        model = mistral_model(server, reasoning=True)
        _, first = await collect(stream(model, hello(), opts()))
        server.push(ScriptedResponse(steps=[TextStep("again")]))
        followup: Context = {
            "messages": [*hello()["messages"], first, {"role": "user", "content": "more", "timestamp": 5}]
        }
        await collect(stream(model, followup, opts()))
        replay = server.requests[1].json["messages"][1]
    assert replay["content"][0] == {"type": "thinking", "thinking": [{"type": "text", "text": "Let me see."}]}


async def test_reasoning_options_prompt_mode_or_effort() -> None:
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        magistral = mistral_model(server, reasoning=True)
        mapped = mistral_model(server, reasoning=True, thinkingLevelMap={"low": "low", "off": "none"})
        for model, level in ((magistral, "high"), (magistral, None), (mapped, "medium"), (mapped, None)):
            await collect(api.stream_simple(model, hello(), SimpleStreamOptions(api_key="k", reasoning=level)))
        bodies = [r.json for r in server.requests]
    assert bodies[0]["prompt_mode"] == "reasoning" and "reasoning_effort" not in bodies[0]
    assert "prompt_mode" not in bodies[1]
    assert bodies[2]["reasoning_effort"] == "high"  # medium is not in the map
    assert bodies[3]["reasoning_effort"] == "none"


async def test_thinking_text_and_tool_calls_stream_with_usage() -> None:
    script = ScriptedResponse(
        steps=[
            ThinkingStep("Think.", chunks=2),
            TextStep("Calling tools.", chunks=2),
            ToolCallStep("read", {"path": "a.txt"}, id="abcDEF123"),
            ToolCallStep("ls", {"path": "."}),
        ],
        usage={"input": 800, "output": 60, "cacheRead": 200},
    )
    with FakeLLMServer([script]) as server:
        model = mistral_model(
            server, reasoning=True, cost={"input": 2.0, "output": 6.0, "cacheRead": 0.2, "cacheWrite": 0}
        )
        events, message = await collect(stream(model, hello(), opts()))
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
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "toolcall_end",
        "done",
    ]
    assert message["stopReason"] == "toolUse"
    thinking, text, first, second = message["content"]
    assert thinking["thinking"] == "Think." and text["text"] == "Calling tools."  # type: ignore[typeddict-item]
    assert first["id"] == "abcDEF123" and first["arguments"] == {"path": "a.txt"}  # type: ignore[typeddict-item]
    assert len(second["id"]) == 9 and second["arguments"] == {"path": "."}  # type: ignore[typeddict-item]
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == (800, 60, 200, 1060)
    assert usage["cost"]["total"] == pytest.approx(0.0016 + 0.00036 + 0.00004)
    assert message["responseId"]


@pytest.mark.parametrize(
    ("native", "stop", "error"),
    [
        ("model_length", "length", None),
        ("error", "error", "Provider stopped with: error (server error)"),
        ("content_filter", "error", "Provider stopped with: content_filter"),
    ],
)
async def test_finish_reasons(native: str, stop: str, error: str | None) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("partial")], native_stop=native)]) as server:
        _, message = await collect(stream(mistral_model(server), hello(), opts()))
    assert message["stopReason"] == stop
    assert message.get("errorMessage") == error
    assert message["rawStopReason"] == native
    if error is not None:
        assert is_retryable_error_message(error) == (native == "error")


def test_fake_refuses_a_request_without_a_key() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")])]) as server:
        response = httpx2.post(server.base_url(API) + "/v1/chat/completions", json={"model": "m"})
        assert server.pending == 1
    assert response.status_code == 401
    assert response.json()["message"] == "Unauthorized" and "request_id" in response.json()


async def test_http_errors_keep_the_raw_body_and_classify() -> None:
    overflow = (
        "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length"
    )
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(401, "Unauthorized")),
        ScriptedResponse(http_error=HTTPErrorSpec(400, overflow)),
        ScriptedResponse(http_error=HTTPErrorSpec(429, "Requests rate limit exceeded")),
        ScriptedResponse(http_error=HTTPErrorSpec(503, "Service unavailable.")),
        ScriptedResponse(http_error=HTTPErrorSpec(500, "", body="")),
    ]
    with FakeLLMServer(scripts) as server:
        messages = [(await collect(stream(mistral_model(server), hello(), opts())))[1] for _ in scripts]
    unauthorized, too_long, limited, unavailable, empty = messages
    assert unauthorized["errorMessage"].startswith('Mistral API error (401): {"message":"Unauthorized","request_id":"')
    assert too_long["errorMessage"] == (
        'Mistral API error (400): {"object":"error","message":"'
        + overflow
        + '","type":"invalid_request_message_error",'
        '"param":null,"code":"3051"}'
    )
    assert is_context_overflow(too_long) and not is_retryable_error_message(too_long["errorMessage"])
    assert orjson.loads(limited["errorMessage"].split(": ", 1)[1])["type"] == "rate_limited"
    assert empty["errorMessage"] == "Mistral API error (500): Internal Server Error"
    for message in (limited, unavailable, empty):
        assert is_retryable_error_message(message["errorMessage"]), message["errorMessage"]
        assert not is_context_overflow(message)
    assert not is_retryable_error_message(unauthorized["errorMessage"])


async def test_stream_without_finish_reason_is_a_retryable_error() -> None:
    script = ScriptedResponse(steps=[TextStep("cut off here", chunks=3)], drop_after=3)
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(mistral_model(server), hello(), opts()))
    assert message["stopReason"] == "error"
    assert message["content"][0]["text"] == "cut off "  # type: ignore[typeddict-item]
    assert is_retryable_error_message(message["errorMessage"])


async def test_public_api_takes_the_key_from_mistral_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "env-mistral")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        message = await api.complete_simple(mistral_model(server), hello())
        assert server.requests[0].headers["authorization"] == "Bearer env-mistral"
    assert message["content"][0]["text"] == "hi"  # type: ignore[typeddict-item]
