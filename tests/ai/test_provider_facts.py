"""Request details checked against the real Pi 1.4.0 on the fake server: OpenRouter routing is
sent whenever a model declares it, and ``ANTHROPIC_AUTH_TOKEN`` authenticates as a bearer."""

from __future__ import annotations

from typing import Any

import pytest

from pi_harness.ai import api
from pi_harness.ai.env_keys import AUTHENTICATED, get_env_api_key
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

HELLO: Any = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}


@pytest.mark.parametrize("routing", [{"order": ["anthropic"], "allow_fallbacks": False}, {}])
async def test_openrouter_routing_is_sent_to_any_host_even_when_empty(routing: dict[str, Any]) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model("openai-completions", provider="proxy", compat={"openRouterRouting": routing})
        await api.complete_simple(model, HELLO, SimpleStreamOptions(api_key="k"))
        body = server.requests[0].json
    assert body["provider"] == routing


async def test_no_routing_declared_sends_no_provider_field() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        await api.complete_simple(server.model("openai-completions"), HELLO, SimpleStreamOptions(api_key="k"))
        assert "provider" not in server.requests[0].json


async def test_anthropic_auth_token_is_a_bearer_and_wins_over_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api-key")
    assert get_env_api_key("anthropic") == AUTHENTICATED
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model("anthropic-messages", "claude-sonnet-4-5", provider="anthropic")
        message = await api.complete_simple(model, HELLO)  # the key comes from the environment
        headers = server.requests[0].headers
    assert message["stopReason"] == "stop", message.get("errorMessage")
    assert headers["authorization"] == "Bearer gateway-token"
    assert "x-api-key" not in headers


async def test_the_auth_token_is_only_for_the_anthropic_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(2)]) as server:
        proxy = server.model("anthropic-messages", "claude-sonnet-4-5", provider="proxy")
        await api.complete_simple(proxy, HELLO, SimpleStreamOptions(api_key="proxy-key"))
        own = server.model("anthropic-messages", "claude-sonnet-4-5", provider="anthropic")
        await api.complete_simple(own, HELLO, SimpleStreamOptions(api_key="stored-key"))  # a stored key wins
        first, second = (r.headers for r in server.requests)
    assert first["x-api-key"] == "proxy-key" and "authorization" not in first
    assert second["x-api-key"] == "stored-key" and "authorization" not in second


async def test_redacted_thinking_is_replayed_even_with_an_empty_payload() -> None:
    def reply(*blocks: Any) -> Any:
        usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": {}}
        return {
            "role": "assistant",
            "content": [*blocks, {"type": "text", "text": "done"}],
            "api": "anthropic-messages",
            "provider": "fake",
            "model": "claude-sonnet-4-5",
            "usage": usage,
            "stopReason": "stop",
            "timestamp": 2,
        }

    empty = {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "", "redacted": True}
    absent = {"type": "thinking", "thinking": "[Reasoning redacted]", "redacted": True}
    context: Any = {
        "messages": [
            HELLO["messages"][0],
            reply(empty),
            {"role": "user", "content": "again", "timestamp": 3},
            reply(absent),
            {"role": "user", "content": "more", "timestamp": 4},
        ]
    }
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model("anthropic-messages", "claude-sonnet-4-5")
        await api.complete_simple(model, context, SimpleStreamOptions(api_key="k"))
        sent = [m for m in server.requests[0].json["messages"] if m["role"] == "assistant"]
    assert sent[0]["content"][0] == {"type": "redacted_thinking", "data": ""}
    assert sent[1]["content"][0] == {"type": "redacted_thinking"}  # no payload, no field (as Pi)
