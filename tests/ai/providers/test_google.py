"""The ``google-generative-ai`` provider over real HTTP against the fake Gemini server."""

from __future__ import annotations

import asyncio
import base64
import re
from typing import Any

import pytest
from _streams import collect

from pi_harness.ai import (
    AbortController,
    MessageBuilder,
    SimpleStreamOptions,
    StreamOptions,
    empty_usage,
    is_context_overflow,
    is_retryable_error_message,
    stream,
    stream_simple,
)
from pi_harness.ai.models import get_model
from pi_harness.ai.providers.google import GoogleStreamOptions, _ChunkReader
from pi_harness.ai.providers.google_convert import clean_schema
from pi_harness.ai.types import AssistantMessage, Context, Message, Model
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)

API = "google-generative-ai"
KEY = "test-gemini-key"
SIG = base64.b64encode(b"gemini-thought-signature").decode()
PNG = base64.b64encode(b"\x89PNG fake image bytes").decode()


def gemini(server: FakeLLMServer, model_id: str = "gemini-2.5-flash", **overrides: Any) -> Model:
    return server.model(API, model_id, **overrides)  # type: ignore[return-value]


def user(text: str) -> Message:
    return {"role": "user", "content": text, "timestamp": 1}


def ctx(*messages: Message, **extra: Any) -> Context:
    return {"messages": list(messages) or [user("hi")], **extra}  # type: ignore[typeddict-item]


def types_of(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


# --- streaming ------------------------------------------------------------------------------------


async def test_text_response_event_order_request_shape_and_response_id() -> None:
    script = ScriptedResponse(steps=[TextStep("Hello from Gemini", chunks=3)], response_id="resp-123")
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY)))
        request = server.requests[0]

    assert types_of(events) == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert "".join(e["delta"] for e in events if e["type"] == "text_delta") == "Hello from Gemini"
    assert events[5]["content"] == "Hello from Gemini"
    assert events[-1]["reason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hello from Gemini"}]
    assert message["stopReason"] == "stop"
    assert message["responseId"] == "resp-123"
    assert message["api"] == API and message["model"] == "gemini-2.5-flash"
    assert request.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert request.query == "alt=sse"
    assert request.headers["x-goog-api-key"] == KEY
    assert request.json["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]


async def test_fake_server_speaks_googles_sse_framing() -> None:
    import httpx2

    script = ScriptedResponse(steps=[TextStep("ab", chunks=2)], usage={"input": 3, "output": 2}, response_id="r1")
    with FakeLLMServer([script]) as server:
        url = f"{server.base_url(API)}/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
        async with httpx2.AsyncClient() as client:
            response = await client.post(url, json={"contents": [{"role": "user", "parts": [{"text": "x"}]}]})
    frames = response.content.split(b"\r\n\r\n")
    assert frames[-1] == b""
    assert frames[0] == (
        b'data: {"candidates": [{"content": {"parts": [{"text": "a"}],"role": "model"}}],'
        b'"usageMetadata": {"promptTokenCount": 3,"totalTokenCount": 3,"promptTokensDetails": '
        b'[{"modality": "TEXT","tokenCount": 3}]},"modelVersion": "gemini-2.0-flash","responseId": "r1"}'
    )
    assert b'"finishReason": "STOP"' in frames[1]
    assert b'"candidatesTokenCount": 2,"totalTokenCount": 5' in frames[1]


async def test_thinking_then_text_keeps_signature_and_reasoning_usage() -> None:
    script = ScriptedResponse(
        steps=[ThinkingStep("Weighing options", chunks=2, signature=SIG), TextStep("Answer", chunks=1)],
        usage={"input": 12, "output": 30, "reasoning": 20},
    )
    with FakeLLMServer([script]) as server:
        model = gemini(server, reasoning=True)
        events, message = await collect(
            stream_simple(model, ctx(), SimpleStreamOptions(api_key=KEY, reasoning="medium"))
        )

    assert types_of(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    assert events[4]["content"] == "Weighing options"
    assert message["content"] == [
        {"type": "thinking", "thinking": "Weighing options", "thinkingSignature": SIG},
        {"type": "text", "text": "Answer"},
    ]
    assert message["usage"]["output"] == 30
    assert message["usage"]["reasoning"] == 20
    assert message["usage"]["input"] == 12


async def test_tool_calls_arrive_whole_with_generated_unique_ids() -> None:
    script = ScriptedResponse(
        steps=[
            TextStep("Reading two files.", chunks=1),
            ToolCallStep("read", {"path": "src/a.py", "limit": 20}, chunks=4),
            ToolCallStep("read", {"path": "src/b.py"}),
            ToolCallStep("bash", {"command": "ls"}, id="call-from-server"),
        ]
    )
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY)))

    assert types_of(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_end",
        *["toolcall_start", "toolcall_delta", "toolcall_end"] * 3,
        "done",
    ]
    deltas = [e for e in events if e["type"] == "toolcall_delta"]
    # Gemini sends complete arguments: one delta holding the whole JSON, already parsed.
    assert deltas[0]["delta"] == '{"path":"src/a.py","limit":20}'
    assert deltas[0]["partial"]["content"][deltas[0]["contentIndex"]]["arguments"] == {"path": "src/a.py", "limit": 20}
    starts = [e for e in events if e["type"] == "toolcall_start"]
    assert starts[0]["partial"]["content"][1]["arguments"] in ({}, {"path": "src/a.py", "limit": 20})
    calls = [block for block in message["content"] if block["type"] == "toolCall"]
    assert [c["name"] for c in calls] == ["read", "read", "bash"]
    assert calls[0]["arguments"] == {"path": "src/a.py", "limit": 20}
    assert re.fullmatch(r"read_\d+_[0-9a-f]{8}", calls[0]["id"])
    assert calls[0]["id"] != calls[1]["id"]
    assert calls[2]["id"] == "call-from-server"
    assert all("thoughtSignature" not in c for c in calls)
    assert events[-1]["reason"] == "toolUse" and message["stopReason"] == "toolUse"


