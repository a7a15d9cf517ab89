"""The output cap ``stream_simple`` asks for: the model's ``maxTokens`` (or the caller's cap)
clamped to the room the context leaves (window - estimate - 4096, at least 1), as Pi 1.4.0
sends it, checked on the wire of every API over real loopback HTTP."""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest

from pi_harness.ai import api
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.output_cap import budgeted_max_tokens, clamp_to_context, simple_max_tokens
from pi_harness.ai.token_estimate import estimate_context_tokens, js_length
from pi_harness.ai.types import Context, Model
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


def _jwt() -> str:
    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": "acct"}}
    return "e30." + base64.urlsafe_b64encode(orjson.dumps(claims)).decode().rstrip("=") + ".sig"


KEYS = {
    "openai-completions": "sk-test",
    "openai-responses": "sk-test",
    "azure-openai-responses": "azure-key",
    "openai-codex-responses": _jwt(),
    "anthropic-messages": "sk-ant-test",
    "google-generative-ai": "google-key",
    "google-vertex": "vertex-key",
    "mistral-conversations": "mistral-key",
    "bedrock-converse-stream": "bedrock-bearer",
    "pi-messages": "gateway-key",
}


def _sent_cap(api_id: str, body: dict[str, Any]) -> object:
    """The output cap in an API's request body, ``None`` when absent."""
    if api_id == "openai-completions":
        return body.get("max_completion_tokens", body.get("max_tokens"))
    if api_id in ("openai-responses", "azure-openai-responses", "openai-codex-responses"):
        return body.get("max_output_tokens")
    if api_id in ("anthropic-messages", "mistral-conversations"):
        return body.get("max_tokens")
    if api_id in ("google-generative-ai", "google-vertex"):
        return body.get("generationConfig", {}).get("maxOutputTokens")
    if api_id == "bedrock-converse-stream":
        return body.get("inferenceConfig", {}).get("maxTokens")
    return body.get("options", {}).get("maxTokens")


def user(text: str, timestamp: int = 1) -> Any:
    return {"role": "user", "content": text, "timestamp": timestamp}


def reply(total: int, timestamp: int = 2, stop: str = "stop") -> Any:
    usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total, "cost": {}}
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "api": "x",
        "provider": "x",
        "model": "x",
        "usage": usage,
        "stopReason": stop,
        "timestamp": timestamp,
    }


def model(**fields: Any) -> Model:
    base: dict[str, Any] = {"id": "m", "maxTokens": 16_384, "contextWindow": 20_000, "reasoning": False}
    return base | fields  # type: ignore[return-value]


# --- the estimate ------------------------------------------------------------------------------


def test_the_estimate_counts_three_and_a_half_characters_a_token() -> None:
    assert estimate_context_tokens({"messages": [user("x" * 7)]}) == 2
    assert estimate_context_tokens({"messages": [user("x" * 8)]}) == 3  # rounded up per message
    assert js_length("\U0001f600") == 2  # as JavaScript counts it


