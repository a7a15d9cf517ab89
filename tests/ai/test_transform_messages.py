"""Cross-provider replay rules and tool-call id normalisers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pi_harness.ai.transform import (
    NO_RESULT_TEXT,
    is_same_model,
    make_google_normalizer,
    make_openai_completions_normalizer,
    normalize_id_anthropic,
    normalize_id_openai_responses,
    sanitize_tool_call_id,
    transform_messages,
)
from pi_harness.ai.types import (
    AssistantContent,
    AssistantMessage,
    Message,
    Model,
    StopReason,
    ToolResultMessage,
    UserMessage,
    empty_usage,
)


def model(provider: str = "anthropic", api: str = "anthropic-messages", model_id: str = "claude-x") -> Model:
    return {
        "id": model_id,
        "name": model_id,
        "api": api,
        "provider": provider,
        "baseUrl": "http://127.0.0.1",
        "reasoning": True,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }


TARGET = model()
OTHER = model("openai", "openai-responses", "gpt-x")


def assistant(*content: AssistantContent, source: Model = TARGET, stop: StopReason = "stop") -> AssistantMessage:
    return {
        "role": "assistant",
        "content": list(content),
        "api": source["api"],
        "provider": source["provider"],
        "model": source["id"],
        "usage": empty_usage(),
        "stopReason": stop,
        "timestamp": 1,
    }


def user(text: str = "hi") -> UserMessage:
    return {"role": "user", "content": text, "timestamp": 1}


def result(call_id: str, name: str = "read", text: str = "ok") -> ToolResultMessage:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 1,
    }


def call(call_id: str, name: str = "read", **extra: Any) -> AssistantContent:
    block: dict[str, Any] = {"type": "toolCall", "id": call_id, "name": name, "arguments": {"path": "a"}, **extra}
    return block  # type: ignore[return-value]


def only_assistant(messages: list[Message]) -> AssistantMessage:
    found = [m for m in messages if m["role"] == "assistant"]
    assert len(found) == 1
    return found[0]


# --- "same model" ---------------------------------------------------------------------------


def test_same_model_needs_provider_api_and_id() -> None:
    assert is_same_model(assistant(), TARGET)
    assert not is_same_model(assistant(source=model(provider="openrouter")), TARGET)
    assert not is_same_model(assistant(source=model(api="openai-completions")), TARGET)
    assert not is_same_model(assistant(source=model(model_id="claude-y")), TARGET)


# --- pass 1 ---------------------------------------------------------------------------------


def test_user_messages_are_unchanged() -> None:
    messages: list[Message] = [
        user("hello"),
        {"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": 2},
    ]
    assert transform_messages(messages, TARGET) == messages


def test_redacted_thinking_kept_only_for_the_same_model() -> None:
    block: AssistantContent = {
        "type": "thinking",
        "thinking": "[Reasoning redacted]",
        "thinkingSignature": "opaque",
        "redacted": True,
    }
    same = transform_messages([user(), assistant(block, {"type": "text", "text": "a"})], TARGET)
    assert only_assistant(same)["content"][0] == block
    other = transform_messages([user(), assistant(block, {"type": "text", "text": "a"}, source=OTHER)], TARGET)
    assert only_assistant(other)["content"] == [{"type": "text", "text": "a"}]


def test_signed_thinking_kept_for_the_same_model_even_when_empty() -> None:
    block: AssistantContent = {"type": "thinking", "thinking": "", "thinkingSignature": "enc"}
    out = transform_messages([user(), assistant(block)], TARGET)
    assert only_assistant(out)["content"] == [block]


def test_unsigned_thinking_kept_for_the_same_model() -> None:
    block: AssistantContent = {"type": "thinking", "thinking": "let me see"}
    out = transform_messages([user(), assistant(block)], TARGET)
    assert only_assistant(out)["content"] == [block]


def test_empty_thinking_without_signature_is_dropped() -> None:
    out = transform_messages(
        [user(), assistant({"type": "thinking", "thinking": "  \n"}, {"type": "text", "text": "a"})], TARGET
    )
    assert only_assistant(out)["content"] == [{"type": "text", "text": "a"}]


def test_thinking_from_another_model_is_dropped() -> None:
    # As Pi 1.4.0: as plain text it would read as part of the visible reply.
    block: AssistantContent = {"type": "thinking", "thinking": "step 1", "thinkingSignature": "sig"}
    out = transform_messages([user(), assistant(block, {"type": "text", "text": "a"}, source=OTHER)], TARGET)
    assert only_assistant(out)["content"] == [{"type": "text", "text": "a"}]
    # empty thinking from another model is dropped, signed or not
    out = transform_messages(
        [user(), assistant({"type": "thinking", "thinking": "", "thinkingSignature": "s"}, source=OTHER)], TARGET
    )
    assert only_assistant(out)["content"] == []


def test_text_signature_stripped_for_another_model_only() -> None:
    block: AssistantContent = {"type": "text", "text": "answer", "textSignature": '{"v":1,"id":"msg_1"}'}
    assert only_assistant(transform_messages([user(), assistant(block)], TARGET))["content"] == [block]
    other = transform_messages([user(), assistant(block, source=OTHER)], TARGET)
    assert only_assistant(other)["content"] == [{"type": "text", "text": "answer"}]


def test_thought_signature_removed_for_another_model_only() -> None:
    block = call("c1", thoughtSignature="c2ln")
    same = transform_messages([user(), assistant(block), result("c1")], TARGET)
    assert only_assistant(same)["content"][0].get("thoughtSignature") == "c2ln"
    other = transform_messages([user(), assistant(block, source=OTHER), result("c1")], TARGET)
    assert "thoughtSignature" not in only_assistant(other)["content"][0]


def test_ids_renamed_for_another_model_and_propagated_to_results() -> None:
    messages: list[Message] = [
        user(),
        assistant(call("call_1|fc_abc+/="), call("plain_id"), source=OTHER, stop="toolUse"),
        result("call_1|fc_abc+/="),
        result("plain_id"),
        user("next"),
    ]
    out = transform_messages(messages, TARGET, normalize_id_anthropic)
    calls = only_assistant(out)["content"]
    assert [c["id"] for c in calls] == ["call_1_fc_abc___", "plain_id"]  # type: ignore[typeddict-item]
    results = [m for m in out if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["call_1_fc_abc___", "plain_id"]


def test_ids_of_the_same_model_are_never_normalised() -> None:
    messages: list[Message] = [user(), assistant(call("a|b"), stop="toolUse"), result("a|b")]
    out = transform_messages(messages, TARGET, normalize_id_anthropic)
    assert only_assistant(out)["content"][0]["id"] == "a|b"  # type: ignore[typeddict-item]
    assert out[-1]["toolCallId"] == "a|b"  # type: ignore[typeddict-item]


def test_inputs_are_not_mutated() -> None:
    messages: list[Message] = [
        user(),
        assistant(
            {"type": "thinking", "thinking": "t"},
            {"type": "text", "text": "x", "textSignature": "s"},
            call("a|b", thoughtSignature="q"),
            source=OTHER,
        ),
        result("a|b"),
    ]
    before = copy.deepcopy(messages)
    transform_messages(messages, TARGET, normalize_id_anthropic)
    assert messages == before


# --- pass 2 ---------------------------------------------------------------------------------


def synthetic(call_id: str, name: str = "read") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": NO_RESULT_TEXT}],
        "isError": True,
    }


def strip_timestamps(messages: list[Message]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "timestamp"} for m in messages]


def test_missing_results_are_synthesised_before_the_next_user_message() -> None:
    a = assistant(call("c1"), call("c2", "bash"), stop="toolUse")
    out = transform_messages([user(), a, result("c1"), user("interrupt")], TARGET)
    assert [m["role"] for m in out] == ["user", "assistant", "toolResult", "toolResult", "user"]
    assert strip_timestamps(out)[3] == synthetic("c2", "bash")
    assert NO_RESULT_TEXT == "No result provided"


def test_missing_results_are_synthesised_before_the_next_assistant_message() -> None:
    out = transform_messages(
        [user(), assistant(call("c1"), stop="toolUse"), assistant({"type": "text", "text": "later"})], TARGET
    )
    assert [m["role"] for m in out] == ["user", "assistant", "toolResult", "assistant"]
    assert strip_timestamps(out)[2] == synthetic("c1")


def test_trailing_tool_calls_without_results_are_left_alone() -> None:
    out = transform_messages([user(), assistant(call("c1"), stop="toolUse")], TARGET)
    assert [m["role"] for m in out] == ["user", "assistant"]


def test_complete_sequences_are_unchanged() -> None:
    messages: list[Message] = [
        user(),
        assistant(call("c1"), stop="toolUse"),
        result("c1"),
        assistant({"type": "text", "text": "done"}),
        user("thanks"),
    ]
    assert transform_messages(messages, TARGET) == messages


def test_error_and_aborted_assistant_messages_are_skipped() -> None:
    failed = assistant({"type": "thinking", "thinking": "half"}, call("bad"), stop="error")
    aborted = assistant({"type": "text", "text": "partial"}, stop="aborted")
    out = transform_messages([user(), failed, user("retry"), aborted, user("again")], TARGET)
    assert [m["role"] for m in out] == ["user", "user", "user"]


def test_results_of_a_skipped_assistant_are_dropped_as_orphans() -> None:
    aborted = assistant(call("c9"), stop="aborted")
    out = transform_messages([user(), aborted, result("c9"), user("go on")], TARGET)
    assert [m["role"] for m in out] == ["user", "user"]


def test_result_for_an_unknown_call_is_dropped() -> None:
    out = transform_messages([user(), result("nowhere"), user()], TARGET)
    assert [m["role"] for m in out] == ["user", "user"]


def test_skipped_assistant_between_call_and_user_still_gets_repair() -> None:
    out = transform_messages([user(), assistant(call("c1"), stop="toolUse"), assistant(stop="error"), user()], TARGET)
    assert [m["role"] for m in out] == ["user", "assistant", "toolResult", "user"]
    assert out[2]["content"][0]["text"] == NO_RESULT_TEXT  # type: ignore[index,typeddict-item]


# --- id normalisers (section 9.1) -----------------------------------------------------------


def test_sanitize_replaces_unsafe_characters_and_truncates() -> None:
    assert sanitize_tool_call_id("a.b/c d|e") == "a_b_c_d_e"
    assert sanitize_tool_call_id("x" * 100) == "x" * 64
    assert sanitize_tool_call_id("y" * 50, 40) == "y" * 40


def test_anthropic_normaliser() -> None:
    assert normalize_id_anthropic("toolu_01ABC-def_9") == "toolu_01ABC-def_9"
    assert normalize_id_anthropic("call_1|fc_2") == "call_1_fc_2"
    assert normalize_id_anthropic("é" * 70) == "_" * 64


def test_openai_completions_normaliser() -> None:
    other = make_openai_completions_normalizer(model("groq", "openai-completions", "llama"))
    assert other("call_abc|fc_" + "x" * 80) == "call_abc"
    assert other("call.with.dots|item") == "call_with_dots"
    assert other("c" * 60 + "|item") == "c" * 40
    assert other("a" * 60) == "a" * 60  # no "|", not provider openai: unchanged
    assert other("keeps.dots") == "keeps.dots"
    openai = make_openai_completions_normalizer(model("openai", "openai-completions", "gpt"))
    assert openai("a" * 60) == "a" * 40


def test_openai_responses_normaliser() -> None:
    assert normalize_id_openai_responses("call_plain") == "call_plain"
    assert normalize_id_openai_responses("call_1|fc_2") == "call_1|fc_2"
    assert normalize_id_openai_responses("call_1|item.2") == "call_1|fc_item_2"
    assert normalize_id_openai_responses("call/1_|fcx") == "call_1|fcx"
    long = normalize_id_openai_responses("c" * 70 + "|" + "i" * 70)
    call_id, item_id = long.split("|")
    assert call_id == "c" * 64
    assert item_id == "fc_" + "i" * 61
    assert normalize_id_openai_responses("a|b__") == "a|fc_b"


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [("claude-sonnet-4", "a_b_c"), ("gpt-oss-120b", "a_b_c"), ("gemini-2.5-pro", None)],
)
def test_google_normaliser_only_for_claude_and_gpt_oss(model_id: str, expected: str | None) -> None:
    normalizer = make_google_normalizer(model("google", "google-generative-ai", model_id))
    if expected is None:
        assert normalizer is None
    else:
        assert normalizer is not None
        assert normalizer("a.b|c") == expected
        assert normalizer("z" * 80) == "z" * 64
