"""Request bodies built with the per-message conversion memo are the bodies built without it.

A conversation grows turn by turn, as in a session; every request body is built twice, once
with the memo warm from the earlier requests and once with it emptied, and the encoded bytes
must be the same. Cache markers (the Anthropic-style ``cache_control`` some gateways take) go on
the last messages of each request only, so a marker of an earlier request must not stay on a
message the memo hands out again.
"""

from __future__ import annotations

from typing import cast

import orjson

from pi_harness.ai import token_estimate, transform
from pi_harness.ai.options import StreamOptions
from pi_harness.ai.providers import openai_completions_convert as convert
from pi_harness.ai.providers.conversion_memo import ConversionMemo
from pi_harness.ai.providers.openai_completions_compat import resolve_compat
from pi_harness.ai.types import AssistantMessage, Context, Message, Model, ToolResultMessage, UserMessage
from pi_harness.testing.fake_llm import FakeLLMServer


def _model(**compat: object) -> Model:
    with FakeLLMServer() as server:  # only for a well-formed descriptor; no request is sent
        model = server.model("openai-completions")
    if compat:
        model = cast(Model, {**model, "compat": compat})
    return model


def _turn(n: int) -> list[Message]:
    user: UserMessage = {"role": "user", "content": [{"type": "text", "text": f"question {n}"}], "timestamp": n}
    assistant: AssistantMessage = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": f"thought {n}", "thinkingSignature": "reasoning_content"},
            {"type": "text", "text": f"answer {n}"},
            {"type": "toolCall", "id": f"call_{n}", "name": "read", "arguments": {"path": f"f{n}.txt"}},
        ],
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
        "stopReason": "toolUse",
        "timestamp": n,
    }
    result: ToolResultMessage = {
        "role": "toolResult",
        "toolCallId": f"call_{n}",
        "toolName": "read",
        "content": [{"type": "text", "text": f"contents {n}"}],
        "isError": False,
        "timestamp": n,
    }
    return [user, assistant, result]


def _forget() -> None:
    """Every memo of the request path emptied: the next body is built from nothing."""
    convert._MEMO.clear()
    convert._RESUME.clear()
    transform._MEMO.clear()
    token_estimate._USAGE_MEMO.clear()


def _body(model: Model, messages: list[Message], *, warm: bool) -> bytes:
    if not warm:
        _forget()
    context: Context = {"systemPrompt": "You are a test.", "messages": list(messages)}
    options = StreamOptions(max_tokens=100, session_id="session-1")
    body = convert.build_request_body(model, context, options, resolve_compat(model))
    return orjson.dumps(body)


def _varied_conversation() -> list[Message]:
    """Turns with what the converters carry state over: a failed turn, image results (sent after
    the run of results), a call left without a result, a turn of another model."""
    messages: list[Message] = []
    for n in range(8):
        user, assistant, result = _turn(n)
        if n == 2:
            assistant = cast(AssistantMessage, {**assistant, "stopReason": "error"})
        if n == 3:
            result = cast(
                ToolResultMessage,
                {**result, "content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}]},
            )
        if n == 6:
            assistant = cast(AssistantMessage, {**assistant, "provider": "other", "model": "other-model"})
        messages += [user, assistant] if n == 5 else [user, assistant, result]
    return messages


def test_every_prefix_of_a_conversation_gives_the_same_body() -> None:
    conversation = _varied_conversation()
    for model in (_model(), _model(requiresAssistantAfterToolResult=True, requiresToolResultName=True)):
        _forget()
        for length in range(1, len(conversation) + 1):
            prefix = conversation[:length]
            warm = _body(model, prefix, warm=True)
            assert warm == _body(model, prefix, warm=False), length
            _body(model, prefix, warm=True)
        # A conversation that does not extend the last one (an edit half-way) starts again.
        edited = [*conversation[:3], cast(UserMessage, {**conversation[3], "content": "edited"}), *conversation[4:]]
        assert _body(model, edited, warm=True) == _body(model, edited, warm=False)


def test_bodies_are_the_same_with_a_warm_memo() -> None:
    for model in (_model(), _model(requiresToolResultName=True, requiresThinkingAsText=True)):
        messages: list[Message] = []
        _forget()
        for n in range(6):
            messages += _turn(n)
            warm = _body(model, messages, warm=True)
            assert len(convert._MEMO) >= 3  # the earlier turns were remembered
            assert warm == _body(model, messages, warm=False)
            _body(model, messages, warm=True)  # warm the memo again for the next turn


def test_cache_markers_stay_on_the_request_they_were_made_for() -> None:
    model = _model(cacheControlFormat="anthropic")
    messages: list[Message] = []
    for n in range(4):
        messages += _turn(n)
        warm = _body(model, messages, warm=True)
        cold = _body(model, messages, warm=False)
        assert warm == cold
        _body(model, messages, warm=True)
        body = orjson.loads(warm)
        marked = [i for i, m in enumerate(body["messages"]) if b"cache_control" in orjson.dumps(m)]
        # The system prompt and the last message only.
        assert marked == [0, len(body["messages"]) - 1]


def test_a_replaced_message_is_converted_again() -> None:
    model = _model()
    messages = _turn(0)
    first = orjson.loads(_body(model, messages, warm=True))
    edited = cast(ToolResultMessage, {**messages[2], "content": [{"type": "text", "text": "edited"}]})
    second = orjson.loads(_body(model, [*messages[:2], edited], warm=True))
    assert first["messages"][-1]["content"] == "contents 0"
    assert second["messages"][-1]["content"] == "edited"


def test_the_memo_starts_again_when_full() -> None:
    memo = ConversionMemo(max_entries=2)
    calls: list[str] = []

    def upper(message: dict[str, str], suffix: str) -> str:
        calls.append(message["text"])
        return message["text"].upper() + suffix

    a, b, c = {"text": "a"}, {"text": "b"}, {"text": "c"}
    assert [memo.get(m, "k", upper, "!") for m in (a, b, a)] == ["A!", "B!", "A!"]
    assert calls == ["a", "b"]
    assert memo.get(a, "other key", upper, "?") == "A?"  # another key converts again
    memo.get(c, "k", upper, "!")
    assert len(memo) <= 2