def test_images_count_a_fixed_allowance_and_the_system_prompt_and_tools_count() -> None:
    image: Any = {"type": "image", "data": "A" * 100_000, "mimeType": "image/png"}
    pictured: Any = {**user(""), "content": [image]}
    assert estimate_context_tokens({"messages": [pictured]}) == 1372  # 4800 / 3.5
    tool: Any = {"name": "t", "description": "d", "parameters": {}}
    context: Context = {"systemPrompt": "s" * 35, "tools": [tool], "messages": [user("x" * 7)]}
    tools_json = len(orjson.dumps([tool]))
    assert estimate_context_tokens(context) == 10 + -(-tools_json * 2 // 7) + 2


def test_the_last_usable_reply_replaces_everything_before_it() -> None:
    messages = [user("x" * 3500), reply(12_000), user("y" * 35, timestamp=3)]
    assert estimate_context_tokens({"messages": messages}) == 12_010
    # failed replies and replies older than a later-inserted message do not count
    assert estimate_context_tokens({"messages": [user("x" * 35), reply(12_000, stop="error")]}) == 10 + 1
    stale = [user("x" * 35, timestamp=5), reply(12_000, timestamp=4)]
    assert estimate_context_tokens({"messages": stale}) == 11


def test_the_cap_is_clamped_to_the_room_left_and_never_below_one() -> None:
    context: Context = {"messages": [user("x" * 35_000)]}  # 10,000 tokens
    assert simple_max_tokens(model(), context, None) == 20_000 - 10_000 - 4096
    assert simple_max_tokens(model(contextWindow=200_000), context, None) == 16_384
    assert simple_max_tokens(model(), context, 500) == 500
    assert simple_max_tokens(model(contextWindow=12_000), context, None) == 1
    assert clamp_to_context(model(contextWindow=0), context, 0) == 1  # no window known: no clamp


def test_budgeted_thinking_grows_the_cap_then_clamps_again() -> None:
    context: Context = {"messages": [user("x" * 35)]}
    roomy = model(maxTokens=64_000, contextWindow=200_000)
    assert budgeted_max_tokens(roomy, context, None, 16_384) == (64_000, 16_384)
    assert budgeted_max_tokens(roomy, context, 2000, 8192) == (10_192, 8192)
    tight = model(maxTokens=64_000, contextWindow=14_000)  # room: 14,000 - 10 - 4096
    assert budgeted_max_tokens(tight, context, None, 16_384) == (9894, 9894 - 1024)


# --- on the wire ---------------------------------------------------------------------------


def _wire_model(server: FakeLLMServer, api_id: str, **fields: Any) -> Model:
    return server.model(api_id, model_id="model-x", provider=f"test-{api_id}", **fields)


async def _sent(api_id: str, context: Context, **fields: Any) -> Any:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        options = SimpleStreamOptions(api_key=KEYS[api_id])
        message = await api.complete_simple(_wire_model(server, api_id, **fields), context, options)
        assert message["stopReason"] == "stop", message.get("errorMessage")
        return _sent_cap(api_id, server.requests[0].json)


CLAMPED = sorted(set(KEYS) - {"openai-codex-responses", "pi-messages"})


@pytest.mark.parametrize("api_id", CLAMPED)
async def test_a_long_context_shrinks_the_cap_on_the_wire(api_id: str) -> None:
    sent = await _sent(api_id, {"messages": [user("x" * 35_000)]}, contextWindow=20_000, maxTokens=16_384)
    assert sent == 20_000 - 10_000 - 4096


@pytest.mark.parametrize("api_id", CLAMPED)
async def test_a_short_context_asks_for_the_whole_model_cap(api_id: str) -> None:
    sent = await _sent(api_id, {"messages": [user("hi")]}, contextWindow=400_000, maxTokens=64_000)
    assert sent == 64_000  # no 32,000 ceiling any more


@pytest.mark.parametrize("api_id", CLAMPED)
async def test_reported_usage_drives_the_clamp_on_the_wire(api_id: str) -> None:
    context: Context = {"messages": [user("x" * 35), reply(12_000), user("y" * 35, timestamp=3)]}
    assert await _sent(api_id, context, contextWindow=20_000) == 20_000 - 12_010 - 4096


@pytest.mark.parametrize("api_id", ["openai-codex-responses", "pi-messages"])
async def test_codex_and_pi_messages_send_no_default_cap(api_id: str) -> None:
    assert await _sent(api_id, {"messages": [user("x" * 35_000)]}, contextWindow=20_000) is None


async def test_anthropic_budget_thinking_fits_the_room_left() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        claude = _wire_model(
            server, "anthropic-messages", reasoning=True, maxTokens=64_000, contextWindow=30_000, id="claude-sonnet-4-5"
        )
        options = SimpleStreamOptions(api_key="sk-ant-test", reasoning="high")
        await api.complete_simple(claude, {"messages": [user("x" * 35_000)]}, options)
        body: Any = server.requests[0].json
    assert body["max_tokens"] == 30_000 - 10_000 - 4096
    assert body["thinking"]["budget_tokens"] == 15_904 - 1024  # the answer keeps 1024 tokens
