"""``openai-completions`` request bodies: history conversion, compat flags and their auto-detection,
reasoning dialects, caching and routing, checked on what the fake server recorded."""

from __future__ import annotations

from typing import Any

import pytest

from pi_harness.ai import SimpleStreamOptions, StreamOptions, stream, stream_simple
from pi_harness.ai.providers.openai_completions import OpenAICompletionsOptions
from pi_harness.ai.providers.openai_completions_compat import detect_compat, resolve_compat
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ThinkingStep, ToolCallStep

API = "openai-completions"
READ_TOOL = {
    "name": "read",
    "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": 1}


def assistant(content: list[Any], *, api: str, provider: str, model: str, stop: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": stop,
        "timestamp": 2,
    }


def tool_result(call_id: str, name: str, content: list[Any]) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": False,
        "timestamp": 3,
    }


def image(data: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": "image/png"}


def tool_history() -> list[dict[str, Any]]:
    return [
        user("list files"),
        assistant(
            [{"type": "toolCall", "id": "call_1", "name": "ls", "arguments": {}}],
            api=API,
            provider="fake",
            model="fake-model",
            stop="toolUse",
        ),
        tool_result("call_1", "ls", [{"type": "text", "text": "a.py"}]),
        user("thanks"),
    ]


async def bodies(
    server: FakeLLMServer, model: dict[str, Any], ctx: Any, *option_sets: Any, simple: bool = False
) -> list[dict[str, Any]]:
    server.push(*[ScriptedResponse(steps=[TextStep("ok")]) for _ in option_sets])
    start = len(server.requests)
    for options in option_sets:
        s = stream_simple(model, ctx, options) if simple else stream(model, ctx, options)
        message = await s.result()
        assert message["stopReason"] == "stop", message.get("errorMessage")
    return [request.json for request in server.requests[start:]]


async def one_body(server: FakeLLMServer, model: dict[str, Any], ctx: Any = None, **options: Any) -> dict[str, Any]:
    options.setdefault("api_key", "k")
    ctx = ctx or {"systemPrompt": "Be brief.", "messages": [user("hi")]}
    return (await bodies(server, model, ctx, OpenAICompletionsOptions(**options)))[0]


# --- history ------------------------------------------------------------------------------------


async def test_cross_provider_history_is_transformed() -> None:
    messages = [
        user([{"type": "text", "text": "Look at this"}, image("AAAA")]),
        assistant(
            [
                {"type": "thinking", "thinking": "I should read the file", "thinkingSignature": "EqQBCkYIBRgC"},
                {"type": "text", "text": "Reading it."},
                {"type": "toolCall", "id": "toolu_01XYZ", "name": "read", "arguments": {"path": "a.py"}},
            ],
            api="anthropic-messages",
            provider="anthropic",
            model="claude-sonnet-4-5",
            stop="toolUse",
        ),
        tool_result("toolu_01XYZ", "read", [{"type": "text", "text": "print(1)"}]),
        assistant(
            [
                {"type": "text", "text": "Now a screenshot.", "textSignature": "msg_1"},
                {"type": "toolCall", "id": "call_abc|fc_123", "name": "screenshot", "arguments": {}},
            ],
            api="openai-responses",
            provider="openai",
            model="gpt-5",
            stop="toolUse",
        ),
        tool_result("call_abc|fc_123", "screenshot", [image("BBBB")]),
        user("continue"),
        assistant(
            [{"type": "text", "text": "half a turn"}], api=API, provider="fake", model="fake-model", stop="error"
        ),
        assistant(
            [
                {"type": "thinking", "thinking": "prior reasoning", "thinkingSignature": "reasoning_content"},
                {"type": "text", "text": "Done."},
            ],
            api=API,
            provider="fake",
            model="fake-model",
        ),
        assistant([{"type": "text", "text": "  "}], api=API, provider="fake", model="fake-model"),
        user("thanks"),
    ]
    ctx = {"systemPrompt": "You are helpful.", "messages": messages, "tools": [READ_TOOL]}
    with FakeLLMServer() as server:
        body = await one_body(server, server.model(API), ctx)
    assert body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look at this"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Reading it.",  # another model's thinking is dropped
            "tool_calls": [
                {"id": "toolu_01XYZ", "type": "function", "function": {"name": "read", "arguments": '{"path":"a.py"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_01XYZ", "content": "print(1)"},
        {
            "role": "assistant",
            "content": "Now a screenshot.",
            "tool_calls": [
                {"id": "call_abc", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "(see attached image)"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,BBBB"}},
            ],
        },
        {"role": "user", "content": "continue"},
        {"role": "assistant", "content": "Done.", "reasoning_content": "prior reasoning"},
        {"role": "user", "content": "thanks"},
    ]
    # Pi sends no strict key unless the model's compat says the server takes it.
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file.",
                "parameters": READ_TOOL["parameters"],
            },
        }
    ]


async def test_text_only_model_drops_images_and_missing_results_are_filled() -> None:
    messages = [
        user([image("AAAA")]),
        user([{"type": "text", "text": "and this"}, image("AAAA")]),
        assistant(
            [
                {"type": "toolCall", "id": "c1", "name": "shot", "arguments": {}},
                {"type": "toolCall", "id": "c2", "name": "shot", "arguments": {}},
            ],
            api=API,
            provider="fake",
            model="fake-model",
            stop="toolUse",
        ),
        tool_result("c1", "shot", [image("BBBB")]),
        user("next"),
    ]
    with FakeLLMServer() as server:
        body = await one_body(server, server.model(API, input=["text"]), {"messages": messages})
    assert body["messages"][0] == {"role": "user", "content": [{"type": "text", "text": "and this"}]}
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "(see attached image)"},
        {"role": "tool", "tool_call_id": "c2", "content": "No result provided"},
        {"role": "user", "content": "next"},
    ]
    assert body["tools"] == []  # tool history without tools in the context


