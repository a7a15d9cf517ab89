"""``azure-openai-responses`` over real HTTP against the fake server's Azure front door."""

from __future__ import annotations

from typing import Any

import httpx2
import orjson
import pytest
from _streams import collect, hello

from pi_harness.ai import api
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers.azure_openai_config import (
    BASE_URL_REQUIRED,
    normalize_base_url,
    parse_deployment_map,
    resolve_base_url,
)
from pi_harness.ai.providers.azure_openai_responses import (
    AzureOpenAIResponsesOptions,
    stream,
)
from pi_harness.ai.registry import resolve_api_provider
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.types import Model
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from pi_harness.testing.fake_llm.azure_openai_responses import ACCESS_DENIED, MISSING_API_VERSION

API = "azure-openai-responses"


def azure_model(server: FakeLLMServer, **overrides: Any) -> Model:
    return server.model(API, model_id="gpt-5.4", provider="azure", **overrides)


def opts(**kwargs: Any) -> AzureOpenAIResponsesOptions:
    return AzureOpenAIResponsesOptions(api_key="azure-key-123", **kwargs)


# --- the request --------------------------------------------------------------------------


async def test_request_goes_to_responses_with_api_version_and_api_key_header() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        _, message = await collect(stream(azure_model(server), hello(), opts(session_id="s" * 80, max_tokens=4)))
        request = server.requests[0]
    assert message["stopReason"] == "stop"
    assert message["api"] == API and message["provider"] == "azure"
    assert request.path == "/openai/v1/responses"
    assert request.query == "api-version=v1"
    assert request.headers["api-key"] == "azure-key-123"
    assert "authorization" not in request.headers
    body = request.json
    assert list(body)[:5] == ["model", "input", "stream", "prompt_cache_key", "store"]
    assert body["model"] == "gpt-5.4"
    assert body["prompt_cache_key"] == "s" * 64
    assert body["store"] is False
    assert body["max_output_tokens"] == 16  # raised to the service's minimum


async def test_deployment_map_and_api_version_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "other=x, gpt-5.4 = my-deployment ,bad")
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2025-04-01-preview")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        await collect(stream(azure_model(server), hello(), opts()))
        request = server.requests[0]
    assert request.json["model"] == "my-deployment"
    assert request.query == "api-version=2025-04-01-preview"


async def test_explicit_options_beat_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", "http://127.0.0.1:9/never-used")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        model = azure_model(server, baseUrl="http://127.0.0.1:9/unused")
        options = opts(azure_base_url=server.base_url(API), azure_deployment_name="dep", azure_api_version="v2")
        _, message = await collect(stream(model, hello(), options))
        request = server.requests[0]
    assert message["stopReason"] == "stop"
    assert request.json["model"] == "dep" and request.query == "api-version=v2"


def test_base_url_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert normalize_base_url("https://res.openai.azure.com/") == "https://res.openai.azure.com/openai/v1"
    assert normalize_base_url("https://res.ai.azure.com/openai") == "https://res.ai.azure.com/openai/v1"
    assert (
        normalize_base_url("https://res.cognitiveservices.azure.com/openai/v1/responses?x=1")
        == "https://res.cognitiveservices.azure.com/openai/v1"
    )
    assert normalize_base_url("https://res.openai.azure.com/custom/") == "https://res.openai.azure.com/custom"
    assert normalize_base_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080"
    with pytest.raises(ValueError, match="Invalid Azure OpenAI base URL: nope"):
        normalize_base_url("nope")
    model: Any = {"id": "m", "baseUrl": ""}
    with pytest.raises(ValueError) as info:
        resolve_base_url(model)
    assert str(info.value) == BASE_URL_REQUIRED
    monkeypatch.setenv("AZURE_OPENAI_RESOURCE_NAME", "myres")
    assert resolve_base_url(model) == "https://myres.openai.azure.com/openai/v1"
    assert parse_deployment_map("a=b=c,,=x,y=") == {"a": "b"}


async def test_reasoning_effort_and_off(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        model = azure_model(server, reasoning=True, thinkingLevelMap={"high": "xhigh"})
        await collect(api.stream_simple(model, hello(), _simple("high")))
        await collect(api.stream_simple(model, hello(), _simple(None)))
        no_off = azure_model(server, reasoning=True, thinkingLevelMap={"off": None})
        await collect(api.stream_simple(no_off, hello(), _simple(None)))
        on, off, none = (r.json for r in server.requests)
    assert on["reasoning"] == {"effort": "xhigh", "summary": "auto"}
    assert on["include"] == ["reasoning.encrypted_content"]
    assert off["reasoning"] == {"effort": "none"} and "include" not in off
    assert "reasoning" not in none


def _simple(level: Any) -> Any:
    from pi_harness.ai.options import SimpleStreamOptions

    return SimpleStreamOptions(api_key="azure-key-123", reasoning=level)


async def test_public_api_reads_the_azure_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "env-azure-key")
    assert resolve_api_provider({"api": API}).api == API  # type: ignore[arg-type]
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("from env")])]) as server:
        model = server.model(API, provider="azure")
        message = await api.complete_simple(model, hello())
        assert server.requests[0].headers["api-key"] == "env-azure-key"
    assert message["content"][0]["text"] == "from env"  # type: ignore[typeddict-item]


async def test_missing_key_is_an_error_event_naming_the_provider() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        events, message = await collect(stream(azure_model(server), hello(), AzureOpenAIResponsesOptions(api_key="")))
        assert server.requests == []
    assert [e["type"] for e in events] == ["error"]
    assert message["errorMessage"] == "No API key for provider: azure"


