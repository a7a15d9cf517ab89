"""``openai-codex-responses`` over real HTTP against the fake Codex backend route."""

from __future__ import annotations

import base64
from typing import Any

import httpx2
import orjson
import pytest
from _streams import collect

from pi_harness.ai import api
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.openai_codex_responses import (
    ACCOUNT_ID_ERROR,
    CodexStreamReader,
    OpenAICodexResponsesOptions,
    account_id,
    resolve_url,
    stream,
)
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
from pi_harness.testing.fake_llm.openai_codex_responses import MISSING_AUTH

API = "openai-codex-responses"


def jwt(claims: dict[str, Any]) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(orjson.dumps(data)).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


TOKEN = jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-42"}})


def context() -> Context:
    return {
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": "Hello", "timestamp": 1}],
        "tools": [{"name": "read", "description": "Read a file", "parameters": {"type": "object"}}],
    }


def codex_model(server: FakeLLMServer, **overrides: Any) -> Model:
    return server.model(API, model_id="gpt-5.4", provider="openai-codex", **overrides)


def opts(**kwargs: Any) -> OpenAICodexResponsesOptions:
    """Options of an SSE request (the WebSocket transport has tests of its own)."""
    return OpenAICodexResponsesOptions(**{"api_key": TOKEN, "transport": "sse", **kwargs})


def test_url_and_account_id_rules() -> None:
    assert resolve_url(None) == "https://chatgpt.com/backend-api/codex/responses"
    assert resolve_url("http://h/x/") == "http://h/x/codex/responses"
    assert resolve_url("http://h/codex") == "http://h/codex/responses"
    assert resolve_url("http://h/codex/responses/") == "http://h/codex/responses"
    assert account_id(TOKEN) == "acct-42"
    for bad in ("sk-plain-key", jwt({"sub": "x"}), "a.!!!.c"):
        with pytest.raises(ValueError, match=ACCOUNT_ID_ERROR):
            account_id(bad)


async def test_request_headers_and_body() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        model = codex_model(server, headers={"originator": "mine", "X-Extra": "1"})
        _, message = await collect(stream(model, context(), opts(session_id="sess-1", service_tier="flex")))
        request = server.requests[0]
    assert message["stopReason"] == "stop" and message["api"] == API
    assert request.path == "/backend-api/codex/responses"
    headers = request.headers
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["chatgpt-account-id"] == "acct-42"
    assert headers["openai-beta"] == "responses=experimental"
    assert headers["session-id"] == headers["x-client-request-id"] == "sess-1"
    assert headers["originator"] == "mine" and headers["x-extra"] == "1"
    body = request.json
    assert list(body) == [
        "model",
        "store",
        "stream",
        "instructions",
        "input",
        "text",
        "include",
        "prompt_cache_key",
        "tool_choice",
        "parallel_tool_calls",
        "service_tier",
        "tools",
    ]
    assert body["instructions"] == "Be brief."
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "Hello"}]}]
    assert body["text"] == {"verbosity": "low"}
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object"},
            "strict": None,
        }
    ]
    assert "max_output_tokens" not in body


async def test_default_instructions_reasoning_and_no_cache_key() -> None:
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        model = codex_model(server, reasoning=True, thinkingLevelMap={"high": "xhigh"})
        plain: Context = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
        simple = SimpleStreamOptions(
            api_key=TOKEN, reasoning="high", session_id="s", cache_retention="none", transport="sse"
        )
        await collect(api.stream_simple(model, plain, simple))
        await collect(api.stream_simple(model, plain, SimpleStreamOptions(api_key=TOKEN, transport="sse")))
        high, off = (r.json for r in server.requests)
        assert "session-id" not in server.requests[0].headers
    assert high["instructions"] == "You are a helpful assistant."
    assert "prompt_cache_key" not in high
    assert high["reasoning"] == {"effort": "xhigh", "summary": "auto"}
    assert off["reasoning"] == {"effort": "none"}


async def test_token_without_account_is_an_error_event() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        events, message = await collect(stream(codex_model(server), context(), opts(api_key="sk-not-a-jwt")))
        assert server.requests == []
    assert [e["type"] for e in events] == ["error"]
    assert message["errorMessage"] == ACCOUNT_ID_ERROR


async def test_thinking_text_tool_call_usage_and_priority_pricing() -> None:
    script = ScriptedResponse(
        steps=[ThinkingStep("Hmm.", signature="enc"), TextStep("Reading."), ToolCallStep("read", {"path": "x"})],
        usage={"input": 1000, "output": 100, "cacheRead": 500},
    )
    with FakeLLMServer([script]) as server:
        model = codex_model(
            server, reasoning=True, cost={"input": 1.0, "output": 10.0, "cacheRead": 0.1, "cacheWrite": 0}
        )
        events, message = await collect(stream(model, context(), opts(service_tier="priority")))
    kinds = [e["type"] for e in events if e["type"].endswith(("_start", "_end")) or e["type"] == "done"]
    assert kinds == [
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_end",
        "toolcall_start",
        "toolcall_end",
        "done",
    ]
    assert message["stopReason"] == "toolUse"
    assert [b["type"] for b in message["content"]] == ["thinking", "text", "toolCall"]
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"]) == (1000, 100, 500)
    assert usage["cost"]["input"] == pytest.approx(0.002)  # priority: twice the price
    assert usage["cost"]["total"] == pytest.approx(2 * (0.001 + 0.001 + 0.00005))


