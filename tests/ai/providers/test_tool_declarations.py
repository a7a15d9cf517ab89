"""Tool declarations on the wire, per provider, as Pi 1.4.0 sends them: when ``strict`` is sent
(and the strict schema with it), Anthropic's eager streaming and the cache breakpoint on the last
tool, Gemini's ``VALIDATED`` mode. Checked on the bodies the fake server recorded."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pi_harness.ai import StreamOptions, stream
from pi_harness.ai.providers.constrained_sampling import NoStrictForm, strict_schema
from pi_harness.ai.types import AssistantMessage
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep

PREFER = {"type": "json_schema", "strict": "prefer"}
READ_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["path"],
}
# The strict form: every property required, an optional one nullable, no other properties.
READ_STRICT = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
    "required": ["path", "limit"],
    "additionalProperties": False,
}
READ = {"name": "read", "description": "Read a file.", "parameters": READ_SCHEMA, "constrainedSampling": PREFER}
PLAIN = {
    "name": "plain",
    "description": "No sampling hint.",
    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
}
UNION = {
    "name": "union",
    "description": "A schema without a strict form.",
    "parameters": {"type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
    "constrainedSampling": PREFER,
}


def context(*tools: dict[str, Any]) -> Any:
    return {
        "systemPrompt": "sys",
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "tools": [copy.deepcopy(tool) for tool in tools],
    }


async def send(
    api: str, tools: tuple[dict[str, Any], ...], model_id: str = "fake-model", **model: Any
) -> tuple[dict[str, Any], dict[str, str], AssistantMessage]:
    """One request; returns the body and headers the server got and the final message."""
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        descriptor = server.model(api, model_id, **model)
        result = await stream(descriptor, context(*tools), StreamOptions(api_key="k")).result()
        request = server.requests[0] if server.requests else None
    if request is None:
        return {}, {}, result
    return request.json, dict(request.headers), result


# --- the strict form ----------------------------------------------------------------------------


def test_strict_form_of_nested_objects_and_what_has_none() -> None:
    nested = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}
        },
        "required": ["items"],
    }
    assert strict_schema(nested)["properties"]["items"]["items"] == {
        "type": "object",
        "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert "additionalProperties" not in nested  # the tool's own schema is left alone
    nullable = {"type": "object", "properties": {"n": {"type": ["string", "null"]}}}
    assert strict_schema(nullable)["properties"]["n"] == {"type": ["string", "null"]}
    for schema, reason in [
        ({"type": "object", "properties": {"v": {"$ref": "#/x"}}}, "$ref schemas are unsupported"),
        ({"type": "object", "additionalProperties": True}, "schema-valued or true additionalProperties is unsupported"),
        ({"type": "object", "properties": {}, "required": ["gone"]}, "required contains an unknown property"),
        ({"type": "array", "items": {"type": "string"}}, "root schema must have type object"),
        (
            {"type": "object", "properties": {"u": {"anyOf": [{"type": "object"}, {"type": "string"}]}}},
            "object and array unions are unsupported",
        ),
    ]:
        with pytest.raises(NoStrictForm) as info:
            strict_schema(schema)
        assert str(info.value) == reason


# --- openai-completions and openai-responses --------------------------------------------------


def _oc_functions(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["function"]["name"]: tool["function"] for tool in body["tools"]}


def _or_functions(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in body["tools"]}


@pytest.mark.parametrize(
    ("api", "functions"), [("openai-completions", _oc_functions), ("openai-responses", _or_functions)]
)
async def test_openai_tools_carry_no_strict_key_by_default(api: str, functions: Any) -> None:
    body, _, result = await send(api, (READ, PLAIN))
    assert result["stopReason"] == "stop"
    for function in functions(body).values():
        assert "strict" not in function
    assert functions(body)["read"]["parameters"] == READ_SCHEMA


@pytest.mark.parametrize(
    ("api", "functions"), [("openai-completions", _oc_functions), ("openai-responses", _or_functions)]
)
async def test_openai_strict_mode_from_compat_is_decided_per_tool(api: str, functions: Any) -> None:
    body, _, result = await send(api, (READ, PLAIN, UNION), compat={"supportsStrictMode": True})
    assert result["stopReason"] == "stop"
    sent = functions(body)
    assert sent["read"]["strict"] is True and sent["read"]["parameters"] == READ_STRICT
    assert sent["plain"]["strict"] is False and sent["plain"]["parameters"] == PLAIN["parameters"]
    # Only preferred, and there is no strict form: sent as it is.
    assert sent["union"]["strict"] is False and sent["union"]["parameters"] == UNION["parameters"]


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "anthropic-messages"])
async def test_a_tool_that_requires_strict_sampling_fails_the_request_where_there_is_none(api: str) -> None:
    required = {**READ, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    body, _, result = await send(api, (required,))
    assert body == {}  # nothing was sent
    assert result["stopReason"] == "error"
    assert result.get("errorMessage") == (
        'Tool "read" requires JSON-schema constrained sampling, but strict tools are unsupported.'
    )
    union = {**UNION, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    _, _, result = await send("openai-completions", (union,), compat={"supportsStrictMode": True})
    assert result.get("errorMessage") == (
        'Tool "union" requires JSON-schema constrained sampling, but oneOf schemas are unsupported.'
    )


# --- anthropic-messages -----------------------------------------------------------------------


async def test_anthropic_tools_stream_eagerly_and_the_last_one_carries_the_cache_breakpoint() -> None:
    body, headers, result = await send("anthropic-messages", (READ, PLAIN))
    assert result["stopReason"] == "stop"
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read a file.",
            "eager_input_streaming": True,
            "input_schema": READ_SCHEMA,
        },
        {
            "name": "plain",
            "description": "No sampling hint.",
            "eager_input_streaming": True,
            "input_schema": PLAIN["parameters"],
            "cache_control": {"type": "ephemeral"},
        },
    ]
    assert "anthropic-beta" not in headers
    # Only type, properties and required of a schema are sent (and required always).
    loose = {"name": "loose", "description": "", "parameters": {"type": "object", "properties": {}, "title": "t"}}
    body, _, _ = await send("anthropic-messages", (loose,))
    assert body["tools"][0]["input_schema"] == {"type": "object", "properties": {}, "required": []}


async def test_anthropic_compat_turns_eager_streaming_and_tool_markers_off() -> None:
    compat = {"supportsEagerToolInputStreaming": False, "supportsCacheControlOnTools": False}
    body, headers, _ = await send("anthropic-messages", (READ, PLAIN), compat=compat)
    assert [sorted(tool) for tool in body["tools"]] == [["description", "input_schema", "name"]] * 2
    assert headers["anthropic-beta"] == "fine-grained-tool-streaming-2025-05-14"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}  # other markers stay


async def test_anthropic_strict_tools_where_compat_allows_them() -> None:
    limited = {
        "name": "pick",
        "description": "",
        "parameters": {
            "type": "object",
            "properties": {"tags": {"type": "array", "minItems": 2}},
            "required": ["tags"],
        },
        "constrainedSampling": PREFER,
    }
    body, _, result = await send("anthropic-messages", (READ, limited), compat={"supportsStrictTools": True})
    assert result["stopReason"] == "stop"
    read, pick = body["tools"]
    assert read["strict"] is True and read["input_schema"] == READ_STRICT
    # Anthropic's strict mode refuses minItems above 1: sent without strict.
    assert "strict" not in pick and pick["input_schema"] == limited["parameters"]
    body, _, _ = await send("anthropic-messages", (READ,))
    assert "strict" not in body["tools"][0]


@pytest.mark.parametrize(
    ("retention", "compat", "marker"),
    [
        ("long", {}, {"type": "ephemeral", "ttl": "1h"}),
        ("long", {"supportsLongCacheRetention": False}, {"type": "ephemeral"}),
        ("none", {}, None),
    ],
)
async def test_the_tool_marker_follows_the_cache_retention(retention: str, compat: dict[str, Any], marker: Any) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model("anthropic-messages", compat=compat)
        options = StreamOptions(api_key="k", cache_retention=retention)
        await stream(model, context(READ), options).result()
        body = server.requests[0].json
    assert body["tools"][-1].get("cache_control") == marker
    assert body["system"][0].get("cache_control") == marker


# --- google-generative-ai ---------------------------------------------------------------------


async def test_gemini_3_validates_strict_tools_and_older_models_do_not() -> None:
    body, _, result = await send("google-generative-ai", (READ, PLAIN), "gemini-3-flash-preview")
    assert result["stopReason"] == "stop"
    declarations = {d["name"]: d for d in body["tools"][0]["functionDeclarations"]}
    assert declarations["read"]["parametersJsonSchema"] == READ_STRICT
    assert declarations["plain"]["parametersJsonSchema"] == PLAIN["parameters"]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "VALIDATED"}}
    body, _, _ = await send("google-generative-ai", (READ,), "gemini-2.5-flash")
    assert "toolConfig" not in body
    assert body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"] == READ_SCHEMA
    body, _, _ = await send("google-generative-ai", (PLAIN,), "gemini-3-flash-preview")
    assert "toolConfig" not in body


@pytest.mark.parametrize(
    ("message", "retried"),
    [("Too many strict tools (21). The limit is 20.", True), ("prompt is too long: 300000 tokens", False)],
)
async def test_anthropic_sends_again_without_preferred_strict_tools_when_they_are_too_many(
    message: str, retried: bool
) -> None:
    refused = ScriptedResponse(http_error=HTTPErrorSpec(400, message))
    with FakeLLMServer([refused, ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model("anthropic-messages", compat={"supportsStrictTools": True})
        result = await stream(model, context(READ, PLAIN), StreamOptions(api_key="k")).result()
        bodies = [request.json for request in server.requests]
    assert [tool.get("strict") for tool in bodies[0]["tools"]] == [True, None]
    if retried:
        assert result["stopReason"] == "stop"
        assert len(bodies) == 2
        assert "strict" not in bodies[1]["tools"][0] and bodies[1]["tools"][0]["input_schema"] == READ_SCHEMA
        [diagnostic] = result["diagnostics"]
        assert diagnostic["type"] == "anthropic_strict_tools_fallback"
        assert diagnostic["details"] == {"reason": "strict_tool_limits_exceeded"}
        assert message in diagnostic["error"]["message"]
    else:
        assert result["stopReason"] == "error" and len(bodies) == 1 and "diagnostics" not in result


# --- anthropic history rules ------------------------------------------------------------------


def _assistant(content: list[dict[str, Any]], model: str = "fake-model") -> dict[str, Any]:
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "fake",
        "model": model,
        "usage": {**zero, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse",
        "timestamp": 1,
    }


async def test_anthropic_error_result_images_follow_the_results() -> None:
    calls = [{"type": "toolCall", "id": f"toolu_{n}", "name": "shot", "arguments": {}} for n in (1, 2)]
    image = {"type": "image", "data": "iVBORw0", "mimeType": "image/png"}
    messages = [
        {"role": "user", "content": "shoot", "timestamp": 1},
        _assistant(calls),
        {
            "role": "toolResult",
            "toolCallId": "toolu_1",
            "toolName": "shot",
            "content": [{"type": "text", "text": "failed:"}, image, image],
            "isError": True,
            "timestamp": 2,
        },
        {
            "role": "toolResult",
            "toolCallId": "toolu_2",
            "toolName": "shot",
            "content": [image],
            "isError": False,
            "timestamp": 3,
        },
    ]
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        model = server.model("anthropic-messages")
        await stream(model, {"messages": messages}, StreamOptions(api_key="k", cache_retention="none")).result()
        body = server.requests[0].json
    picture = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0"}}
    assert body["messages"][-1]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "failed:\n(image attached after the tool results)",
            "is_error": True,
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "(see attached image)"}, picture],
            "is_error": False,
        },
        {"type": "text", "text": "Images from the error result of tool call toolu_1 (shot):"},
        picture,
        picture,
    ]


async def test_anthropic_unsigned_thinking_is_kept_where_compat_allows_it() -> None:
    thought = _assistant([{"type": "thinking", "thinking": "pondering"}, {"type": "text", "text": "done"}])
    thought["stopReason"] = "stop"
    messages = [
        {"role": "user", "content": "q", "timestamp": 1},
        thought,
        {"role": "user", "content": "more", "timestamp": 2},
    ]
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]), ScriptedResponse(steps=[TextStep("ok")])]) as server:
        for compat in ({}, {"allowEmptySignature": True}):
            model = server.model("anthropic-messages", compat=compat)
            await stream(model, {"messages": messages}, StreamOptions(api_key="k")).result()
        plain, kept = (request.json["messages"][1]["content"][0] for request in server.requests)
    assert plain == {"type": "text", "text": "pondering"}
    assert kept == {"type": "thinking", "thinking": "pondering", "signature": ""}