async def test_gemini_3_function_call_signature_is_kept_and_replayed() -> None:
    first = ScriptedResponse(steps=[ToolCallStep("read", {"path": "a"})])
    second = ScriptedResponse(steps=[TextStep("done")])
    with FakeLLMServer([first, second]) as server:
        model = gemini(server, "gemini-3-flash-preview", reasoning=True)
        reply = await stream_simple(model, ctx(), SimpleStreamOptions(api_key=KEY, reasoning="low")).result()
        call = reply["content"][0]
        assert call["type"] == "toolCall"
        assert call["thoughtSignature"] == base64.b64encode(b"fake-signature:read").decode()
        result: Message = {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": "read",
            "content": [{"type": "text", "text": "file body"}],
            "isError": False,
            "timestamp": 2,
        }
        await stream_simple(
            model, ctx(user("hi"), reply, result), SimpleStreamOptions(api_key=KEY, reasoning="low")
        ).result()
        replayed = server.requests[1].json["contents"]

    # Gemini 3 pairs a result with its call by id.
    assert replayed[1] == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "read", "args": {"path": "a"}, "id": call["id"]},
                "thoughtSignature": call["thoughtSignature"],
            }
        ],
    }
    assert replayed[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "read", "response": {"output": "file body"}, "id": call["id"]}}],
    }


async def test_usage_and_cost_from_usage_metadata() -> None:
    script = ScriptedResponse(
        steps=[TextStep("ok")], usage={"input": 1000, "output": 500, "cacheRead": 4000, "reasoning": 200}
    )
    with FakeLLMServer([script]) as server:
        model = gemini(server, cost={"input": 2.0, "output": 10.0, "cacheRead": 0.5, "cacheWrite": 0.0})
        message = await stream(model, ctx(), StreamOptions(api_key=KEY)).result()

    usage = message["usage"]
    # promptTokenCount 5000 includes the 4000 cached tokens; output includes the thoughts.
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"]) == (1000, 500, 4000, 0)
    assert usage["reasoning"] == 200
    assert usage["totalTokens"] == 5500
    assert usage["cost"]["input"] == pytest.approx(0.002)
    assert usage["cost"]["output"] == pytest.approx(0.005)
    assert usage["cost"]["cacheRead"] == pytest.approx(0.002)
    assert usage["cost"]["total"] == pytest.approx(0.009)


