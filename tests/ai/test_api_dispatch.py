"""Entry points and the API-provider registry."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from pi_harness.ai import (
    ApiProvider,
    MessageBuilder,
    complete,
    complete_simple,
    create_assistant_message_event_stream,
    get_api_provider,
    register_api_provider,
    run_provider_stream,
    stream,
    stream_simple,
    unregister_api_providers,
)
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.registry import BUILTIN_PROVIDER_MODULES, get_registered_apis
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Context, Model, new_assistant_message

CONTEXT: Context = {"messages": [{"role": "user", "content": "ping", "timestamp": 1}]}
SOURCE = "tests.ai.test_api_dispatch"


def model(api: str, provider: str = "my-provider") -> Model:
    return {
        "id": "echo-1",
        "name": "Echo",
        "api": api,
        "provider": provider,
        "baseUrl": "http://127.0.0.1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }


class EchoProvider:
    """An extension-style provider: answers with the key and options it received."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.seen: list[tuple[str, StreamOptions | None]] = []

    def _run(self, kind: str, m: Model, options: StreamOptions | None) -> AssistantMessageEventStream:
        self.seen.append((kind, options))
        key = options.api_key if options is not None else None

        async def run(builder: MessageBuilder) -> None:
            builder.text(f"{kind} key={key!r}")
            builder.finish("stop")

        return run_provider_stream(m, options.signal if options else None, run)

    def stream(self, m: Model, context: Context, options: StreamOptions | None) -> AssistantMessageEventStream:
        return self._run("stream", m, options)

    def stream_simple(
        self, m: Model, context: Context, options: SimpleStreamOptions | None
    ) -> AssistantMessageEventStream:
        return self._run("simple", m, options)

    def provider(self, **kwargs: Any) -> ApiProvider:
        return ApiProvider(api=self.api, stream=self.stream, stream_simple=self.stream_simple, **kwargs)


@pytest.fixture
def echo() -> Iterator[EchoProvider]:
    provider = EchoProvider("test-echo-api")
    register_api_provider(provider.provider(), SOURCE)
    yield provider
    unregister_api_providers(SOURCE)


def text_of(message: Any) -> str:
    return "".join(block["text"] for block in message["content"] if block["type"] == "text")


# --- stream_simple and keys -------------------------------------------------------------------


def test_stream_simple_without_any_key_raises_synchronously(echo: EchoProvider) -> None:
    with pytest.raises(ValueError) as info:
        stream_simple(model(echo.api, "my-provider"), CONTEXT)
    assert str(info.value) == "No API key for provider: my-provider"
    assert echo.seen == []


async def test_complete_simple_without_a_key_raises_before_streaming(echo: EchoProvider) -> None:
    with pytest.raises(ValueError, match=r"^No API key for provider: my-provider$"):
        await complete_simple(model(echo.api), CONTEXT)


