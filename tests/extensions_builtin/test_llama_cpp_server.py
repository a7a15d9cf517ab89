"""builtin:llama.cpp against the fake llama-server (``fake_llm.LlamaServer``: the bodies the real
llama-server sends): single-model and router discovery, the router client, and the errors of a
server that is loading, out of context or gone."""

from __future__ import annotations

import re
import socket
from typing import Any

import pytest

from pi_harness.ai import is_context_overflow
from pi_harness.ai.providers.openai_completions import OpenAICompletionsOptions, stream
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.extensions_builtin.local_models import LocalServer, discover
from pi_harness.extensions_builtin.local_models.router import (
    CANNOT_CONNECT,
    NOT_A_ROUTER,
    RouterClient,
    RouterError,
)
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    LlamaServer,
    RouterModel,
    ScriptedResponse,
    TextStep,
    context_exceeded,
)

HI: Any = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}


async def probe(server: FakeLLMServer) -> Any:
    [result] = await discover([LocalServer("llama.cpp", f"{server.url}/v1", "llama.cpp")], timeout_s=5, offline=False)
    return result


async def test_a_single_model_server_gives_its_context_window_from_props() -> None:
    with FakeLLMServer(llama=LlamaServer([RouterModel("qwen", "loaded", n_ctx=8192)])) as server:
        result = await probe(server)
    [model] = result.models
    assert (model["id"], model["contextWindow"], model["input"], model["reasoning"]) == ("qwen", 8192, ["text"], False)
    assert model["compat"]["maxTokensField"] == "max_tokens"


async def test_a_router_offers_loaded_models_and_autoloading_presets_with_their_facts() -> None:
    state = LlamaServer(
        [
            RouterModel("chat", "loaded", n_ctx=4096, vision=True),
            RouterModel("asleep", "sleeping"),
            RouterModel("on-disk", "unloaded"),
            RouterModel("preset", "unloaded", source="preset", n_ctx=16384),
        ],
        router=True,
        autoload=True,
        chat_template="{% if enable_thinking %}<think>{% endif %}",
    )
    with FakeLLMServer(llama=state) as server:
        result = await probe(server)
        assert "GET /props" in server.probes  # the router's props, then the loaded model's
    by_id = {m["id"]: m for m in result.models}
    assert list(by_id) == ["chat", "asleep", "preset"]
    assert (by_id["chat"]["contextWindow"], by_id["chat"]["input"]) == (4096, ["text", "image"])
    assert by_id["chat"]["reasoning"] is True and by_id["chat"]["compat"]["thinkingFormat"] == "qwen-chat-template"
    # not loaded: the --ctx-size it would be started with; its template is unknown until loaded
    assert by_id["preset"]["contextWindow"] == 16384 and by_id["preset"]["reasoning"] is False


async def test_a_router_without_autoload_and_nothing_loaded_offers_nothing() -> None:
    with FakeLLMServer(llama=LlamaServer([RouterModel("m", "unloaded", source="preset")], router=True)) as server:
        result = await probe(server)
    assert not result.reachable and result.error == "the server has no model loaded"


async def test_the_router_client_loads_polls_and_unloads() -> None:
    state = LlamaServer([RouterModel("a", "unloaded", n_ctx=2048)], router=True, load_steps=3)
    with FakeLLMServer(llama=state) as server:
        client = RouterClient(f"{server.url}/v1")
        assert [(m.id, m.status, m.loaded) for m in await client.list()] == [("a", "unloaded", False)]
        loaded = await client.load("a")
        assert (loaded.status, loaded.context, loaded.describe()) == ("loaded", 2048, "a · loaded · 2k context")
        assert server.probes.count("GET /models") >= 4  # loading, loading, loading, loaded
        await client.unload("a")
        assert [m.status for m in await client.list()] == ["unloaded"]
        with pytest.raises(RouterError, match=r"^model is not found$"):
            await client.unload("nope")
    assert state.actions == ["load a", "unload a"]


async def test_the_router_client_names_a_single_model_server_and_a_dead_one() -> None:
    with FakeLLMServer(llama=LlamaServer()) as single, pytest.raises(RouterError, match=f"^{re.escape(NOT_A_ROUTER)}$"):
        await RouterClient(single.url).list()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(RouterError, match=f"^{re.escape(CANNOT_CONNECT)}$"):
        await RouterClient(f"http://127.0.0.1:{port}").list()


async def test_a_prompt_over_the_context_is_an_overflow_with_llama_cpps_own_body() -> None:
    with FakeLLMServer([ScriptedResponse(http_error=context_exceeded(9030, 8192))], llama=LlamaServer()) as server:
        message = await stream(server.model(provider="llama.cpp"), HI, OpenAICompletionsOptions(api_key="k")).result()
    assert message["stopReason"] == "error"
    assert message.get("errorMessage") == (
        '400: {"code":400,"message":"request (9030 tokens) exceeds the available context size (8192 tokens), '
        'try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9030,"n_ctx":8192}'
    )
    assert is_context_overflow(message, 8192)


async def test_a_loading_server_answers_503_which_is_retried_and_a_router_refuses_unloaded_models() -> None:
    with FakeLLMServer(llama=LlamaServer(loading=True)) as server:
        model = server.model(provider="llama.cpp")
        message = await stream(model, HI, OpenAICompletionsOptions(api_key="k")).result()
    error = message.get("errorMessage", "")
    assert error == '503: {"message":"Loading model","type":"unavailable_error","code":503}'
    assert is_retryable_error_message(error) and not is_context_overflow(message, 8192)
    state = LlamaServer([RouterModel("fake-model", "unloaded")], router=True)
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])], llama=state) as server:
        refused = await stream(server.model(provider="llama.cpp"), HI, OpenAICompletionsOptions(api_key="k")).result()
        assert "model is not loaded" in refused.get("errorMessage", "")
        state.models[0].status = "sleeping"  # a sleeping model wakes on its request
        answered = await stream(server.model(provider="llama.cpp"), HI, OpenAICompletionsOptions(api_key="k")).result()
        assert answered["content"] == [{"type": "text", "text": "ok"}]