def _reader_message(*payloads: dict[str, Any]) -> tuple[CodexStreamReader, MessageBuilder]:
    model: Any = {
        "id": "gpt-5.4",
        "api": API,
        "provider": "openai-codex",
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    builder = MessageBuilder(model)
    reader = CodexStreamReader(builder, None)
    for payload in payloads:
        reader.feed(ServerSentEvent(data=orjson.dumps(payload).decode()))
    return reader, builder


def test_response_done_ends_the_stream_like_completed() -> None:
    reader, _ = _reader_message({"type": "response.done", "response": {"status": "completed", "usage": None}})
    assert reader.terminated and reader.reader.result() is None


def test_error_events_read_as_codex_errors() -> None:
    with pytest.raises(Exception, match=r"^Codex error: Your input exceeds the context window"):
        _reader_message({"type": "error", "message": "Your input exceeds the context window of this model."})
    with pytest.raises(Exception, match=r"^Codex error: server_is_overloaded$"):
        _reader_message({"type": "error", "error": {"code": "server_is_overloaded"}})
    with pytest.raises(Exception, match=r"^Codex response failed$"):
        _reader_message({"type": "response.failed", "response": {"error": None}})


async def test_in_stream_error_keeps_partial_text_and_classifies() -> None:
    script = ScriptedResponse(
        steps=[TextStep("partial")],
        stream_error=HTTPErrorSpec(
            500, "Your input exceeds the context window of this model.", type="context_length_exceeded"
        ),
    )
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(codex_model(server), context(), opts()))
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Codex error: Your input exceeds the context window of this model."
    assert message["content"][0]["text"] == "partial"  # type: ignore[typeddict-item]
    assert is_context_overflow(message)


def test_fake_backend_refuses_what_the_real_one_refuses() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")])]) as server:
        url = server.base_url(API) + "/codex/responses"
        auth = {"Authorization": f"Bearer {TOKEN}"}
        no_auth = httpx2.post(url, json={"store": False, "stream": True, "instructions": "x"})
        stored = httpx2.post(url, json={"store": True, "stream": True, "instructions": "x"}, headers=auth)
        no_instructions = httpx2.post(url, json={"store": False, "stream": True}, headers=auth)
        assert server.pending == 1
    assert no_auth.status_code == 401 and no_auth.json()["error"]["message"] == MISSING_AUTH
    assert (stored.status_code, stored.json()) == (400, {"detail": "Store must be set to false"})
    assert no_instructions.json() == {"detail": "Instructions are required"}


async def test_http_errors_usage_limit_overflow_and_server_error() -> None:
    overflow = "Your input exceeds the context window of this model. Please adjust your input and try again."
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(429, "The usage limit has been reached")),
        ScriptedResponse(http_error=HTTPErrorSpec(400, overflow)),
        ScriptedResponse(http_error=HTTPErrorSpec(500, "An error occurred while processing your request.")),
        ScriptedResponse(
            http_error=HTTPErrorSpec(401, "Provided authentication token is expired.", type="token_expired")
        ),
    ]
    with FakeLLMServer(scripts) as server:
        results = [(await collect(stream(codex_model(server), context(), opts())))[1] for _ in scripts]
    limit, too_long, failed, expired = (m["errorMessage"] for m in results)
    assert limit == "You have hit your ChatGPT usage limit (plus plan). Try again in ~10 min."
    assert not is_retryable_error_message(limit)
    assert too_long == overflow and is_context_overflow(results[1])
    # Like Pi, the status is not part of the text: only provider-level retry sees the 500.
    assert failed == "An error occurred while processing your request."
    assert expired == "Provided authentication token is expired."
    assert not is_retryable_error_message(expired)


async def test_dropped_stream_is_retryable() -> None:
    script = ScriptedResponse(steps=[TextStep("some text", chunks=3)], drop_after=4)
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(codex_model(server), context(), opts()))
    assert message["stopReason"] == "error"
    assert is_retryable_error_message(message["errorMessage"])


async def test_provider_retry_retries_a_500_by_status() -> None:
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(500, "An error occurred while processing your request.")),
        ScriptedResponse(steps=[TextStep("recovered")]),
    ]
    with FakeLLMServer(scripts) as server:
        _, message = await collect(stream(codex_model(server), context(), opts(max_retries=1)))
        assert len(server.requests) == 2
    assert message["content"][0]["text"] == "recovered"  # type: ignore[typeddict-item]


async def test_a_tool_asking_for_strict_sampling_keeps_strict_and_its_strict_schema() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    strict_tool = {
        "name": "read",
        "description": "Read a file",
        "parameters": schema,
        "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
    }
    plain_tool = {"name": "ls", "description": "List", "parameters": {"type": "object"}}
    ctx: Context = {**context(), "tools": [strict_tool, plain_tool]}  # type: ignore[list-item]
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        await collect(stream(codex_model(server), ctx, opts()))
        tools = server.requests[0].json["tools"]
    assert [tool["strict"] for tool in tools] == [True, None]
    assert tools[0]["parameters"] == {**schema, "additionalProperties": False}