@pytest.mark.parametrize(
    ("native", "stop_reason"),
    [("MAX_TOKENS", "length"), ("SAFETY", "error"), ("MALFORMED_FUNCTION_CALL", "error"), ("RECITATION", "error")],
)
async def test_native_finish_reasons(native: str, stop_reason: str) -> None:
    script = ScriptedResponse(steps=[TextStep("partial answer")], native_stop=native)
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY)))

    assert message["stopReason"] == stop_reason
    assert message["content"] == [{"type": "text", "text": "partial answer"}]
    if stop_reason == "error":
        assert events[-1]["type"] == "error"
        assert native in message["errorMessage"]
    else:
        assert events[-1] == {"type": "done", "reason": "length", "message": message}


# --- failures -------------------------------------------------------------------------------------

OVERFLOW_TEXT = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."


@pytest.mark.parametrize(
    ("spec", "prefix", "overflow", "retryable"),
    [
        (HTTPErrorSpec(400, OVERFLOW_TEXT), "400 INVALID_ARGUMENT: The input token count", True, False),
        (
            HTTPErrorSpec(400, "API key not valid. Please pass a valid API key."),
            "400 INVALID_ARGUMENT: API key",
            False,
            False,
        ),
        (HTTPErrorSpec(401, "Request had invalid authentication credentials."), "401 UNAUTHENTICATED: ", False, False),
        (HTTPErrorSpec(403, "Method doesn't allow unregistered callers."), "403 PERMISSION_DENIED: ", False, False),
        (
            HTTPErrorSpec(429, "Resource has been exhausted (e.g. check quota).", headers={"retry-after": "7"}),
            "429 RESOURCE_EXHAUSTED: Resource has been exhausted",
            False,
            True,
        ),
        (HTTPErrorSpec(500, "An internal error has occurred."), "500 INTERNAL: An internal", False, True),
        (
            HTTPErrorSpec(503, "The model is overloaded. Please try again later."),
            "503 UNAVAILABLE: The model is overloaded",
            False,
            True,
        ),
        (HTTPErrorSpec(529, "The model is overloaded."), "529 UNAVAILABLE: The model is overloaded", False, True),
    ],
)
async def test_http_errors_are_classified(spec: HTTPErrorSpec, prefix: str, overflow: bool, retryable: bool) -> None:
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY)))

    assert types_of(events) == ["error"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith(prefix), message["errorMessage"]
    assert message["content"] == []
    assert is_context_overflow(message, 1_048_576) is overflow
    assert is_retryable_error_message(message["errorMessage"]) is retryable


async def test_http_error_body_is_googles_shape() -> None:
    import httpx2

    spec = HTTPErrorSpec(429, "Quota exceeded for requests per minute.", headers={"retry-after": "12"})
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        url = f"{server.base_url(API)}/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        async with httpx2.AsyncClient() as client:
            response = await client.post(url, json={"contents": []})
    assert response.status_code == 429
    assert response.json() == {
        "error": {
            "code": 429,
            "message": "Quota exceeded for requests per minute.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "12s"}],
        }
    }


async def test_in_stream_error_keeps_partial_text() -> None:
    script = ScriptedResponse(
        steps=[TextStep("Half an ans", chunks=2)], stream_error=HTTPErrorSpec(500, "An internal error has occurred.")
    )
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY)))

    assert types_of(events) == ["start", "text_start", "text_delta", "text_delta", "error"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "500 INTERNAL: An internal error has occurred."
    assert message["content"] == [{"type": "text", "text": "Half an ans"}]
    assert is_retryable_error_message(message["errorMessage"])


async def test_dropped_connection_is_a_retryable_error() -> None:
    script = ScriptedResponse(steps=[TextStep("aabbccdd", chunks=4)], drop_after=2)
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY)))

    assert events[-1]["type"] == "error"
    assert message["stopReason"] == "error"
    assert message["content"] == [{"type": "text", "text": "aabb"}]
    assert is_retryable_error_message(message["errorMessage"]), message["errorMessage"]


