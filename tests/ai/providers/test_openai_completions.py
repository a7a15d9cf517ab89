"""``openai-completions`` over real HTTP against the fake server: streaming, errors, abort, requests."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
from typing import Any

import pytest

from pi_harness.ai import (
    AbortController,
    SimpleStreamOptions,
    StreamOptions,
    is_context_overflow,
    is_retryable_error_message,
    stream,
    stream_simple,
)
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.providers.openai_completions import (
    ChunkReader,
    OpenAICompletionsOptions,
    ProviderStreamError,
    format_openai_error,
    parse_usage,
)
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)

API = "openai-completions"


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 1}


def context(*messages: dict[str, Any], **extra: Any) -> Any:
    return {"messages": list(messages) or [user("hi")], **extra}


async def collect(s: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = [event async for event in s]
    return events, await s.result()


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


async def run(server: FakeLLMServer, model: dict[str, Any] | None = None, ctx: Any = None, **options: Any) -> Any:
    options.setdefault("api_key", "sk-test")
    return await collect(stream(model or server.model(API), ctx or context(), OpenAICompletionsOptions(**options)))


# --- content ------------------------------------------------------------------------------------


async def test_text_streams_in_order_with_response_id() -> None:
    with FakeLLMServer(
        [ScriptedResponse(steps=[TextStep("Hello world", chunks=3)], response_id="chatcmpl-42")]
    ) as server:
        events, message = await run(server)
        request = server.requests[0]
    assert kinds(events) == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert "".join(e["delta"] for e in events if e["type"] == "text_delta") == "Hello world"
    assert events[-2]["content"] == "Hello world"
    assert events[-1]["reason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hello world"}]
    assert message["stopReason"] == "stop"
    assert message["responseId"] == "chatcmpl-42"
    assert (message["api"], message["provider"], message["model"]) == (API, "fake", "fake-model")
    assert request.path == "/v1/chat/completions"
    assert request.json["stream"] is True
    assert request.json["stream_options"] == {"include_usage": True}
    assert request.json["messages"] == [{"role": "user", "content": "hi"}]


async def test_thinking_comes_from_reasoning_content_and_is_signed_with_the_field() -> None:
    script = ScriptedResponse(steps=[ThinkingStep("Let me think.", chunks=2), TextStep("Answer.", chunks=1)])
    with FakeLLMServer([script]) as server:
        events, message = await run(server, server.model(API, reasoning=True))
    assert kinds(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        # Like Pi: blocks stay open until the response ends, then close in order.
        "text_start",
        "text_delta",
        "thinking_end",
        "text_end",
        "done",
    ]
    assert message["content"][0] == {
        "type": "thinking",
        "thinking": "Let me think.",
        "thinkingSignature": "reasoning_content",
    }
    assert message["content"][1] == {"type": "text", "text": "Answer."}


@pytest.mark.parametrize("field", ["reasoning", "reasoning_text"])
async def test_other_reasoning_fields_become_the_signature(field: str) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[ThinkingStep("hmm", signature=field), TextStep("ok")])]) as server:
        _, message = await run(server)
    assert message["content"][0]["thinkingSignature"] == field
    assert message["content"][0]["thinking"] == "hmm"


async def test_one_tool_call_with_fragmented_arguments_grows_partial_arguments() -> None:
    arguments = {"path": "src/main.py", "limit": 200}
    script = ScriptedResponse(steps=[ToolCallStep("read", arguments, id="call_abc", chunks=5)], chunk_delay_ms=10)
    with FakeLLMServer([script]) as server:
        s = stream(server.model(API), context(), OpenAICompletionsOptions(api_key="k"))
        seen: list[tuple[str, dict[str, Any]]] = []
        events = []
        async for event in s:
            events.append(event)
            if event["type"] == "toolcall_delta":
                seen.append((event["delta"], copy.deepcopy(event["partial"]["content"][0]["arguments"])))
        message = await s.result()
    assert kinds(events) == ["start", "toolcall_start"] + ["toolcall_delta"] * 6 + ["toolcall_end", "done"]
    assert seen[0] == ("", {})  # the chunk naming the call carries no argument text yet
    assert "".join(delta for delta, _ in seen) == '{"path":"src/main.py","limit":200}'
    partials = [args for _, args in seen]
    assert any(args and args != arguments for args in partials)  # a truncated view was visible
    for earlier, later in itertools.pairwise(partials):
        assert set(earlier) <= set(later)
    assert events[-2]["toolCall"] == {"type": "toolCall", "id": "call_abc", "name": "read", "arguments": arguments}
    assert message["stopReason"] == "toolUse"
    assert events[-1]["reason"] == "toolUse"


async def test_several_tool_calls_after_text() -> None:
    script = ScriptedResponse(
        steps=[
            TextStep("Reading both.", chunks=1),
            ToolCallStep("read", {"path": "a.py"}, id="call_1", chunks=3),
            ToolCallStep("grep", {"pattern": "def ", "path": "."}, id="call_2", chunks=4),
        ]
    )
    with FakeLLMServer([script]) as server:
        events, message = await run(server)
    assert [(e["type"], e.get("contentIndex")) for e in events if e["type"].endswith(("_start", "_end"))] == [
        ("text_start", 0),
        ("toolcall_start", 1),
        ("toolcall_start", 2),
        ("text_end", 0),
        ("toolcall_end", 1),
        ("toolcall_end", 2),
    ]
    assert message["content"][1:] == [
        {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.py"}},
        {"type": "toolCall", "id": "call_2", "name": "grep", "arguments": {"pattern": "def ", "path": "."}},
    ]
    assert message["stopReason"] == "toolUse"


async def test_usage_subtracts_cached_tokens_and_prices_with_the_model() -> None:
    usage = {"input": 1000, "output": 400, "cacheRead": 3000, "cacheWrite": 500, "reasoning": 150}
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")], usage=usage)]) as server:
        model = server.model(API, cost={"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75})
        _, message = await run(server, model)
    got = message["usage"]
    assert (got["input"], got["output"], got["cacheRead"], got["cacheWrite"]) == (1000, 400, 3000, 500)
    assert got["reasoning"] == 150
    assert got["totalTokens"] == 4900
    assert got["cost"]["input"] == pytest.approx(0.003)
    assert got["cost"]["output"] == pytest.approx(0.006)
    assert got["cost"]["cacheRead"] == pytest.approx(0.0009)
    assert got["cost"]["cacheWrite"] == pytest.approx(0.001875)
    assert got["cost"]["total"] == pytest.approx(0.003 + 0.006 + 0.0009 + 0.001875)


def test_parse_usage_counts_reasoning_once() -> None:
    # OpenAI: reasoning is part of completion_tokens, total = prompt + completion.
    openai = parse_usage(
        {
            "prompt_tokens": 120,
            "completion_tokens": 90,
            "total_tokens": 210,
            "prompt_tokens_details": {"cached_tokens": 20},
            "completion_tokens_details": {"reasoning_tokens": 60},
        }
    )
    assert (openai.input, openai.output, openai.cache_read, openai.reasoning) == (100, 90, 20, 60)
    # xAI-style: reasoning reported beside completion_tokens and counted in the total.
    xai = parse_usage(
        {
            "prompt_tokens": 32,
            "completion_tokens": 9,
            "total_tokens": 135,
            "completion_tokens_details": {"reasoning_tokens": 94},
        }
    )
    assert (xai.input, xai.output, xai.reasoning) == (32, 103, 94)
    # Without a total, reasoning larger than the completion cannot be a part of it.
    no_total = parse_usage(
        {"prompt_tokens": 5, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 40}}
    )
    assert no_total.output == 43
    # DeepSeek's older cache field.
    deepseek = parse_usage({"prompt_tokens": 50, "completion_tokens": 7, "prompt_cache_hit_tokens": 30})
    assert (deepseek.input, deepseek.cache_read, deepseek.reasoning) == (20, 30, 0)


async def test_length_and_content_filter_and_unknown_finish_reasons() -> None:
    responses = [
        ScriptedResponse(steps=[TextStep("cut")], native_stop="length"),
        ScriptedResponse(steps=[TextStep("blocked")], native_stop="content_filter"),
        ScriptedResponse(steps=[TextStep("odd")], native_stop="mystery"),
        ScriptedResponse(steps=[TextStep("legacy")], native_stop="end"),
    ]
    with FakeLLMServer(responses) as server:
        results = [(await run(server))[1] for _ in responses]
    assert results[0]["stopReason"] == "length"
    assert results[1]["stopReason"] == "error"
    assert results[1]["errorMessage"] == "An unknown error occurred"
    assert results[1]["content"] == [{"type": "text", "text": "blocked"}]
    assert results[2]["stopReason"] == "error"
    assert results[2]["errorMessage"] == "Unhandled stop reason: mystery"
    assert results[3]["stopReason"] == "stop"


# --- wire variants of other servers (fed straight into the chunk reader) -------------------------


def _reader(model: dict[str, Any]) -> ChunkReader:
    builder = MessageBuilder(model)  # type: ignore[arg-type]
    builder.start()
    return ChunkReader(builder)


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> str:
    import orjson

    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish, **extra}]
    return orjson.dumps({"id": "x-1", "object": "chat.completion.chunk", "choices": choices}).decode()


def test_usage_on_the_choice_and_calls_without_index(tmp_path: Any) -> None:
    model = FakeLLMServer().model(API)
    reader = _reader(model)
    # Moonshot puts usage on the choice; some servers omit ``index`` and repeat the id.
    reader.feed(
        _chunk({"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{"}}]})
    )
    reader.feed(_chunk({"tool_calls": [{"id": "c1", "function": {"arguments": '"path":"."}'}}]}))
    reader.feed(_chunk({}, "stop", usage={"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}))
    reader.feed("[DONE]")
    reason = reader.stop_reason()
    reader.builder.finish(reason)
    output = reader.builder.output
    assert output["content"] == [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": "."}}]
    assert reason == "toolUse"  # "stop" after tool calls still asks for the tools to run
    assert (output["usage"]["input"], output["usage"]["output"]) == (11, 4)
    assert output["responseId"] == "x-1"


def test_a_new_id_on_a_reused_index_starts_a_new_call() -> None:
    reader = _reader(FakeLLMServer().model(API))
    reader.feed(_chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "x", "arguments": "{}"}}]}))
    reader.feed(_chunk({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "y", "arguments": "{}"}}]}))
    reader.feed(_chunk({}, "tool_calls"))
    reader.builder.finish(reader.stop_reason())
    assert [(b["id"], b["name"]) for b in reader.builder.output["content"]] == [("a", "x"), ("b", "y")]


def test_a_stream_without_finish_or_done_is_an_error() -> None:
    reader = _reader(FakeLLMServer().model(API))
    reader.feed(_chunk({"content": "half"}))
    with pytest.raises(ProviderStreamError, match="terminated"):
        reader.stop_reason()
    assert is_retryable_error_message("Stream terminated before the response was complete")


def test_openrouter_encrypted_reasoning_details_ride_on_the_tool_call() -> None:
    reader = _reader(FakeLLMServer().model(API))
    detail = {"type": "reasoning.encrypted", "id": "call_9", "data": "opaque==", "format": "google-gemini-v1"}
    reader.feed(_chunk({"reasoning_details": [detail]}))
    reader.feed(_chunk({"tool_calls": [{"index": 0, "id": "call_9", "function": {"name": "ls", "arguments": "{}"}}]}))
    reader.feed(_chunk({}, "tool_calls"))
    reader.builder.finish(reader.stop_reason())
    import orjson

    assert orjson.loads(reader.builder.output["content"][0]["thoughtSignature"]) == detail


# --- errors -------------------------------------------------------------------------------------


def sdk_error(status: int, message: str, type_: str, code: str | None) -> str:
    """Pi's text for an OpenAI error object: the status and the object as compact JSON."""
    error = {"message": message, "type": type_, "param": None, "code": code}
    return f"{status}: " + json.dumps(error, separators=(",", ":"), ensure_ascii=False)


