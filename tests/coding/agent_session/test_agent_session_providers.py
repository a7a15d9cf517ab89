"""A provider registered by an extension streams through the ai layer like a built-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import make_session

from pi_harness.ai import MessageBuilder, run_provider_stream
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Context, Model
from pi_harness.coding.extensions import ExtensionAPI
from pi_harness.testing.fake_llm import FakeLLMServer

SEEN: list[str] = []


def echo_stream(model: Model, context: Context, options: Any) -> AssistantMessageEventStream:
    async def run(builder: MessageBuilder) -> None:
        last = context["messages"][-1]
        content = last["content"]
        text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
        SEEN.append(text)
        builder.text(f"[{model['id']}] {text.upper()}")
        builder.set_usage(input=3, output=2)

    return run_provider_stream(model, options.signal if options else None, run)


def provider_extension(pi: ExtensionAPI) -> None:
    pi.register_provider(
        "echo-co",
        {
            "api": "echo-api",
            "streamSimple": echo_stream,
            "models": [{"id": "echo-1", "name": "Echo One", "contextWindow": 8000, "maxTokens": 512}],
        },
    )


async def test_extension_provider_models_are_usable(server: FakeLLMServer, project: Path) -> None:
    SEEN.clear()
    result = await make_session(server, project, extension_factories=[provider_extension])
    session = result.session
    await session.bind_extensions(mode="print")
    model = session.model_runtime.find("echo-co", "echo-1")
    assert model is not None and model["api"] == "echo-api" and model["contextWindow"] == 8000
    assert any(m["provider"] == "echo-co" for m in session.model_runtime.get_available())
    await session.set_model(model)
    await session.prompt("hello there")
    assert SEEN == ["hello there"]
    assert session.get_last_assistant_text() == "[echo-1] HELLO THERE"
    last = session.get_messages()[-1]
    assert last["role"] == "assistant" and last["provider"] == "echo-co" and last["api"] == "echo-api"
    assert server.requests == []  # nothing went to the HTTP server
    await result.runtime.shutdown()


async def test_unregistering_removes_the_models(server: FakeLLMServer, project: Path) -> None:
    result = await make_session(server, project, extension_factories=[provider_extension])
    session = result.session
    await session.bind_extensions(mode="print")
    assert session.model_runtime.find("echo-co", "echo-1") is not None
    session.model_runtime.unregister_provider("echo-co")
    assert session.model_runtime.find("echo-co", "echo-1") is None
    with pytest.raises(ValueError, match="No API key found for echo-co"):
        await session.set_model({**server.model("openai-completions"), "provider": "echo-co", "id": "echo-1"})
    await result.runtime.shutdown()
