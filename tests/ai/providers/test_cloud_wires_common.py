"""What the six protocols added after the first four share, tested on each: dispatch through the
registry, aborting mid-stream, an already-aborted signal, and the payload hook."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import orjson
import pytest

from pi_harness.ai import api
from pi_harness.ai.abort import AbortController
from pi_harness.ai.options import StreamOptions
from pi_harness.ai.registry import get_registered_apis, resolve_api_provider
from pi_harness.ai.types import Context, Model
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


def _jwt() -> str:
    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": "acct"}}
    return "e30." + base64.urlsafe_b64encode(orjson.dumps(claims)).decode().rstrip("=") + ".sig"


# api -> the key its fake accepts
KEYS = {
    "azure-openai-responses": "azure-key",
    "openai-codex-responses": _jwt(),
    "mistral-conversations": "mistral-key",
    "google-vertex": "vertex-key",
    "bedrock-converse-stream": "bedrock-bearer",
    "pi-messages": "gateway-key",
}
APIS = sorted(KEYS)


def hello() -> Context:
    return {"messages": [{"role": "user", "content": "Hello", "timestamp": 1}]}


def model_for(server: FakeLLMServer, api_id: str) -> Model:
    return server.model(api_id, model_id="model-x", provider=f"test-{api_id}")


def test_every_api_is_registered() -> None:
    registered = get_registered_apis()
    for api_id in APIS:
        assert api_id in registered
        assert resolve_api_provider({"api": api_id}).api == api_id  # type: ignore[arg-type]


@pytest.mark.parametrize("api_id", APIS)
async def test_abort_mid_stream_keeps_partial_text_and_closes_the_connection(api_id: str) -> None:
    script = ScriptedResponse(steps=[TextStep("x" * 40, chunks=20)], chunk_delay_ms=30)
    controller = AbortController()
    with FakeLLMServer([script]) as server:
        events = api.stream(
            model_for(server, api_id), hello(), StreamOptions(api_key=KEYS[api_id], signal=controller.signal)
        )
        async for event in events:
            if event["type"] == "text_delta":
                controller.abort()
        message = await events.result()
        for _ in range(200):
            if server.cancelled_streams:
                break
            await asyncio.sleep(0.01)
        assert server.cancelled_streams == 1 and server.completed_streams == 0
    assert message["stopReason"] == "aborted"
    assert 0 < len(message["content"][0]["text"]) < 40  # type: ignore[typeddict-item]


@pytest.mark.parametrize("api_id", APIS)
async def test_an_aborted_signal_sends_nothing(api_id: str) -> None:
    controller = AbortController()
    controller.abort()
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        events = api.stream(
            model_for(server, api_id), hello(), StreamOptions(api_key=KEYS[api_id], signal=controller.signal)
        )
        kinds = [event["type"] async for event in events]
        assert server.requests == []
    assert kinds == ["error"]
    assert (await events.result())["stopReason"] == "aborted"


@pytest.mark.parametrize("api_id", APIS)
async def test_the_payload_hook_sees_and_replaces_what_is_sent(api_id: str) -> None:
    seen: list[dict[str, Any]] = []

    def hook(payload: dict[str, object], _model: Model) -> dict[str, object]:
        seen.append(dict(payload))
        return {**payload, "pi_test_marker": 1}

    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        options = StreamOptions(api_key=KEYS[api_id], on_payload=hook, extra_body={"extra_field": True})
        message = await api.complete(model_for(server, api_id), hello(), options)
        body = server.requests[0].json
    assert message["stopReason"] == "stop", message.get("errorMessage")
    assert seen and seen[0]["extra_field"] is True
    assert body["pi_test_marker"] == 1 and body["extra_field"] is True