def test_stream_without_finish_reason_fails() -> None:
    model: Model = {
        "id": "gemini-2.5-flash",
        "name": "g",
        "api": API,
        "provider": "google",
        "baseUrl": "http://127.0.0.1:9",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }
    reader = _ChunkReader(MessageBuilder(model))
    reader.feed({"candidates": [{"content": {"parts": [{"text": "cut"}], "role": "model"}}]})
    with pytest.raises(ConnectionError, match="terminated"):
        reader.stop_reason()
    blocked = _ChunkReader(MessageBuilder(model))
    blocked.feed({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 9}})
    assert blocked.stop_reason() == "error"
    assert "PROHIBITED_CONTENT" in blocked.builder.output["errorMessage"]
    with pytest.raises(ValueError, match="Malformed Gemini stream chunk"):
        _ChunkReader(MessageBuilder(model)).feed(["not", "an", "object"])


async def test_abort_mid_stream_keeps_partial_text() -> None:
    script = ScriptedResponse(steps=[TextStep("a b c d e f g h", chunks=8)], chunk_delay_ms=40)
    with FakeLLMServer([script]) as server:
        controller = AbortController()
        events_stream = stream(gemini(server), ctx(), StreamOptions(api_key=KEY, signal=controller.signal))
        events = []
        async for event in events_stream:
            events.append(event)
            if event["type"] == "text_delta":
                controller.abort()
        message = await events_stream.result()
        for _ in range(100):
            if server.cancelled_streams:
                break
            await asyncio.sleep(0.01)
        cancelled = server.cancelled_streams

    assert events[-1]["type"] == "error" and events[-1]["reason"] == "aborted"
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == "Request was aborted"
    assert message["content"] == [{"type": "text", "text": "a "}]
    assert cancelled == 1


async def test_already_aborted_signal_sends_nothing() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        controller = AbortController()
        controller.abort()
        events, message = await collect(
            stream(gemini(server), ctx(), StreamOptions(api_key=KEY, signal=controller.signal))
        )
        assert server.requests == []
    assert types_of(events) == ["error"]
    assert message["stopReason"] == "aborted"


async def test_provider_level_retry_after_429() -> None:
    responses = [
        ScriptedResponse(http_error=HTTPErrorSpec(429, "Resource has been exhausted.", headers={"retry-after": "0"})),
        ScriptedResponse(steps=[TextStep("second time lucky")]),
    ]
    with FakeLLMServer(responses) as server:
        events, message = await collect(stream(gemini(server), ctx(), StreamOptions(api_key=KEY, max_retries=1)))
        assert len(server.requests) == 2
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "second time lucky"}]
    assert types_of(events).count("start") == 1


# --- request building -----------------------------------------------------------------------------


def _tools() -> list[dict[str, Any]]:
    return [
        {
            "name": "edit",
            "description": "Change a file.",
            "parameters": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "mode": {"anyOf": [{"const": "replace", "type": "string"}, {"const": "append", "type": "string"}]},
                },
                "required": ["path"],
                "additionalProperties": False,
            },
        }
    ]


def _foreign_history() -> list[Message]:
    """A conversation produced by Anthropic, then a failed Gemini turn, then a new question."""
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look at this"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ],
            "timestamp": 1,
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "The user wants a file read.", "thinkingSignature": "anthropic-sig"},
                {"type": "thinking", "thinking": "", "redacted": True, "thinkingSignature": "opaque"},
                {"type": "text", "text": "Reading it.", "textSignature": "msg_1"},
                {
                    "type": "toolCall",
                    "id": "toolu_01ABC|weird id",
                    "name": "read",
                    "arguments": {"path": "a.txt"},
                    "thoughtSignature": SIG,
                },
                {"type": "toolCall", "id": "toolu_02", "name": "ls", "arguments": {}},
            ],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": empty_usage(),
            "stopReason": "toolUse",
            "timestamp": 2,
        },
        {
            "role": "toolResult",
            "toolCallId": "toolu_01ABC|weird id",
            "toolName": "read",
            "content": [
                {"type": "text", "text": "contents of a"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ],
            "isError": False,
            "timestamp": 3,
        },
        {
            "role": "toolResult",
            "toolCallId": "toolu_02",
            "toolName": "ls",
            "content": [{"type": "text", "text": "permission denied"}],
            "isError": True,
            "timestamp": 4,
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "half"}],
            "api": API,
            "provider": "fake",
            "model": "gemini-2.5-flash",
            "usage": empty_usage(),
            "stopReason": "error",
            "errorMessage": "boom",
            "timestamp": 5,
        },
        user("And now?"),
    ]