CONTEXT_MESSAGE = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. "
    "Please reduce the length of the messages."
)


@pytest.mark.parametrize(
    ("spec", "expected", "overflow", "retryable"),
    [
        (
            HTTPErrorSpec(401, "Incorrect API key provided: sk-bad. You can find your API key at the dashboard."),
            sdk_error(
                401,
                "Incorrect API key provided: sk-bad. You can find your API key at the dashboard.",
                "invalid_request_error",
                "invalid_api_key",
            ),
            False,
            False,
        ),
        (
            HTTPErrorSpec(400, CONTEXT_MESSAGE),
            sdk_error(400, CONTEXT_MESSAGE, "invalid_request_error", "context_length_exceeded"),
            True,
            False,
        ),
        (
            HTTPErrorSpec(
                429,
                "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29500, Requested 900.",
                headers={"retry-after": "2"},
            ),
            sdk_error(
                429,
                "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29500, Requested 900.",
                "requests",
                "rate_limit_exceeded",
            ),
            False,
            True,
        ),
        (
            HTTPErrorSpec(500, "The server had an error while processing your request. Sorry about that!"),
            sdk_error(
                500, "The server had an error while processing your request. Sorry about that!", "server_error", None
            ),
            False,
            True,
        ),
        (
            HTTPErrorSpec(529, "The engine is currently overloaded, please try again later"),
            sdk_error(529, "The engine is currently overloaded, please try again later", "server_error", "overloaded"),
            False,
            True,
        ),
        (
            HTTPErrorSpec(
                429,
                "You exceeded your current quota, please check your plan and billing details.",
                type="insufficient_quota",
            ),
            # Quoting the object keeps its code visible: a quota error is not retried.
            sdk_error(
                429,
                "You exceeded your current quota, please check your plan and billing details.",
                "insufficient_quota",
                "insufficient_quota",
            ),
            False,
            False,
        ),
    ],
)
async def test_http_errors_read_like_the_openai_sdk(
    spec: HTTPErrorSpec, expected: str, overflow: bool, retryable: bool
) -> None:
    seen: list[tuple[int, dict[str, str]]] = []
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        events, message = await run(server, on_response=lambda status, headers: seen.append((status, dict(headers))))
    assert kinds(events) == ["error"]
    assert events[0]["reason"] == "error"
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == expected
    assert message["content"] == []
    assert is_context_overflow(message, 128_000) is overflow
    assert is_retryable_error_message(message["errorMessage"]) is retryable
    assert seen[0][0] == spec.status
    for name, value in spec.headers.items():
        assert seen[0][1][name] == value


