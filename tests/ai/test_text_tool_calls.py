"""Tool calls written as text: which whole-message texts are read as calls, and the stream seen
by consumers when a local server's model writes one (real loopback HTTP, fake server)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_harness.ai.providers.openai_completions import OpenAICompletionsOptions, stream
from pi_harness.ai.providers.openai_completions_compat import resolve_compat
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.text_tool_calls import could_become_call, parse_text_tool_calls, recover_text_tool_calls
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

TOOLS = {"read", "write", "bash"}
WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"}},
}


def calls(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    found = parse_text_tool_calls(text, TOOLS, {"write": WRITE_SCHEMA})
    return None if found is None else [(c.name, c.arguments) for c in found]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "read", "arguments": {"path": "a.py"}}',
        '  \n{"name": "read", "parameters": {"path": "a.py"}}\n',
        '```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```',
        '```\n{"name": "read", "arguments": {"path": "a.py"}}\n```',
        '<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>',
        '<|python_tag|>{"name": "read", "parameters": {"path": "a.py"}}',
        '[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.py"}}]',
        '<function=read>{"path": "a.py"}</function>',
        '{"type": "function", "function": {"name": "read", "arguments": "{\\"path\\": \\"a.py\\"}"}}',
        "<tool_call>\n<function=read>\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call>",
    ],
)
def test_every_spelling_of_a_whole_message_call_is_read(text: str) -> None:
    assert calls(text) == [("read", {"path": "a.py"})]


def test_markup_parameters_follow_the_schema_types() -> None:
    text = (
        "<tool_call>\n<function=write>\n<parameter=path>\n7.txt\n</parameter>\n"
        "<parameter=content>\n42\n</parameter>\n<parameter=mode>\n644\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls(text) == [("write", {"path": "7.txt", "content": "42", "mode": 644})]


def test_several_tagged_calls_are_several_calls() -> None:
    text = (
        '<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
    )
    assert calls(text) == [("read", {"path": "a"}), ("bash", {"command": "ls"})]


@pytest.mark.parametrize(
    "text",
    [
        'I will read it: {"name": "read", "arguments": {"path": "a.py"}}',  # prose before
        '{"name": "read", "arguments": {"path": "a.py"}} Done.',  # prose after
        '{"name": "read", "arguments": {"path": "a.py"',  # cut short
        '{"name": "delete_everything", "arguments": {}}',  # not an offered tool
        '{"name": "read", "arguments": "not json"}',
        '{"name": "read", "arguments": {"path": "a"}, "extra": 1}',  # not a call's shape
        '{"name": "read"}',
        '<tool_call>{"name": "read", "arguments": {}}</tool_call> and then I stop',
        "```python\nprint('hi')\n```",
        "Hello!",
        "",
    ],
)
def test_partial_mixed_or_unknown_texts_stay_text(text: str) -> None:
    assert calls(text) is None


def test_a_growing_text_is_held_only_while_it_can_still_be_a_call() -> None:
    assert could_become_call("")
    assert could_become_call(" {")
    assert could_become_call("``")
    assert could_become_call("<tool_")
    assert not could_become_call("Sure, here")
    assert not could_become_call("<b>")


def test_the_flag_is_on_for_local_servers_and_off_for_hosted_apis() -> None:
    base: dict[str, Any] = {"id": "m", "api": "openai-completions"}
    assert resolve_compat({**base, "provider": "x", "baseUrl": "http://127.0.0.1:8080/v1"})["recoverTextToolCalls"]
    assert resolve_compat({**base, "provider": "ollama", "baseUrl": "http://gpu:11434/v1"})["recoverTextToolCalls"]
    hosted = {**base, "provider": "openai", "baseUrl": "https://api.openai.com/v1"}
    assert not resolve_compat(hosted)["recoverTextToolCalls"]  # type: ignore[arg-type]
    forced = {**hosted, "compat": {"recoverTextToolCalls": True}}
    assert resolve_compat(forced)["recoverTextToolCalls"]  # type: ignore[arg-type]
    off = {
        **base,
        "provider": "llama.cpp",
        "baseUrl": "http://127.0.0.1:8080/v1",
        "compat": {"recoverTextToolCalls": False},
    }
    assert not resolve_compat(off)["recoverTextToolCalls"]  # type: ignore[arg-type]


# --- over HTTP ----------------------------------------------------------------------------------

READ_TOOL = {"name": "read", "description": "Read a file", "parameters": {"type": "object", "properties": {}}}


async def run(server: FakeLLMServer, **model: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    ctx: Any = {"messages": [{"role": "user", "content": "read a.py", "timestamp": 1}], "tools": [READ_TOOL]}
    s = stream(server.model("openai-completions", **model), ctx, OpenAICompletionsOptions(api_key="k"))
    events = [event async for event in s]
    return events, dict(await s.result())


async def test_a_local_model_writing_the_call_as_text_yields_a_native_tool_call() -> None:
    text = '```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```'
    with FakeLLMServer([ScriptedResponse(steps=[TextStep(text, chunks=5)])]) as server:
        events, message = await run(server)
    assert [e["type"] for e in events] == [
        "start",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert message["stopReason"] == "toolUse"
    [block] = message["content"]
    assert block["type"] == "toolCall" and block["name"] == "read" and block["arguments"] == {"path": "a.py"}
    assert block["id"].startswith("call_")
    assert events[-1]["reason"] == "toolUse"


async def test_prose_and_native_calls_pass_through_untouched() -> None:
    prose = ScriptedResponse(steps=[TextStep('{"name": "read"} is how I would call it', chunks=4)])
    native = ScriptedResponse(steps=[ToolCallStep("read", {"path": "b"}, id="call_1")])
    with FakeLLMServer([prose, native]) as server:
        events, message = await run(server)
        assert message["stopReason"] == "stop"
        assert message["content"] == [{"type": "text", "text": '{"name": "read"} is how I would call it'}]
        assert [e["type"] for e in events].count("text_delta") == 4
        _, message = await run(server)
        assert message["content"][0]["id"] == "call_1"


async def test_hosted_apis_keep_the_text() -> None:
    text = '{"name": "read", "arguments": {"path": "a.py"}}'
    with FakeLLMServer([ScriptedResponse(steps=[TextStep(text)])]) as server:
        _, message = await run(server, compat={"recoverTextToolCalls": False})
    assert message["stopReason"] == "stop" and message["content"] == [{"type": "text", "text": text}]


async def test_a_stream_that_ended_before_it_was_wrapped_ends_the_wrapper_too() -> None:
    # A provider whose request was aborted before it started ends its stream at once.
    inner = AssistantMessageEventStream()
    failed: Any = {"role": "assistant", "content": [], "stopReason": "aborted", "timestamp": 0}
    inner.push({"type": "error", "reason": "aborted", "error": failed})
    context: Any = {"messages": [], "tools": [{"name": "read", "description": "", "parameters": {}}]}
    outer = recover_text_tool_calls(inner, context)
    assert outer is not inner and outer.closed
    assert [event["type"] async for event in outer] == ["error"]
    assert await outer.result() is failed