# --- content --------------------------------------------------------------------------------


async def test_text_thinking_and_tool_calls_stream_as_normalised_events() -> None:
    script = ScriptedResponse(
        steps=[
            ThinkingStep("Plan it.", signature="enc"),
            TextStep("Looking.", chunks=2),
            ToolCallStep("read", {"path": "a.txt"}, id="call_1", chunks=2),
        ],
        usage={"input": 1000, "output": 200, "cacheRead": 3000, "reasoning": 50},
    )
    with FakeLLMServer([script]) as server:
        model = azure_model(
            server, reasoning=True, cost={"input": 2.0, "output": 8.0, "cacheRead": 0.5, "cacheWrite": 0}
        )
        events, message = await collect(stream(model, hello(), opts(reasoning_effort="low")))
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
        "toolcall_end",
        "done",
    ]
    assert message["stopReason"] == "toolUse"
    thinking, text, call = message["content"]
    assert thinking["type"] == "thinking" and thinking["thinking"] == "Plan it."
    assert orjson.loads(thinking["thinkingSignature"])["encrypted_content"] == "enc"
    assert text["type"] == "text" and text["text"] == "Looking."
    assert call["type"] == "toolCall" and call["arguments"] == {"path": "a.txt"}
    assert call["id"].startswith("call_1|fc_")
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == (1000, 200, 3000, 4200)
    assert usage["cost"]["total"] == pytest.approx(0.002 + 0.0016 + 0.0015)


# --- errors -------------------------------------------------------------------------------


def test_fake_front_door_refuses_requests_without_key_or_api_version() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")])]) as server:
        url = server.base_url(API) + "/responses"
        no_key = httpx2.post(url + "?api-version=v1", json={"model": "m", "input": []})
        no_version = httpx2.post(url, json={"model": "m", "input": []}, headers={"api-key": "k"})
        assert server.pending == 1
    assert no_key.status_code == 401
    assert no_key.json() == {"error": {"code": "401", "message": ACCESS_DENIED}}
    assert no_version.status_code == 400
    assert no_version.json() == {"error": {"code": "MissingApiVersionParameter", "message": MISSING_API_VERSION}}


async def test_401_from_the_gateway_is_not_retryable() -> None:
    with FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(401, ACCESS_DENIED))]) as server:
        events, message = await collect(stream(azure_model(server), hello(), opts()))
    assert [e["type"] for e in events] == ["error"]
    assert message["errorMessage"] == f'Azure OpenAI API error (401): {{"code":"401","message":"{ACCESS_DENIED}"}}'
    assert not is_retryable_error_message(message["errorMessage"])
    assert not is_context_overflow(message)


async def test_context_window_error_is_an_overflow() -> None:
    text = "Your input exceeds the context window of this model. Please adjust your input and try again."
    with FakeLLMServer([ScriptedResponse(http_error=HTTPErrorSpec(400, text))]) as server:
        _, message = await collect(stream(azure_model(server), hello(), opts()))
    error = orjson.loads(message["errorMessage"].split(": ", 1)[1])
    assert message["errorMessage"].startswith("Azure OpenAI API error (400): ")
    assert error == {
        "message": text,
        "type": "invalid_request_error",
        "param": "input",
        "code": "context_length_exceeded",
    }
    assert is_context_overflow(message)
    assert not is_retryable_error_message(message["errorMessage"])


async def test_rate_limit_and_server_errors_are_retryable() -> None:
    rate = (
        "Requests to the Responses_Create Operation under Azure OpenAI API version v1 have exceeded "
        "token rate limit of your current AIServices S0 pricing tier. Please retry after 6 seconds."
    )
    server_error = "The server had an error while processing your request. Sorry about that!"
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(429, rate)),
        ScriptedResponse(http_error=HTTPErrorSpec(500, server_error)),
    ]
    with FakeLLMServer(scripts) as server:
        _, limited = await collect(stream(azure_model(server), hello(), opts()))
        _, failed = await collect(stream(azure_model(server), hello(), opts()))
    assert '"code":"RateLimitReached"' in limited["errorMessage"]
    assert failed["errorMessage"].startswith('Azure OpenAI API error (500): {"message":"The server had an error')
    for message in (limited, failed):
        assert is_retryable_error_message(message["errorMessage"])
        assert not is_context_overflow(message)


async def test_provider_retry_honours_retry_after_then_succeeds() -> None:
    err = HTTPErrorSpec(429, "Rate limit is exceeded. Try again in 0 seconds.", headers={"retry-after": "0"})
    scripts = [ScriptedResponse(http_error=err), ScriptedResponse(steps=[TextStep("second time")])]
    with FakeLLMServer(scripts) as server:
        _, message = await collect(stream(azure_model(server), hello(), opts(max_retries=2)))
        assert len(server.requests) == 2
    assert message["content"][0]["text"] == "second time"  # type: ignore[typeddict-item]


async def test_non_json_error_body_and_dropped_stream() -> None:
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(502, "", body="<html>Bad Gateway</html>")),
        ScriptedResponse(steps=[TextStep("partial answer", chunks=3)], drop_after=4),
    ]
    with FakeLLMServer(scripts) as server:
        _, gateway = await collect(stream(azure_model(server), hello(), opts()))
        _, dropped = await collect(stream(azure_model(server), hello(), opts()))
    assert gateway["errorMessage"] == "Azure OpenAI API error (502): 502 <html>Bad Gateway</html>"
    assert is_retryable_error_message(gateway["errorMessage"])
    assert dropped["stopReason"] == "error"
    assert is_retryable_error_message(dropped["errorMessage"])