async def test_system_prompt_role_follows_reasoning_and_compat() -> None:
    with FakeLLMServer() as server:
        reasoning = await one_body(server, server.model(API, reasoning=True))
        plain = await one_body(server, server.model(API))
        no_dev = await one_body(server, server.model(API, reasoning=True, compat={"supportsDeveloperRole": False}))
    assert reasoning["messages"][0] == {"role": "developer", "content": "Be brief."}
    assert plain["messages"][0]["role"] == "system"
    assert no_dev["messages"][0]["role"] == "system"


async def test_tool_message_compat_flags() -> None:
    compat = {
        "requiresToolResultName": True,
        "requiresAssistantAfterToolResult": True,
        "requiresThinkingAsText": True,
        "supportsStrictMode": False,
    }
    history = tool_history()
    history.insert(
        1,
        assistant(
            [
                {"type": "thinking", "thinking": "plan", "thinkingSignature": "reasoning_content"},
                {"type": "text", "text": "Sure."},
            ],
            api=API,
            provider="fake",
            model="fake-model",
        ),
    )
    with FakeLLMServer() as server:
        body = await one_body(server, server.model(API, compat=compat), {"messages": history, "tools": [READ_TOOL]})
    assert body["messages"] == [
        {"role": "user", "content": "list files"},
        {"role": "assistant", "content": "plan\n\nSure."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py", "name": "ls"},
        {"role": "assistant", "content": "I have processed the tool results."},
        {"role": "user", "content": "thanks"},
    ]
    assert "strict" not in body["tools"][0]["function"]


async def test_deepseek_style_reasoning_content_on_every_assistant_message() -> None:
    compat = {"requiresReasoningContentOnAssistantMessages": True, "thinkingFormat": "deepseek"}
    with FakeLLMServer() as server:
        body = await one_body(server, server.model(API, reasoning=True, compat=compat), {"messages": tool_history()})
    assert body["messages"][1]["reasoning_content"] == ""
    assert body["thinking"] == {"type": "disabled"}


# --- compat auto-detection ----------------------------------------------------------------------

DETECTION_CASES = [
    # provider, path prefix standing in for the vendor host, expected body facts
    ("openai", "", {"max": "max_completion_tokens", "store": True, "role": "developer", "effort": "medium"}),
    ("cerebras", "", {"max": "max_completion_tokens", "store": False, "role": "system", "effort": "medium"}),
    ("xai", "", {"max": "max_completion_tokens", "store": False, "role": "system", "effort": None}),
    ("custom", "/chutes.ai", {"max": "max_tokens", "store": False, "role": "system", "effort": "medium"}),
    (
        "deepseek",
        "/api.deepseek.com",
        {"max": "max_tokens", "store": False, "role": "system", "effort": "medium", "thinking": {"type": "enabled"}},
    ),
    (
        "zai",
        "",
        {
            "max": "max_tokens",
            "store": False,
            "role": "system",
            "effort": None,
            "thinking": {"type": "enabled", "clear_thinking": False},
        },
    ),
    ("opencode", "", {"max": "max_completion_tokens", "store": False, "role": "system", "effort": "medium"}),
    (
        # The developer role only for anthropic/ and openai/ models there; thinking as reasoning.effort.
        "openrouter",
        "/openrouter.ai/api",
        {"max": "max_completion_tokens", "store": True, "role": "system", "effort": None},
    ),
    ("llamacpp", "", {"max": "max_tokens", "store": False, "role": "system", "effort": "medium"}),
]


@pytest.mark.parametrize(("provider", "prefix", "expected"), DETECTION_CASES, ids=[c[0] for c in DETECTION_CASES])
async def test_compat_is_detected_from_provider_and_base_url(
    provider: str, prefix: str, expected: dict[str, Any]
) -> None:
    with FakeLLMServer() as server:
        model = server.model(API, provider=provider, baseUrl=f"{server.url}{prefix}/v1", reasoning=True)
        ctx = {"systemPrompt": "sys", "messages": [user("hi")]}
        [body] = await bodies(server, model, ctx, SimpleStreamOptions(api_key="k", reasoning="medium"), simple=True)
    other = "max_tokens" if expected["max"] == "max_completion_tokens" else "max_completion_tokens"
    assert body[expected["max"]] == 16_384
    assert other not in body
    assert ("store" in body) is expected["store"]
    if expected["store"]:
        assert body["store"] is False
    assert body["messages"][0]["role"] == expected["role"]
    assert body.get("reasoning_effort") == expected["effort"]
    assert body.get("enable_thinking") == expected.get("enable_thinking")
    assert body.get("thinking") == expected.get("thinking")


def test_detected_defaults_for_special_models() -> None:
    base = {"api": API, "baseUrl": "https://api.groq.com/openai/v1", "reasoning": True}
    groq_qwen = detect_compat({**base, "provider": "groq", "id": "qwen/qwen3-32b"})  # type: ignore[typeddict-item]
    assert groq_qwen["reasoningEffortMap"] == {
        level: "default" for level in ("minimal", "low", "medium", "high", "xhigh")
    }
    assert detect_compat({**base, "provider": "groq", "id": "openai/gpt-oss-120b"})["reasoningEffortMap"] == {}  # type: ignore[typeddict-item]
    z = detect_compat({**base, "provider": "custom", "id": "glm", "baseUrl": "https://api.z.ai/api/paas/v4"})  # type: ignore[typeddict-item]
    assert (z["thinkingFormat"], z["supportsReasoningEffort"], z["supportsStore"]) == ("zai", False, False)
    plain = detect_compat({**base, "provider": "my-vllm", "id": "m", "baseUrl": "http://10.0.0.5:8000/v1"})  # type: ignore[typeddict-item]
    assert plain["supportsStore"] and plain["supportsDeveloperRole"] and plain["supportsUsageInStreaming"]
    assert (plain["thinkingFormat"], plain["maxTokensField"], plain["openRouterRouting"]) == (
        "openai",
        "max_completion_tokens",
        {},
    )


async def test_partial_compat_overrides_only_what_it_sets() -> None:
    with FakeLLMServer() as server:
        model = server.model(
            API, provider="cerebras", reasoning=True, compat={"supportsStore": True, "maxTokensField": None}
        )
        body = await one_body(server, model, max_tokens=100, reasoning_effort="low")
    assert body["store"] is False  # overridden
    assert body["messages"][0]["role"] == "system"  # still detected: cerebras has no developer role
    assert body["max_completion_tokens"] == 100  # null keeps the detected value
    assert body["reasoning_effort"] == "low"
    assert resolve_compat(model)["supportsDeveloperRole"] is False


async def test_usage_in_streaming_can_be_switched_off() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")], usage={"input": 9, "output": 9})]) as server:
        model = server.model(API, compat={"supportsUsageInStreaming": False})
        message = await stream(model, {"messages": [user("hi")]}, StreamOptions(api_key="k")).result()
        body = server.requests[0].json
    assert "stream_options" not in body
    assert message["stopReason"] == "stop"
    assert message["usage"]["input"] == 0  # the server sends no usage chunk when not asked


# --- reasoning dialects -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("compat", "on", "off"),
    [
        ({}, {"reasoning_effort": "high"}, {}),
        (
            {"thinkingFormat": "zai"},
            {"thinking": {"type": "enabled", "clear_thinking": False}, "reasoning_effort": "high"},
            {"thinking": {"type": "disabled"}},
        ),
        (
            {"thinkingFormat": "qwen"},
            {"enable_thinking": True, "reasoning_effort": "high"},
            {"enable_thinking": False},
        ),
        (
            {"thinkingFormat": "qwen-chat-template"},
            {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}},
            {"chat_template_kwargs": {"enable_thinking": False, "preserve_thinking": True}},
        ),
        (
            {"thinkingFormat": "deepseek"},
            {"thinking": {"type": "enabled"}, "reasoning_effort": "high"},
            {"thinking": {"type": "disabled"}},
        ),
        ({"thinkingFormat": "openrouter"}, {"reasoning": {"effort": "high"}}, {"reasoning": {"effort": "none"}}),
        (
            {"thinkingFormat": "together"},
            {"reasoning": {"enabled": True}, "reasoning_effort": "high"},
            {"reasoning": {"enabled": False}},
        ),
        ({"supportsReasoningEffort": False}, {}, {}),
    ],
)
async def test_thinking_formats(compat: dict[str, Any], on: dict[str, Any], off: dict[str, Any]) -> None:
    keys = ("reasoning_effort", "enable_thinking", "chat_template_kwargs", "thinking", "reasoning")
    with FakeLLMServer() as server:
        model = server.model(API, reasoning=True, compat=compat)
        ctx = {"messages": [user("hi")]}
        high, low = await bodies(
            server,
            model,
            ctx,
            SimpleStreamOptions(api_key="k", reasoning="high"),
            SimpleStreamOptions(api_key="k", reasoning="off"),
            simple=True,
        )
    assert {k: high[k] for k in keys if k in high} == on
    assert {k: low[k] for k in keys if k in low} == off


