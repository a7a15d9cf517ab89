"""``openai-responses`` provider over real HTTP against the fake server's Responses protocol."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import httpx2
import orjson
import pytest
from _streams import collect, hello

from pi_harness.ai import api
from pi_harness.ai.abort import AbortController
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.openai_responses import (
    OpenAIResponsesOptions,
    build_request_body,
    stream,
    stream_simple,
)
from pi_harness.ai.providers.openai_responses_events import STREAM_ENDED_EARLY, ResponsesStreamReader
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.types import Context, Model
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)

API = "openai-responses"
PNG = base64.b64encode(b"\x89PNG fake image bytes").decode()


def responses_model(server: FakeLLMServer, **overrides: Any) -> Model:
    return server.model(API, **overrides)  # type: ignore[return-value]


def opts(**kwargs: Any) -> OpenAIResponsesOptions:
    return OpenAIResponsesOptions(api_key="sk-test", **kwargs)


# --- content ---------------------------------------------------------------------------------


async def test_text_stream_has_exact_event_order_and_signature() -> None:
    script = ScriptedResponse(steps=[TextStep("Hello there", chunks=3)], response_id="resp_abc123")
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))

    assert [e["type"] for e in events] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert "".join(e["delta"] for e in events if e["type"] == "text_delta") == "Hello there"
    assert events[5]["content"] == "Hello there"
    assert message["stopReason"] == "stop"
    assert events[-1]["reason"] == "stop"
    assert message["responseId"] == "resp_abc123"
    block = message["content"][0]
    assert block["type"] == "text" and block["text"] == "Hello there"
    signature = orjson.loads(block["textSignature"])
    assert signature["v"] == 1 and signature["id"].startswith("msg_")


async def test_thinking_block_carries_replayable_reasoning_item() -> None:
    script = ScriptedResponse(
        steps=[ThinkingStep("Let me think.", chunks=2, signature="gAAAAencrypted"), TextStep("Answer")],
    )
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server, reasoning=True), hello(), opts()))

    types = [e["type"] for e in events]
    assert types == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    thinking = message["content"][0]
    assert thinking["type"] == "thinking"
    assert thinking["thinking"] == "Let me think."
    item = orjson.loads(thinking["thinkingSignature"])
    assert item["type"] == "reasoning"
    assert item["id"].startswith("rs_")
    assert item["encrypted_content"] == "gAAAAencrypted"
    assert item["summary"] == [{"type": "summary_text", "text": "Let me think."}]


async def test_reasoning_without_summary_keeps_encrypted_item() -> None:
    script = ScriptedResponse(steps=[ThinkingStep("", signature="opaque", redacted=True), TextStep("ok", chunks=1)])
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(responses_model(server, reasoning=True), hello(), opts()))
    thinking = message["content"][0]
    assert thinking["type"] == "thinking" and thinking["thinking"] == ""
    assert orjson.loads(thinking["thinkingSignature"])["encrypted_content"] == "opaque"


def test_summary_parts_are_joined_by_a_blank_line() -> None:
    builder = MessageBuilder(
        {
            "id": "m",
            "name": "m",
            "api": API,
            "provider": "p",
            "baseUrl": "http://x",
            "reasoning": True,
            "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000,
            "maxTokens": 100,
        }
    )
    reader = ResponsesStreamReader(builder)
    common = {"item_id": "rs_1", "output_index": 0}
    reader.handle("response.output_item.added", {"output_index": 0, "item": {"id": "rs_1", "type": "reasoning"}})
    for index, text in enumerate(["First part.", "Second part."]):
        reader.handle("response.reasoning_summary_part.added", {**common, "summary_index": index})
        reader.handle("response.reasoning_summary_text.delta", {**common, "summary_index": index, "delta": text})
    item = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "First part."}, {"type": "summary_text", "text": "Second part."}],
    }
    reader.handle("response.output_item.done", {"output_index": 0, "item": item})
    assert builder.output["content"][0]["thinking"] == "First part.\n\nSecond part."  # type: ignore[typeddict-item]


async def test_one_tool_call_streams_growing_arguments() -> None:
    args = {"path": "src/main.py", "limit": 20}
    script = ScriptedResponse(steps=[ToolCallStep("read", args, id="call_one", chunks=4)])
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))

    deltas = [e for e in events if e["type"] == "toolcall_delta"]
    assert len(deltas) == 4
    assert "".join(e["delta"] for e in deltas) == orjson.dumps(args).decode()
    assert message["stopReason"] == "toolUse"
    assert events[-1]["reason"] == "toolUse"
    call = message["content"][0]
    assert call["type"] == "toolCall"
    assert call["name"] == "read"
    assert call["arguments"] == args
    call_id, item_id = call["id"].split("|")
    assert call_id == "call_one" and item_id.startswith("fc_")
    end = next(e for e in events if e["type"] == "toolcall_end")
    assert end["toolCall"]["arguments"] == args


async def test_partial_arguments_grow_during_toolcall_delta() -> None:
    args = {"command": "ls -la /tmp/some/long/path"}
    # paced frames: the partial message is shared, so read it before the next fragment arrives
    script = ScriptedResponse(steps=[ToolCallStep("bash", args, chunks=5)], chunk_delay_ms=5)
    seen: list[dict[str, Any]] = []
    with FakeLLMServer([script]) as server:
        s = stream(responses_model(server), hello(), opts())
        async for event in s:
            if event["type"] == "toolcall_delta":
                seen.append(dict(event["partial"]["content"][event["contentIndex"]]["arguments"]))
    lengths = [len(a.get("command", "")) for a in seen]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]
    assert seen[-1] == args
    assert any(0 < length < len(args["command"]) for length in lengths)


async def test_several_tool_calls_after_text() -> None:
    script = ScriptedResponse(
        steps=[
            TextStep("I will look.", chunks=1),
            ToolCallStep("read", {"path": "a.txt"}, id="call_a", chunks=3),
            ToolCallStep("grep", {"pattern": "x", "path": "."}, id="call_b", chunks=2),
        ],
        fragment_bytes=7,  # every SSE frame arrives split across several writes
    )
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))

    assert [e["type"] for e in events if e["type"].endswith(("_start", "_end"))] == [
        "text_start",
        "text_end",
        "toolcall_start",
        "toolcall_end",
        "toolcall_start",
        "toolcall_end",
    ]
    calls = [b for b in message["content"] if b["type"] == "toolCall"]
    assert [c["name"] for c in calls] == ["read", "grep"]
    assert [c["id"].split("|")[0] for c in calls] == ["call_a", "call_b"]
    assert calls[1]["arguments"] == {"pattern": "x", "path": "."}
    assert message["stopReason"] == "toolUse"


# --- usage, stop reasons --------------------------------------------------------------------------


async def test_usage_subtracts_cached_tokens_and_prices_them() -> None:
    script = ScriptedResponse(
        steps=[TextStep("hi")], usage={"input": 1000, "output": 500, "cacheRead": 4000, "reasoning": 120}
    )
    with FakeLLMServer([script]) as server:
        model = responses_model(server, cost={"input": 2.0, "output": 8.0, "cacheRead": 0.5, "cacheWrite": 0.0})
        _, message = await collect(stream(model, hello(), opts()))

    usage = message["usage"]
    assert usage["input"] == 1000
    assert usage["cacheRead"] == 4000
    assert usage["output"] == 500
    assert usage["reasoning"] == 120
    assert usage["cacheWrite"] == 0
    assert usage["totalTokens"] == 5500
    assert usage["cost"]["input"] == pytest.approx(0.002)
    assert usage["cost"]["output"] == pytest.approx(0.004)
    assert usage["cost"]["cacheRead"] == pytest.approx(0.002)
    assert usage["cost"]["total"] == pytest.approx(0.008)


async def test_incomplete_for_max_output_tokens_is_length() -> None:
    script = ScriptedResponse(steps=[TextStep("cut sho")], stop_reason="length")
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))
    assert message["stopReason"] == "length"
    assert events[-1] == {"type": "done", "reason": "length", "message": message}
    assert message["content"][0]["text"] == "cut sho"  # type: ignore[typeddict-item]


async def test_incomplete_for_content_filter_is_error() -> None:
    script = ScriptedResponse(steps=[TextStep("partial")], native_stop="content_filter")
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(responses_model(server), hello(), opts()))
    assert message["stopReason"] == "error"
    assert "content_filter" in message["errorMessage"]


async def test_failed_response_is_error_with_service_message() -> None:
    script = ScriptedResponse(steps=[TextStep("so far")], stop_reason="error")
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))
    assert events[-1]["type"] == "error" and events[-1]["reason"] == "error"
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Error Code server_error: The model failed to generate a response."
    assert message["content"][0]["text"] == "so far"  # type: ignore[typeddict-item]
    assert is_retryable_error_message(message["errorMessage"])


# --- HTTP errors ------------------------------------------------------------------------------


async def test_401_is_a_non_retryable_error() -> None:
    err = HTTPErrorSpec(401, "Incorrect API key provided: sk-test. You can find your API key at the dashboard.")
    with FakeLLMServer([ScriptedResponse(http_error=err)]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))
    assert [e["type"] for e in events] == ["error"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == f"401 {err.message}"
    assert not is_retryable_error_message(message["errorMessage"])
    assert not is_context_overflow(message)


async def test_context_length_error_is_classified_as_overflow() -> None:
    text = "Your input exceeds the context window of this model. Please adjust your input and try again."
    with FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(400, text))]) as server:
        _, message = await collect(stream(responses_model(server), hello(), opts()))
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == f"400 {text}"
    assert is_context_overflow(message)
    assert not is_retryable_error_message(message["errorMessage"])


async def test_429_rate_limit_is_retryable_not_overflow() -> None:
    text = "Rate limit reached for gpt-5 on tokens per min (TPM): Limit 30000. Please try again in 2s."
    err = HTTPErrorSpec(429, text, headers={"retry-after": "2"})
    with FakeLLMServer([ScriptedResponse(http_error=err)]) as server:
        _, message = await collect(stream(responses_model(server), hello(), opts()))
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("429 Rate limit reached")
    assert is_retryable_error_message(message["errorMessage"])
    assert not is_context_overflow(message)


@pytest.mark.parametrize(
    ("status", "text"),
    [
        (500, "The server had an error while processing your request. Sorry about that!"),
        (529, "Overloaded"),
    ],
)
async def test_server_errors_are_retryable(status: int, text: str) -> None:
    with FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(status, text))]) as server:
        _, message = await collect(stream(responses_model(server), hello(), opts()))
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == f"{status} {text}"
    assert is_retryable_error_message(message["errorMessage"])
    assert not is_context_overflow(message)


async def test_in_stream_error_event_keeps_partial_content() -> None:
    script = ScriptedResponse(
        steps=[TextStep("Half an ans", chunks=2)],
        stream_error=HTTPErrorSpec(500, "The server had an error processing your request.", type="server_error"),
    )
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))
    assert events[-1]["type"] == "error"
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Error Code server_error: The server had an error processing your request."
    assert message["content"][0]["text"] == "Half an ans"  # type: ignore[typeddict-item]
    assert is_retryable_error_message(message["errorMessage"])


async def test_in_stream_overflow_error_is_overflow() -> None:
    script = ScriptedResponse(
        stream_error=HTTPErrorSpec(400, "Your input exceeds the context window of this model."),
    )
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(responses_model(server), hello(), opts()))
    assert "context_length_exceeded" in message["errorMessage"]
    assert is_context_overflow(message)


async def test_dropped_connection_is_a_retryable_error_with_partial_text() -> None:
    # created, in_progress, item added, part added, first delta → then the socket is cut
    script = ScriptedResponse(steps=[TextStep("abcdefghij", chunks=5)], drop_after=5)
    with FakeLLMServer([script]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts()))
    assert events[-1]["type"] == "error"
    assert message["stopReason"] == "error"
    assert message["content"][0]["text"] == "ab"  # type: ignore[typeddict-item]
    assert is_retryable_error_message(message["errorMessage"])


def test_stream_without_terminal_event_and_malformed_data_raise() -> None:
    reader = ResponsesStreamReader(MessageBuilder(_plain_model()))
    with pytest.raises(ConnectionError, match="terminated"):
        reader.finish()
    assert "terminated" in STREAM_ENDED_EARLY
    with pytest.raises(ValueError, match="Malformed stream data"):
        reader.feed(ServerSentEvent(event="response.output_text.delta", data="{not json"))


async def test_abort_mid_stream_keeps_partial_text_and_closes_connection() -> None:
    script = ScriptedResponse(steps=[TextStep("x" * 40, chunks=20)], chunk_delay_ms=30)
    controller = AbortController()
    with FakeLLMServer([script]) as server:
        s = stream(responses_model(server), hello(), opts(signal=controller.signal))
        async for event in s:
            if event["type"] == "text_delta":
                controller.abort()
        message = await s.result()
        for _ in range(200):
            if server.cancelled_streams:
                break
            await asyncio.sleep(0.01)
        assert server.cancelled_streams == 1
        assert server.completed_streams == 0
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"]
    text = message["content"][0]["text"]  # type: ignore[typeddict-item]
    assert 0 < len(text) < 40


async def test_already_aborted_signal_sends_nothing() -> None:
    controller = AbortController()
    controller.abort()
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts(signal=controller.signal)))
        assert server.requests == []
    assert [e["type"] for e in events] == ["error"]
    assert events[0]["reason"] == "aborted"
    assert message["stopReason"] == "aborted"
    assert message["content"] == []


# --- the request ------------------------------------------------------------------------------


def _plain_model(**overrides: Any) -> Model:
    model: dict[str, Any] = {
        "id": "fake-model",
        "name": "Fake",
        "api": API,
        "provider": "fake",
        "baseUrl": "http://127.0.0.1:9/v1",
        "reasoning": False,
        "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }
    model.update(overrides)
    return model  # type: ignore[return-value]


def _assistant(provider: str, api_id: str, model_id: str, content: list[Any], stop: str = "toolUse") -> Any:
    return {
        "role": "assistant",
        "content": content,
        "api": api_id,
        "provider": provider,
        "model": model_id,
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": stop,
        "timestamp": 2,
    }


def _tool_result(call_id: str, name: str, content: list[Any]) -> Any:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": False,
        "timestamp": 3,
    }


async def test_request_carries_system_prompt_tools_and_transformed_cross_provider_history() -> None:
    reasoning_item = {"type": "reasoning", "id": "rs_same", "summary": [], "encrypted_content": "enc"}
    context: Context = {
        "systemPrompt": "You are terse.",
        "tools": [
            {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            }
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look at this"},
                    {"type": "image", "data": PNG, "mimeType": "image/png"},
                ],
                "timestamp": 1,
            },
            # another provider: thinking becomes text, signatures go, ids normalised
            _assistant(
                "anthropic",
                "anthropic-messages",
                "claude-sonnet-4-5",
                [
                    {"type": "thinking", "thinking": "Pondering the image", "thinkingSignature": "anthropic-sig"},
                    {"type": "thinking", "thinking": "", "thinkingSignature": "x", "redacted": True},
                    {"type": "text", "text": "Reading it.", "textSignature": "foreign"},
                    {"type": "toolCall", "id": "toolu_01", "name": "read", "arguments": {"path": "a.py"}},
                ],
            ),
            _tool_result(
                "toolu_01",
                "read",
                [{"type": "text", "text": "print(1)"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
            ),
            # the same model: reasoning item, message id + phase, fc item id are replayed
            _assistant(
                "fake",
                API,
                "fake-model",
                [
                    {"type": "thinking", "thinking": "sum", "thinkingSignature": orjson.dumps(reasoning_item).decode()},
                    {
                        "type": "text",
                        "text": "Checking.",
                        "textSignature": '{"v":1,"id":"msg_same","phase":"commentary"}',
                    },
                    {"type": "toolCall", "id": "call_s|fc_s", "name": "read", "arguments": {"path": "b.py"}},
                ],
            ),
            _tool_result("call_s|fc_s", "read", [{"type": "image", "data": PNG, "mimeType": "image/png"}]),
            # another OpenAI model: pair ids normalised, item id not sent; legacy text signature dropped
            _assistant(
                "openai",
                API,
                "gpt-other",
                [
                    {"type": "text", "text": "More.", "textSignature": "msg_other"},
                    {"type": "toolCall", "id": "call 7|item/7", "name": "read", "arguments": {}},
                ],
            ),
            # a failed turn is never replayed
            _assistant("fake", API, "fake-model", [{"type": "text", "text": "broken"}], stop="error"),
            {"role": "user", "content": "Continue", "timestamp": 4},
        ],
    }
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = responses_model(server)
        _, message = await collect(stream(model, context, opts(max_tokens=777, temperature=0.2)))
        body = server.requests[0].json
        assert server.requests[0].path == "/v1/responses"
    assert message["stopReason"] == "stop"
    image_url = f"data:image/png;base64,{PNG}"
    assert body["model"] == "fake-model"
    assert body["stream"] is True
    assert body["store"] is False
    assert body["max_output_tokens"] == 777
    assert body["temperature"] == 0.2
    assert "reasoning" not in body and "include" not in body
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        }
    ]  # no strict key: compatible servers may refuse it (models.json compat supportsStrictMode turns it on)
    assert body["input"] == [
        {"role": "system", "content": "You are terse."},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Look at this"},
                {"type": "input_image", "detail": "auto", "image_url": image_url},
            ],
        },
        # another model's thinking is dropped
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Reading it.", "annotations": []}],
            "status": "completed",
            "id": "msg_1_0",
        },
        {"type": "function_call", "call_id": "toolu_01", "name": "read", "arguments": '{"path":"a.py"}'},
        {
            "type": "function_call_output",
            "call_id": "toolu_01",
            "output": [
                {"type": "input_text", "text": "print(1)"},
                {"type": "input_image", "detail": "auto", "image_url": image_url},
            ],
        },
        reasoning_item,
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
            "status": "completed",
            "id": "msg_same",
            "phase": "commentary",
        },
        {"type": "function_call", "call_id": "call_s", "name": "read", "arguments": '{"path":"b.py"}', "id": "fc_s"},
        {
            "type": "function_call_output",
            "call_id": "call_s",
            "output": [{"type": "input_image", "detail": "auto", "image_url": image_url}],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "More.", "annotations": []}],
            "status": "completed",
            "id": "msg_5_0",
        },
        {"type": "function_call", "call_id": "call_7", "name": "read", "arguments": "{}"},
        # the unanswered call gets a synthetic error result before the next user turn
        {"type": "function_call_output", "call_id": "call_7", "output": "No result provided"},
        {"role": "user", "content": [{"type": "input_text", "text": "Continue"}]},
    ]
    # Pi's key order, the item id second (JSON key order is what a byte-level comparison sees).
    calls = [list(item) for item in body["input"] if item.get("type") == "function_call"]
    assert calls[1] == ["type", "id", "call_id", "name", "arguments"]


async def test_text_only_model_drops_images() -> None:
    context: Context = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "see"}, {"type": "image", "data": PNG, "mimeType": "image/png"}],
                "timestamp": 1,
            },
            _assistant(
                "fake", API, "fake-model", [{"type": "toolCall", "id": "c1|fc_1", "name": "shot", "arguments": {}}]
            ),
            _tool_result("c1|fc_1", "shot", [{"type": "image", "data": PNG, "mimeType": "image/png"}]),
        ]
    }
    body = build_request_body(_plain_model(input=["text"]), context, StreamOptions())
    assert body["input"][0] == {"role": "user", "content": [{"type": "input_text", "text": "see"}]}
    assert body["input"][2] == {"type": "function_call_output", "call_id": "c1", "output": "(see attached image)"}


async def test_lone_surrogates_are_removed_from_the_request() -> None:
    context: Context = {"messages": [{"role": "user", "content": "bad \ud800 text", "timestamp": 1}]}
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        _, message = await collect(stream(responses_model(server), context, opts()))
        body = server.requests[0].json
    assert message["stopReason"] == "stop"
    assert body["input"][0]["content"][0]["text"] == "bad  text"


async def test_auth_model_and_request_headers() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = responses_model(server, headers={"X-Model": "m", "X-Shared": "model"})
        options = opts(headers={"X-Shared": "request", "X-Extra": "e"})
        await collect(stream(model, hello(), options))
        headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["x-model"] == "m"
    assert headers["x-shared"] == "request"
    assert headers["x-extra"] == "e"
    assert headers["content-type"] == "application/json"


async def test_on_payload_can_replace_the_body() -> None:
    seen: list[dict[str, Any]] = []

    def hook(payload: dict[str, Any], model: Model) -> dict[str, Any]:
        seen.append(payload)
        return {**payload, "metadata": {"run": "42"}, "input": [{"role": "user", "content": "replaced"}]}

    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        _, message = await collect(stream(responses_model(server), hello(), opts(on_payload=hook)))
        body = server.requests[0].json
    assert message["stopReason"] == "stop"
    assert seen[0]["input"][0]["content"][0]["text"] == "Hello"
    assert body["metadata"] == {"run": "42"}
    assert body["input"] == [{"role": "user", "content": "replaced"}]


@pytest.mark.parametrize(
    ("model_id", "name", "level", "effort"),
    [
        ("gpt-5.2", "gpt-5.2", "xhigh", "high"),  # xhigh only where thinkingLevelMap names it (as Pi)
        ("gpt-5-mini", "gpt-5-mini", "xhigh", "high"),
        ("o4-mini", "o4-mini", "minimal", "minimal"),
        ("o4-mini", "o4-mini", "medium", "medium"),
        ("o4-mini", "o4-mini", "max", "high"),
    ],
)
async def test_reasoning_level_is_sent_as_effort(model_id: str, name: str, level: str, effort: str) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = responses_model(server, model_id=model_id, name=name, reasoning=True, maxTokens=100_000)
        options = SimpleStreamOptions(api_key="sk-test", reasoning=level)  # type: ignore[arg-type]
        await collect(stream_simple(model, {"systemPrompt": "sys", **hello()}, options))
        body = server.requests[0].json
    assert body["reasoning"] == {"effort": effort, "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["max_output_tokens"] == 100_000
    assert body["input"][0]["role"] == "developer"  # reasoning models take the system prompt as developer


async def test_thinking_level_map_value_is_sent_verbatim() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = responses_model(server, reasoning=True, thinkingLevelMap={"high": "very-high", "low": None})
        await collect(stream_simple(model, hello(), SimpleStreamOptions(api_key="k", reasoning="high")))
        await collect(stream_simple(model, hello(), SimpleStreamOptions(api_key="k", reasoning="low")))
        first, second = (r.json for r in server.requests)
    assert first["reasoning"]["effort"] == "very-high"
    assert second["reasoning"]["effort"] == "medium"  # "low" unsupported: the nearest level above, as Pi


async def test_reasoning_off_is_said_as_effort_none() -> None:
    responses = [ScriptedResponse(steps=[TextStep("ok")]) for _ in range(3)]
    with FakeLLMServer(responses) as server:
        gpt5 = responses_model(server, model_id="gpt-5-mini", name="gpt-5-mini", reasoning=True)
        named = responses_model(server, model_id="o3", name="o3", reasoning=True, thinkingLevelMap={"off": "minimal"})
        always = responses_model(server, model_id="o4", name="o4", reasoning=True, thinkingLevelMap={"off": None})
        await collect(stream_simple(gpt5, hello(), SimpleStreamOptions(api_key="k", reasoning="off")))
        await collect(stream_simple(named, hello(), SimpleStreamOptions(api_key="k")))
        await collect(stream_simple(always, hello(), SimpleStreamOptions(api_key="k")))
        gpt5_body, named_body, always_body = (r.json for r in server.requests)
    assert gpt5_body["reasoning"] == {"effort": "none"} and "include" not in gpt5_body
    assert all(item.get("role") != "developer" for item in gpt5_body["input"])
    assert named_body["reasoning"] == {"effort": "minimal"}  # the map's name for "off"
    assert "reasoning" not in always_body  # the model cannot stop reasoning: nothing to say


async def test_non_reasoning_model_gets_no_reasoning_fields() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = responses_model(server, name="gpt-5-chat", reasoning=False, maxTokens=8000)
        await collect(stream_simple(model, hello(), SimpleStreamOptions(api_key="k", reasoning="high")))
        body = server.requests[0].json
    assert "reasoning" not in body and "include" not in body
    assert body["max_output_tokens"] == 8000
    assert len(body["input"]) == 1


def test_prompt_cache_key_and_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    openai = _plain_model(baseUrl="https://api.openai.com/v1")
    other = _plain_model(baseUrl="https://proxy.example/v1")
    short = build_request_body(openai, hello(), StreamOptions(session_id="s-1"))
    assert short["prompt_cache_key"] == "s-1"
    assert "prompt_cache_retention" not in short
    long = build_request_body(openai, hello(), StreamOptions(session_id="s-1", cache_retention="long"))
    assert long["prompt_cache_retention"] == "24h"
    # Any server that keeps caches long is asked to (models.json compat says which do not).
    assert build_request_body(other, hello(), StreamOptions(cache_retention="long"))["prompt_cache_retention"] == "24h"
    short_lived = _plain_model(baseUrl="https://proxy.example/v1", compat={"supportsLongCacheRetention": False})
    assert "prompt_cache_retention" not in build_request_body(
        short_lived, hello(), StreamOptions(cache_retention="long")
    )
    explicit = _plain_model(compat={"supportsExplicitPromptCacheMode": True})
    none = build_request_body(explicit, hello(), StreamOptions(session_id="s-1", cache_retention="none"))
    assert none["prompt_cache_options"] == {"mode": "explicit"} and "prompt_cache_key" not in none
    assert build_request_body(explicit, hello(), StreamOptions(cache_retention="long"))["prompt_cache_options"] == {
        "ttl": "30m"
    }
    assert build_request_body(openai, hello(), StreamOptions(session_id="k" * 70))["prompt_cache_key"] == "k" * 64
    off = build_request_body(openai, hello(), StreamOptions(session_id="s-1", cache_retention="none"))
    assert "prompt_cache_key" not in off and "prompt_cache_retention" not in off
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert build_request_body(openai, hello(), StreamOptions())["prompt_cache_retention"] == "24h"


async def test_provider_level_retry_after_429() -> None:
    err = HTTPErrorSpec(429, "Rate limit reached for requests", headers={"retry-after": "0"})
    with FakeLLMServer([ScriptedResponse(http_error=err), ScriptedResponse(steps=[TextStep("second try")])]) as server:
        events, message = await collect(stream(responses_model(server), hello(), opts(max_retries=1)))
        assert len(server.requests) == 2
    assert message["stopReason"] == "stop"
    assert message["content"][0]["text"] == "second try"  # type: ignore[typeddict-item]
    assert [e["type"] for e in events].count("start") == 1


async def test_public_api_dispatches_to_this_provider_with_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("via api")])]) as server:
        model = responses_model(server, provider="openai")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        message = await api.complete_simple(model, hello())
        assert server.requests[0].headers["authorization"] == "Bearer sk-env"
    assert message["content"][0]["text"] == "via api"  # type: ignore[typeddict-item]
    assert message["api"] == API and message["provider"] == "openai"


# --- the fake protocol on the wire ---------------------------------------------------------------


def test_fake_server_speaks_responses_sse_frames() -> None:
    script = ScriptedResponse(
        steps=[
            ThinkingStep("hm", chunks=1, signature="enc"),
            TextStep("hi", chunks=1),
            ToolCallStep("f", {"a": 1}, chunks=1),
        ],
        usage={"input": 7, "output": 3, "cacheRead": 2, "reasoning": 1},
        response_id="resp_wire",
    )
    with FakeLLMServer([script]) as server, httpx2.Client() as client:
        raw = client.post(f"{server.base_url(API)}/responses", json={"model": "m", "input": [], "stream": True}).content
    frames = [f for f in raw.decode().split("\n\n") if f]
    pairs = []
    for index, frame in enumerate(frames):
        event_line, data_line = frame.split("\n")
        assert event_line.startswith("event: ") and data_line.startswith("data: ")
        data = orjson.loads(data_line[len("data: ") :])
        assert data["type"] == event_line[len("event: ") :]
        assert data["sequence_number"] == index
        pairs.append(data)
    assert [p["type"] for p in pairs] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    completed = pairs[-1]["response"]
    assert completed["id"] == "resp_wire" and completed["status"] == "completed"
    assert completed["usage"] == {
        "input_tokens": 9,
        "input_tokens_details": {"cached_tokens": 2},
        "output_tokens": 3,
        "output_tokens_details": {"reasoning_tokens": 1},
        "total_tokens": 12,
    }
    assert [item["type"] for item in completed["output"]] == ["reasoning", "message", "function_call"]
    assert pairs[7]["item"]["encrypted_content"] == "enc"


@pytest.mark.parametrize(
    ("status", "message", "code", "kind"),
    [
        (
            400,
            "Your input exceeds the context window of this model.",
            "context_length_exceeded",
            "invalid_request_error",
        ),
        (401, "Incorrect API key provided.", "invalid_api_key", "invalid_request_error"),
        (429, "Rate limit reached.", "rate_limit_exceeded", "requests"),
        (500, "The server had an error.", None, "server_error"),
    ],
)
def test_fake_server_error_bodies_have_openai_shape(status: int, message: str, code: str | None, kind: str) -> None:
    with (
        FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(status, message))]) as server,
        httpx2.Client() as client,
    ):
        response = client.post(f"{server.base_url(API)}/responses", json={"model": "m", "input": []})
    assert response.status_code == status
    error = response.json()["error"]
    assert error == {
        "message": message,
        "type": kind,
        "param": "input" if code == "context_length_exceeded" else None,
        "code": code,
    }
    if status == 429:
        assert response.headers["retry-after"] == "1"


def test_output_cap_has_a_floor_and_can_be_left_out() -> None:
    assert build_request_body(_plain_model(), hello(), StreamOptions(max_tokens=5))["max_output_tokens"] == 16
    capless = _plain_model(compat={"supportsMaxOutputTokens": False})
    assert "max_output_tokens" not in build_request_body(capless, hello(), StreamOptions(max_tokens=500))