async def test_stream_simple_takes_the_key_from_the_environment(
    echo: EchoProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-env")
    message = await stream_simple(model(echo.api, "groq"), CONTEXT).result()
    assert text_of(message) == "simple key='gsk-env'"


async def test_explicit_key_wins_over_the_environment(echo: EchoProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-env")
    message = await complete_simple(model(echo.api, "groq"), CONTEXT, SimpleStreamOptions(api_key="explicit"))
    assert text_of(message) == "simple key='explicit'"
    message = await complete(model(echo.api, "groq"), CONTEXT, StreamOptions(api_key="explicit"))
    assert text_of(message) == "stream key='explicit'"


async def test_raw_stream_with_no_key_passes_an_empty_key(echo: EchoProvider) -> None:
    message = await stream(model(echo.api), CONTEXT).result()
    assert text_of(message) == "stream key=''"


async def test_caller_options_object_is_not_modified(echo: EchoProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-env")
    options = SimpleStreamOptions(temperature=0.2)
    await complete_simple(model(echo.api, "groq"), CONTEXT, options)
    assert options.api_key is None
    received = echo.seen[0][1]
    assert received is not None
    assert received.temperature == 0.2


async def test_providers_that_need_no_key_stream_without_one() -> None:
    provider = EchoProvider("test-keyless-api")
    register_api_provider(provider.provider(requires_api_key=False), SOURCE)
    try:
        message = await complete_simple(model(provider.api), CONTEXT)
    finally:
        unregister_api_providers(SOURCE)
    assert text_of(message) == "simple key=''"


# --- registry -----------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", [stream, stream_simple])
def test_unknown_api_raises_synchronously(entry: Any) -> None:
    with pytest.raises(ValueError) as info:
        entry(model("no-such-api"), CONTEXT)
    assert str(info.value) == "No API provider registered for api: no-such-api"


async def test_complete_with_unknown_api_raises() -> None:
    with pytest.raises(ValueError, match=r"^No API provider registered for api: nope$"):
        await complete(model("nope"), CONTEXT)


def test_builtin_module_with_a_different_api_is_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("tests_fake_provider_module")
    module.PROVIDER = EchoProvider("other-api").provider()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(BUILTIN_PROVIDER_MODULES, "declared-api", module.__name__)
    with pytest.raises(ValueError) as info:
        stream(model("declared-api"), CONTEXT)
    assert str(info.value) == "Mismatched api: declared-api expected other-api"


def test_register_and_unregister_by_source_id() -> None:
    a, b, c = EchoProvider("test-api-a"), EchoProvider("test-api-b"), EchoProvider("test-api-c")
    register_api_provider(a.provider(), "ext-one")
    register_api_provider(b.provider(), "ext-one")
    register_api_provider(c.provider(), "ext-two")
    try:
        assert {"test-api-a", "test-api-b", "test-api-c"} <= set(get_registered_apis())
        unregister_api_providers("ext-one")
        assert get_api_provider("test-api-a") is None
        assert get_api_provider("test-api-b") is None
        assert get_api_provider("test-api-c") is not None
        unregister_api_providers("no-such-source")
        assert get_api_provider("test-api-c") is not None
    finally:
        unregister_api_providers("ext-one")
        unregister_api_providers("ext-two")
    assert get_api_provider("test-api-c") is None


async def test_later_registration_for_the_same_api_replaces_the_earlier() -> None:
    first, second = EchoProvider("test-api-same"), EchoProvider("test-api-same")
    register_api_provider(first.provider(), "ext-one")
    register_api_provider(second.provider(), "ext-two")
    try:
        await complete(model("test-api-same"), CONTEXT)
        assert first.seen == []
        assert len(second.seen) == 1
        # the replaced registration's source no longer owns the api
        unregister_api_providers("ext-one")
        assert get_api_provider("test-api-same") is not None
    finally:
        unregister_api_providers("ext-two")


def test_faux_is_a_builtin_api() -> None:
    provider = get_api_provider("faux")
    assert provider is not None
    assert provider.api == "faux"
    assert not provider.requires_api_key


async def test_extension_provider_pushing_raw_events_streams_through_stream_simple(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What an extension writes by hand: its own stream, its own events, no builder."""
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    received: list[str | None] = []

    def simple(m: Model, context: Context, options: SimpleStreamOptions | None) -> AssistantMessageEventStream:
        received.append(options.api_key if options else None)
        s = create_assistant_message_event_stream()
        output = new_assistant_message(m, 123)
        s.push({"type": "start", "partial": output})
        output["content"].append({"type": "text", "text": ""})
        s.push({"type": "text_start", "contentIndex": 0, "partial": output})
        output["content"][0]["text"] = "from the extension"  # type: ignore[typeddict-unknown-key]
        s.push({"type": "text_delta", "contentIndex": 0, "delta": "from the extension", "partial": output})
        s.push({"type": "text_end", "contentIndex": 0, "content": "from the extension", "partial": output})
        output["stopReason"] = "stop"
        s.push({"type": "done", "reason": "stop", "message": output})
        s.end()
        return s

    def raw(m: Model, context: Context, options: StreamOptions | None) -> AssistantMessageEventStream:
        raise AssertionError("stream_simple must be used")

    register_api_provider(ApiProvider(api="test-ext-api", stream=raw, stream_simple=simple), "my-extension")
    try:
        s = stream_simple(model("test-ext-api", "openrouter"), CONTEXT)
        events = [event async for event in s]
        message = await s.result()
    finally:
        unregister_api_providers("my-extension")
    assert [e["type"] for e in events] == ["start", "text_start", "text_delta", "text_end", "done"]
    assert text_of(message) == "from the extension"
    assert message["stopReason"] == "stop"
    assert received == ["or-key"]