async def test_llama_cpp_context_overflow_is_recognised() -> None:
    spec = HTTPErrorSpec(
        400,
        "request (130000 tokens) exceeds the available context size (8192 tokens), try increasing it",
        type="exceed_context_size_error",
    )
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        model = server.model(API, provider="llamacpp", model_id="qwen3-8b", contextWindow=8192)
        _, message = await run(server, model)
    assert message["errorMessage"] == (
        '400: {"code":400,"message":"request (130000 tokens) exceeds the available context size (8192 tokens), '
        'try increasing it","type":"exceed_context_size_error","n_prompt_tokens":130000,"n_ctx":8192}'
    )
    assert is_context_overflow(message, 8192)


async def test_openrouter_raw_provider_error_is_appended() -> None:
    body = (
        '{"error":{"message":"Provider returned error","code":400,'
        '"metadata":{"raw":"{\\"type\\":\\"error\\",\\"error\\":{\\"message\\":\\"prompt is too long: 210000 tokens\\"}}",'
        '"provider_name":"Anthropic"}}}'
    )
    with FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(400, "", body=body))]) as server:
        _, message = await run(server)
    assert message["errorMessage"] == (
        "400: "
        + json.dumps(json.loads(body)["error"], separators=(",", ":"))
        + '\n{"type":"error","error":{"message":"prompt is too long: 210000 tokens"}}'
    )
    assert is_context_overflow(message)