async def test_level_maps_and_clamping() -> None:
    with FakeLLMServer() as server:
        ctx = {"messages": [user("hi")]}
        mapped = server.model(API, reasoning=True, thinkingLevelMap={"high": "max", "low": None})
        groq = server.model(API, model_id="qwen/qwen3-32b", provider="groq", reasoning=True)
        xhigh_capable = server.model(API, model_id="gpt-5.2", reasoning=True, thinkingLevelMap={"xhigh": "xhigh"})
        results = [
            *await bodies(
                server,
                mapped,
                ctx,
                SimpleStreamOptions(api_key="k", reasoning="high"),
                SimpleStreamOptions(api_key="k", reasoning="low"),
                SimpleStreamOptions(api_key="k", reasoning="xhigh"),
                simple=True,
            ),
            *await bodies(server, groq, ctx, SimpleStreamOptions(api_key="k", reasoning="medium"), simple=True),
            *await bodies(server, xhigh_capable, ctx, SimpleStreamOptions(api_key="k", reasoning="xhigh"), simple=True),
        ]
    efforts = [body.get("reasoning_effort") for body in results]
    # low is unsupported by the map and clamps up to medium (as Pi); xhigh clamps to high, sent as "max"
    assert efforts == ["max", "medium", "max", "default", "xhigh"]