async def test_request_carries_system_prompt_tools_and_transformed_history() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        context = ctx(*_foreign_history(), systemPrompt="You are terse.", tools=_tools())
        await stream(gemini(server), context, StreamOptions(api_key=KEY, temperature=0.2, max_tokens=777)).result()
        body = server.requests[0].json

    assert body["systemInstruction"] == {"role": "user", "parts": [{"text": "You are terse."}]}
    assert body["generationConfig"] == {"temperature": 0.2, "maxOutputTokens": 777}
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "edit",
                    "description": "Change a file.",
                    "parametersJsonSchema": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "mode": {"type": "string", "enum": ["replace", "append"]},
                        },
                        "required": ["path"],
                        "additionalProperties": False,
                    },
                }
            ]
        }
    ]
    image = {"inlineData": {"mimeType": "image/png", "data": PNG}}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Look at this"}, image]},
        {
            "role": "model",
            "parts": [
                # foreign thinking (redacted or not) and signatures are dropped
                {"text": "Reading it."},
                # Gemini models get no call ids
                {"functionCall": {"name": "read", "args": {"path": "a.txt"}}},
                {"functionCall": {"name": "ls", "args": {}}},
            ],
        },
        # Gemini 2.5 gets a result's images in a user turn right after it (as Pi sends them).
        {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "contents of a"}}}]},
        {"role": "user", "parts": [{"text": "Tool result image:"}, image]},
        {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"error": "permission denied"}}}]},
        # the errored Gemini turn is skipped
        {"role": "user", "parts": [{"text": "And now?"}]},
    ]


async def test_claude_via_gemini_api_sends_normalised_ids_and_gemini_3_gets_inline_images() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("a")]), ScriptedResponse(steps=[TextStep("b")])]) as server:
        await stream(gemini(server, "claude-sonnet-4-5"), ctx(*_foreign_history()), StreamOptions(api_key=KEY)).result()
        await stream(
            gemini(server, "gemini-3-pro-preview"), ctx(*_foreign_history()), StreamOptions(api_key=KEY)
        ).result()
        claude_body, gemini3_body = (r.json for r in server.requests)

    calls = claude_body["contents"][1]["parts"][1:]
    assert [p["functionCall"]["id"] for p in calls] == ["toolu_01ABC_weird_id", "toolu_02"]
    responses = claude_body["contents"][2]["parts"]
    assert [p["functionResponse"]["id"] for p in responses] == ["toolu_01ABC_weird_id", "toolu_02"]

    # Gemini 3 pairs results with calls by id too; foreign calls go without a signature.
    model_turn = gemini3_body["contents"][1]["parts"]
    assert [p["functionCall"]["id"] for p in model_turn[1:]] == ["toolu_01ABC_weird_id", "toolu_02"]
    assert not any("thoughtSignature" in p for p in model_turn)
    first_result = gemini3_body["contents"][2]["parts"][0]["functionResponse"]
    assert first_result["parts"] == [{"inlineData": {"mimeType": "image/png", "data": PNG}}]
    assert first_result["id"] == "toolu_01ABC_weird_id"
    assert [c["role"] for c in gemini3_body["contents"]] == ["user", "model", "user", "user"]