def test_error_bodies_without_an_openai_shape() -> None:
    assert format_openai_error(400, "") == "400 status code (no body)"
    assert format_openai_error(502, "<html>Bad Gateway</html>") == "502 <html>Bad Gateway</html>"
    # A body without an "error" member is quoted whole; an error that is a string, as JSON.
    vllm = '{"object":"error","message":"bad model","code":400}'
    assert format_openai_error(400, vllm) == f"400: {vllm}"
    assert format_openai_error(404, '{"error":"model \'x\' not found"}') == "404 \"model 'x' not found\""
    assert format_openai_error(500, '{"error":{}}') == "500 {}"
    long = json.dumps({"error": {"message": "m", "detail": "x" * 5000}}, separators=(",", ":"))
    text = format_openai_error(400, long)
    assert text.startswith('400: {"message":"m","detail":"xxx') and text.endswith("... [truncated 1027 chars]")


async def test_in_stream_error_keeps_partial_content() -> None:
    script = ScriptedResponse(
        steps=[TextStep("partial answer", chunks=2)],
        stream_error=HTTPErrorSpec(500, "The server had an error processing your request.", type="server_error"),
    )
    with FakeLLMServer([script]) as server:
        events, message = await run(server)
    assert kinds(events) == ["start", "text_start", "text_delta", "text_delta", "error"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "The server had an error processing your request."
    assert message["content"] == [{"type": "text", "text": "partial answer"}]


async def test_in_stream_openrouter_error_chunk_with_raw_metadata() -> None:
    body = (
        '{"id":"gen-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""},'
        '"finish_reason":"error"}],"error":{"code":502,"message":"Provider disconnected",'
        '"metadata":{"raw":"upstream connect error"}}}'
    )
    script = ScriptedResponse(steps=[TextStep("x")], stream_error=HTTPErrorSpec(502, "", body=body))
    with FakeLLMServer([script]) as server:
        _, message = await run(server)
    assert message["errorMessage"] == "Provider disconnected\nupstream connect error"
    assert is_retryable_error_message(message["errorMessage"])


async def test_malformed_chunk_is_an_error() -> None:
    script = ScriptedResponse(steps=[TextStep("x")], stream_error=HTTPErrorSpec(500, "", body="{not json"))
    with FakeLLMServer([script]) as server:
        _, message = await run(server)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Could not parse stream chunk as JSON: {not json"


async def test_dropped_connection_is_a_retryable_error() -> None:
    script = ScriptedResponse(steps=[TextStep("one two three four", chunks=4)], drop_after=3)
    with FakeLLMServer([script]) as server:
        events, message = await run(server)
    assert events[-1]["type"] == "error"
    assert message["stopReason"] == "error"
    assert message["content"] == [{"type": "text", "text": "one two th"}]  # role chunk + two deltas
    assert message["errorMessage"].startswith("Connection error")
    assert is_retryable_error_message(message["errorMessage"])


async def test_abort_mid_stream_keeps_partial_text_and_closes_the_connection() -> None:
    script = ScriptedResponse(steps=[TextStep("word " * 40, chunks=40)], chunk_delay_ms=20)
    controller = AbortController()
    with FakeLLMServer([script]) as server:
        s = stream(server.model(API), context(), OpenAICompletionsOptions(api_key="k", signal=controller.signal))
        events = []
        async for event in s:
            events.append(event)
            if event["type"] == "text_delta":
                controller.abort()
        message = await s.result()
        for _ in range(100):
            if server.cancelled_streams:
                break
            await asyncio.sleep(0.02)
        assert server.cancelled_streams == 1
    assert events[-1]["type"] == "error"
    assert events[-1]["reason"] == "aborted"
    # Like Pi's Chat Completions stream, the open text block still ends before the error.
    assert events[-2]["type"] == "text_end" and events[-2]["content"] == message["content"][0]["text"]
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == "Request was aborted"
    text = message["content"][0]["text"]
    assert text.startswith("word") and len(text) < len("word " * 40)


async def test_already_aborted_signal_sends_nothing() -> None:
    controller = AbortController()
    controller.abort()
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        events, message = await run(server, signal=controller.signal)
        assert server.requests == []
    assert kinds(events) == ["error"]
    assert message["stopReason"] == "aborted"


async def test_provider_level_retry_after_429() -> None:
    responses = [
        ScriptedResponse(http_error=HTTPErrorSpec(429, "Rate limit reached", headers={"retry-after": "0"})),
        ScriptedResponse(steps=[TextStep("after retry")]),
    ]
    with FakeLLMServer(responses) as server:
        events, message = await run(server, max_retries=1)
        assert len(server.requests) == 2
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "after retry"}]
    assert kinds(events).count("start") == 1