# --- caching, routing, headers ------------------------------------------------------------------


async def test_openrouter_anthropic_cache_control_and_routing() -> None:
    with FakeLLMServer() as server:
        model = server.model(
            API,
            provider="openrouter",
            model_id="anthropic/claude-sonnet-4",
            baseUrl=f"{server.url}/openrouter.ai/api/v1",
            compat={"openRouterRouting": {"only": ["anthropic"], "order": ["anthropic"]}},
        )
        ctx = {
            "systemPrompt": "sys",
            "messages": [user("first"), user([{"type": "text", "text": "second"}, image("AA")])],
        }
        body = await one_body(server, model, ctx)
        uncached = await one_body(server, model, ctx, cache_retention="none")
    assert body["messages"][-1]["content"][0] == {
        "type": "text",
        "text": "second",
        "cache_control": {"type": "ephemeral"},
    }
    assert body["messages"][1] == {"role": "user", "content": "first"}
    assert body["provider"] == {"only": ["anthropic"], "order": ["anthropic"]}
    assert "cache_control" not in uncached["messages"][-1]["content"][0]


async def test_anthropic_cache_control_format_marks_system_tools_and_last_text() -> None:
    with FakeLLMServer() as server:
        model = server.model(API, compat={"cacheControlFormat": "anthropic"})
        body = await one_body(server, model, {"systemPrompt": "sys", "messages": [user("hello")], "tools": [READ_TOOL]})
    marker = {"type": "ephemeral"}
    assert body["messages"][0]["content"] == [{"type": "text", "text": "sys", "cache_control": marker}]
    assert body["messages"][1]["content"] == [{"type": "text", "text": "hello", "cache_control": marker}]
    assert body["tools"][-1]["cache_control"] == marker