async def test_same_model_history_keeps_only_valid_signatures() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = gemini(server)
        previous: AssistantMessage = {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": SIG},
                {"type": "text", "text": "Answer", "textSignature": "not base64!"},
                {"type": "toolCall", "id": "x_1", "name": "ls", "arguments": {}, "thoughtSignature": SIG},
            ],
            "api": API,
            "provider": "fake",
            "model": "gemini-2.5-flash",
            "usage": empty_usage(),
            "stopReason": "toolUse",
            "timestamp": 2,
        }
        await stream(model, ctx(user("q"), previous, user("next")), StreamOptions(api_key=KEY)).result()
        contents = server.requests[0].json["contents"]

    assert contents[1] == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "hmm", "thoughtSignature": SIG},
            {"text": "Answer"},
            {"functionCall": {"name": "ls", "args": {}}, "thoughtSignature": SIG},
        ],
    }
    # the unanswered call got the synthetic error result before the next user turn
    assert contents[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "ls", "response": {"error": "No result provided"}}}],
    }


async def test_text_only_model_drops_images_and_surrogates_are_removed() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        message: Message = {
            "role": "user",
            "content": [
                {"type": "text", "text": "bad \ud800 char"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ],
            "timestamp": 1,
        }
        await stream(gemini(server, input=["text"]), ctx(message), StreamOptions(api_key=KEY)).result()
        contents = server.requests[0].json["contents"]
    assert contents == [{"role": "user", "parts": [{"text": "bad  char"}]}]


async def test_auth_and_custom_headers() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = gemini(server, headers={"x-model-header": "model", "x-shared": "from-model"})
        options = StreamOptions(api_key=KEY, headers={"X-Shared": "from-request", "x-request": "1"})
        await stream(model, ctx(), options).result()
        headers = server.requests[0].headers
    assert headers["x-goog-api-key"] == KEY
    assert headers["content-type"] == "application/json"
    assert headers["x-model-header"] == "model"
    assert headers["x-shared"] == "from-request"
    assert headers["x-request"] == "1"
    assert "authorization" not in headers


async def test_on_payload_can_replace_the_body() -> None:
    seen: list[dict[str, Any]] = []

    def hook(payload: dict[str, Any], model: Model) -> dict[str, Any]:
        seen.append(payload)
        return {"contents": [{"role": "user", "parts": [{"text": "replaced"}]}], "generationConfig": {"topK": 3}}

    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await stream(gemini(server), ctx(), StreamOptions(api_key=KEY, on_payload=hook)).result()
        body = server.requests[0].json
    assert seen[0]["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body == {"contents": [{"role": "user", "parts": [{"text": "replaced"}]}], "generationConfig": {"topK": 3}}


def _catalog_model(server: FakeLLMServer, model_id: str) -> Model:
    model = get_model("google", model_id)
    assert model is not None
    model["baseUrl"] = server.base_url(API)
    return model


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("gemini-2.5-flash", "minimal", {"includeThoughts": True, "thinkingBudget": 128}),
        ("gemini-2.5-flash", "high", {"includeThoughts": True, "thinkingBudget": 24576}),
        ("gemini-2.5-flash", "xhigh", {"includeThoughts": True, "thinkingBudget": 24576}),
        ("gemini-2.5-flash", "off", {"thinkingBudget": 0}),
        ("gemini-2.5-flash", None, {"thinkingBudget": 0}),
        ("gemini-2.5-pro", "high", {"includeThoughts": True, "thinkingBudget": 32768}),
        ("gemini-2.5-pro", "low", {"includeThoughts": True, "thinkingBudget": 2048}),
        ("gemini-2.5-pro", "off", {"thinkingBudget": 0}),
        ("gemini-2.5-flash-lite", "minimal", {"includeThoughts": True, "thinkingBudget": 512}),
        ("gemini-flash-latest", "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        ("gemini-3-flash-preview", "minimal", {"includeThoughts": True, "thinkingLevel": "MINIMAL"}),
        ("gemini-3-flash-preview", "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        ("gemini-3-flash-preview", "off", {"thinkingLevel": "MINIMAL"}),
        ("gemini-3.1-pro-preview", "high", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
        ("gemini-3.1-pro-preview", "low", {"includeThoughts": True, "thinkingLevel": "LOW"}),
        # the catalogue marks minimal/off unsupported: Gemini 3 Pro's floor is LOW (minimal still thinks)
        ("gemini-3.1-pro-preview", "minimal", {"includeThoughts": True, "thinkingLevel": "LOW"}),
        ("gemini-3.1-pro-preview", "off", {"thinkingLevel": "LOW"}),
        ("gemma-4-31b-it", "high", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
    ],
)
async def test_reasoning_levels_map_to_thinking_config(model_id: str, level: Any, expected: dict[str, Any]) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = _catalog_model(server, model_id)
        await stream_simple(model, ctx(), SimpleStreamOptions(api_key=KEY, reasoning=level)).result()
        config = server.requests[0].json["generationConfig"]
    assert config["thinkingConfig"] == expected
    assert config["maxOutputTokens"] == model["maxTokens"]  # a short prompt leaves the whole cap


async def test_custom_budgets_and_non_reasoning_models() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]), ScriptedResponse(steps=[TextStep("ok")])]) as server:
        flash = _catalog_model(server, "gemini-2.5-flash")
        budgets = {"medium": 5000}
        await stream_simple(
            flash, ctx(), SimpleStreamOptions(api_key=KEY, reasoning="medium", thinking_budgets=budgets, max_tokens=900)
        ).result()
        plain = {**_catalog_model(server, "gemini-2.5-flash"), "reasoning": False}
        await stream_simple(plain, ctx(), SimpleStreamOptions(api_key=KEY, reasoning="high")).result()
        first, second = (r.json for r in server.requests)
    assert first["generationConfig"] == {
        "maxOutputTokens": 900,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 5000},
    }
    assert second["generationConfig"] == {"maxOutputTokens": 65536}