async def test_consecutive_requests_reuse_the_server() -> None:
    responses = [ScriptedResponse(steps=[TextStep(f"answer {i}")], chunk_delay_ms=5) for i in range(3)]
    with FakeLLMServer(responses) as server:
        texts = [(await run(server))[1]["content"][0]["text"] for _ in range(3)]
    assert texts == ["answer 0", "answer 1", "answer 2"]


# --- the request --------------------------------------------------------------------------------


async def test_auth_and_headers_with_request_headers_winning() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model(API, headers={"X-Model": "from-model", "X-Override": "model"})
        await run(server, model, api_key="sk-secret", headers={"x-override": "request"})
        headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer sk-secret"
    assert headers["content-type"] == "application/json"
    assert headers["x-model"] == "from-model"
    assert headers["x-override"] == "request"


async def test_empty_key_sends_no_authorization_header() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("local")])]) as server:
        _, message = await run(server, server.model(API, provider="llamacpp"), api_key="")
        assert "authorization" not in server.requests[0].headers
    assert message["content"][0]["text"] == "local"


async def test_on_payload_replaces_the_body() -> None:
    seen: list[dict[str, Any]] = []

    def hook(payload: dict[str, Any], model: Any) -> dict[str, Any]:
        seen.append(copy.deepcopy(payload))
        return {**payload, "messages": [{"role": "user", "content": "replaced"}], "seed": 7}

    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await run(server, on_payload=hook)
        body = server.requests[0].json
    assert seen[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert body["messages"] == [{"role": "user", "content": "replaced"}]
    assert body["seed"] == 7


async def test_lone_surrogates_are_removed_from_the_request() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        _, message = await run(server, ctx=context(user("bad \ud800 text")))
        body = server.requests[0].json
    assert message["stopReason"] == "stop"
    assert body["messages"][0]["content"] == "bad  text"


async def test_stream_simple_defaults_max_tokens_and_maps_reasoning() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(3)]) as server:
        reasoning_model = server.model(API, reasoning=True, maxTokens=64_000)
        ctx = context(system="x")
        await collect(stream_simple(reasoning_model, ctx, SimpleStreamOptions(api_key="k", reasoning="high")))
        await collect(stream_simple(reasoning_model, ctx, SimpleStreamOptions(api_key="k", reasoning="off")))
        await collect(
            stream_simple(server.model(API), ctx, SimpleStreamOptions(api_key="k", reasoning="high", max_tokens=99))
        )
        bodies = [r.json for r in server.requests]
    assert bodies[0]["reasoning_effort"] == "high"
    assert bodies[0]["max_completion_tokens"] == 64_000
    assert "reasoning_effort" not in bodies[1]
    assert "reasoning_effort" not in bodies[2]  # not a reasoning model
    assert bodies[2]["max_completion_tokens"] == 99


async def test_raw_stream_with_a_plain_stream_options_object() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("plain")])]) as server:
        _, message = await collect(stream(server.model(API), context(), StreamOptions(api_key="k", temperature=0.2)))
        body = server.requests[0].json
    assert message["content"][0]["text"] == "plain"
    assert body["temperature"] == 0.2
    assert "max_completion_tokens" not in body