async def test_openai_prompt_cache_key_and_vercel_routing() -> None:
    with FakeLLMServer() as server:
        openai = server.model(API, provider="openai", baseUrl=f"{server.url}/api.openai.com/v1")
        long = await one_body(server, openai, session_id="sess-1", cache_retention="long")
        other = await one_body(server, server.model(API), session_id="sess-1", cache_retention="long")
        short = await one_body(server, server.model(API), session_id="sess-1")
        together = server.model(API, provider="together")
        no_long = await one_body(server, together, session_id="sess-1", cache_retention="long")
        marked = server.model(API, compat={"cacheControlFormat": "anthropic"})
        one_hour = await one_body(server, marked, session_id="s" * 80, cache_retention="long")
        vercel = server.model(
            API,
            baseUrl=f"{server.url}/ai-gateway.vercel.sh/v1",
            compat={"vercelGatewayRouting": {"order": ["bedrock"]}},
        )
        routed = await one_body(server, vercel)
    assert (long["prompt_cache_key"], long["prompt_cache_retention"]) == ("sess-1", "24h")
    # Long retention asks any server that keeps caches long (Together does not), as Pi does.
    assert (other["prompt_cache_key"], other["prompt_cache_retention"]) == ("sess-1", "24h")
    assert "prompt_cache_key" not in short and "prompt_cache_key" not in no_long
    assert one_hour["prompt_cache_key"] == "s" * 64
    assert one_hour["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert routed["providerOptions"] == {"gateway": {"order": ["bedrock"]}}


async def test_session_affinity_headers_and_zai_tool_stream() -> None:
    with FakeLLMServer() as server:
        model = server.model(API, compat={"sendSessionAffinityHeaders": True, "zaiToolStream": True})
        body = await one_body(server, model, {"messages": [user("hi")], "tools": [READ_TOOL]}, session_id="s-9")
        headers = server.requests[-1].headers
    assert headers["x-session-affinity"] == "s-9"
    assert headers["session_id"] == "s-9"
    assert body["tool_stream"] is True


async def test_extra_body_and_tool_choice() -> None:
    with FakeLLMServer() as server:
        body = await one_body(
            server,
            server.model(API),
            {"messages": [user("hi")], "tools": [READ_TOOL]},
            tool_choice="required",
            extra_body={"top_k": 20},
        )
    assert body["tool_choice"] == "required"
    assert body["top_k"] == 20


# --- a local llama.cpp server end to end --------------------------------------------------------


async def test_llama_cpp_model_end_to_end() -> None:
    responses = [
        ScriptedResponse(
            steps=[ThinkingStep("The user wants the file list."), ToolCallStep("ls", {"path": "."}, id="call_ls")],
            usage={"input": 50, "output": 20, "reasoning": 8},
        ),
        ScriptedResponse(steps=[ThinkingStep("Now answer."), TextStep("There is one file: a.py")]),
    ]
    with FakeLLMServer(responses) as server:
        model = server.model(
            API,
            provider="llamacpp",
            model_id="qwen3-8b-q4",
            reasoning=True,
            cost={"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        )
        ctx: dict[str, Any] = {
            "systemPrompt": "You are a coding agent.",
            "messages": [user("What files are here?")],
            "tools": [READ_TOOL],
        }
        options = SimpleStreamOptions(api_key="sk-no-key-required", reasoning="medium")
        first = await stream_simple(model, ctx, options).result()
        ctx["messages"] += [first, tool_result("call_ls", "ls", [{"type": "text", "text": "a.py"}])]
        second = await stream_simple(model, ctx, options).result()
        first_body, second_body = (r.json for r in server.requests)
    assert first["stopReason"] == "toolUse"
    assert first["content"][1] == {"type": "toolCall", "id": "call_ls", "name": "ls", "arguments": {"path": "."}}
    assert first["usage"]["cost"]["total"] == 0
    assert second["content"][-1] == {"type": "text", "text": "There is one file: a.py"}
    assert first_body["max_tokens"] == 16_384
    assert "store" not in first_body
    assert first_body["messages"][0] == {"role": "system", "content": "You are a coding agent."}
    # the second request replays the model's own reasoning under the field it came from
    assert second_body["messages"][2] == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "The user wants the file list.",
        "tool_calls": [{"id": "call_ls", "type": "function", "function": {"name": "ls", "arguments": '{"path":"."}'}}],
    }
    assert second_body["messages"][3] == {"role": "tool", "tool_call_id": "call_ls", "content": "a.py"}


async def test_off_follows_the_level_map() -> None:
    """A map's ``off`` value is sent as the effort for "off"; ``off: null`` sends no switch."""
    with FakeLLMServer() as server:
        ctx = {"messages": [user("hi")]}
        off = SimpleStreamOptions(api_key="k", reasoning="off")
        named = server.model(API, reasoning=True, thinkingLevelMap={"off": "minimal"})
        always = server.model(
            API, reasoning=True, thinkingLevelMap={"off": None}, compat={"thinkingFormat": "deepseek"}
        )
        router = server.model(
            API, reasoning=True, thinkingLevelMap={"off": None}, compat={"thinkingFormat": "openrouter"}
        )
        first, second, third = [
            (await bodies(server, model, ctx, off, simple=True))[0] for model in (named, always, router)
        ]
    assert first["reasoning_effort"] == "minimal"
    assert "thinking" not in second and "reasoning_effort" not in second
    assert "reasoning" not in third


def test_more_vendors_are_detected_as_pi_detects_them() -> None:
    base = {"api": API, "id": "m", "reasoning": True}
    cases = {
        "https://api.moonshot.ai/v1": ("max_tokens", False, False),
        "https://api.together.xyz/v1": ("max_tokens", False, False),
        "https://integrate.api.nvidia.com/v1": ("max_tokens", False, False),
        "https://api.cerebras.ai/v1": ("max_completion_tokens", False, True),
    }
    for url, (field, store, effort) in cases.items():
        compat = detect_compat({**base, "provider": "custom", "baseUrl": url})  # type: ignore[typeddict-item]
        assert (compat["maxTokensField"], compat["supportsStore"], compat["supportsReasoningEffort"]) == (
            field,
            store,
            effort,
        ), url
    together = detect_compat({**base, "provider": "together", "baseUrl": "https://x"})  # type: ignore[typeddict-item]
    assert together["thinkingFormat"] == "together"
    deepseek = detect_compat({**base, "provider": "deepseek", "baseUrl": "https://x"})  # type: ignore[typeddict-item]
    assert deepseek["requiresReasoningContentOnAssistantMessages"] is True
    router = detect_compat({**base, "id": "openai/gpt-5", "provider": "openrouter", "baseUrl": "https://x"})  # type: ignore[typeddict-item]
    assert router["supportsDeveloperRole"] and router["sendSessionAffinityHeaders"]


async def test_openrouter_sessions_go_in_x_session_id() -> None:
    with FakeLLMServer() as server:
        model = server.model(API, provider="openrouter")
        await one_body(server, model, session_id="sess-1")
        headers = server.requests[0].headers
    assert headers["x-session-id"] == "sess-1"
    assert "session_id" not in headers and "x-session-affinity" not in headers


async def test_anthropic_markers_reach_a_final_tool_result() -> None:
    call = {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a"}}
    history = [
        user("read a"),
        assistant([call], api=API, provider="fake", model="fake-model", stop="toolUse"),
        tool_result("call_1", "read", [{"type": "text", "text": "body of a"}]),
    ]
    with FakeLLMServer() as server:
        model = server.model(API, compat={"cacheControlFormat": "anthropic"})
        body = await one_body(server, model, {"messages": history, "tools": [READ_TOOL]})
    last = body["messages"][-1]
    assert last["role"] == "tool"
    assert last["content"] == [{"type": "text", "text": "body of a", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"][0]["content"] == "read a"  # only the last conversation message is marked