async def test_raw_stream_thinking_options_and_tool_choice() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = gemini(server, "gemini-3-pro-preview", reasoning=True)
        options = GoogleStreamOptions(api_key=KEY, thinking_enabled=True, thinking_level="HIGH", tool_choice="any")
        await stream(model, ctx(tools=_tools()), options).result()
        body = server.requests[0].json
    assert body["generationConfig"] == {"thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"}}
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}


def test_clean_schema_leaves_valid_schemas_alone() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}
    assert clean_schema(schema) == schema
    mixed = {"anyOf": [{"const": "a"}, {"type": "integer"}]}
    assert clean_schema(mixed) == mixed


def test_signature_only_parts_attach_to_the_open_block() -> None:
    model: Model = {
        "id": "gemini-3-flash-preview",
        "name": "g",
        "api": API,
        "provider": "google",
        "baseUrl": "http://127.0.0.1:9",
        "reasoning": True,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }
    builder = MessageBuilder(model)
    reader = _ChunkReader(builder)
    reader.feed({"candidates": [{"content": {"parts": [{"text": "plan", "thought": True}], "role": "model"}}]})
    reader.feed({"candidates": [{"content": {"parts": [{"text": "", "thoughtSignature": SIG}], "role": "model"}}]})
    reader.feed({"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}}]})
    reader.feed(
        {
            "candidates": [
                {
                    "content": {"parts": [{"text": "", "thoughtSignature": "c2ln"}], "role": "model"},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 1, "thoughtsTokenCount": 3},
        }
    )
    builder.finish(reader.stop_reason())
    assert builder.output["content"] == [
        {"type": "thinking", "thinking": "plan", "thinkingSignature": SIG},
        {"type": "text", "text": "Hi", "textSignature": "c2ln"},
    ]
    assert builder.output["stopReason"] == "stop"
    assert (builder.output["usage"]["input"], builder.output["usage"]["output"]) == (4, 4)


async def test_an_empty_part_with_a_signature_is_replayed() -> None:
    signature = base64.b64encode(b"sig").decode()
    own: AssistantMessage = {
        "role": "assistant",
        "content": [{"type": "text", "text": "", "textSignature": signature}, {"type": "text", "text": "  "}],
        "api": API,
        "provider": "fake",
        "model": "gemini-2.5-flash",
        "usage": empty_usage(),
        "stopReason": "stop",
        "timestamp": 2,
    }
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await stream(gemini(server), ctx(user("hi"), own, user("more")), StreamOptions(api_key=KEY)).result()
        contents = server.requests[0].json["contents"]
    assert contents[1] == {"role": "model", "parts": [{"text": "", "thoughtSignature": signature}]}
