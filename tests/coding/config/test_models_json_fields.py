"""models.json fields Pi 1.4 honours, each shown where it takes effect: the request the fake
server receives over loopback, or the cost and limits of the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_harness.ai import SimpleStreamOptions, stream_simple
from pi_harness.ai.types import Context, Model, ThinkingLevel
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep
from pi_harness.testing.fake_llm.script import RecordedRequest

CONTEXT: Context = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}


def runtime_with(agent_dir: Path, providers: dict[str, Any]) -> ModelRuntime:
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    return ModelRuntime.create(agent_dir)


def model_of(runtime: ModelRuntime, provider: str, model_id: str) -> Model:
    model = runtime.find(provider, model_id)
    assert model is not None, runtime.errors
    return model


async def send(
    runtime: ModelRuntime,
    model: Model,
    server: FakeLLMServer,
    level: ThinkingLevel | None = None,
    **extra: Any,
) -> tuple[RecordedRequest, Any]:
    """One request as the session makes it: the runtime's key, headers and settings."""
    provider = model["provider"]
    options = SimpleStreamOptions(
        api_key=runtime.get_api_key(provider),
        headers=runtime.get_request_headers(model) or None,
        env=runtime.get_request_env(provider),
        reasoning=level,
        **extra,
    )
    before = len(server.requests)
    message = await stream_simple(model, CONTEXT, options).result()
    assert message["stopReason"] == "stop", message.get("errorMessage")
    return server.requests[before], message


def local(server: FakeLLMServer, api: str = "openai-completions", **model: Any) -> dict[str, Any]:
    return {"baseUrl": server.base_url(api), "api": api, "apiKey": "k", "models": [{"id": "m", **model}]}


# --- samplingParams ---------------------------------------------------------------------------


async def test_sampling_params_and_their_per_level_entries_reach_the_body(agent_dir: Path) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(3)]) as server:
        runtime = runtime_with(
            agent_dir,
            {
                "local": local(
                    server,
                    reasoning=True,
                    samplingParams={"temperature": 1.0, "top_p": 0.95},
                    samplingParamsByThinkingLevel={"off": {"temperature": 0.7, "top_p": 0.8}, "high": {"top_k": 20}},
                )
            },
        )
        model = model_of(runtime, "local", "m")
        off, _ = await send(runtime, model, server, None)
        high, _ = await send(runtime, model, server, "high")
        # The caller's own body fields win over the model's.
        mine, _ = await send(runtime, model, server, "high", extra_body={"top_k": 5})
    assert (off.json["temperature"], off.json["top_p"]) == (0.7, 0.8)
    assert (high.json["temperature"], high.json["top_p"], high.json["top_k"]) == (1.0, 0.95, 20)
    assert mine.json["top_k"] == 5


async def test_sampling_params_are_not_sent_to_other_apis(agent_dir: Path) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        runtime = runtime_with(
            agent_dir, {"claude-like": local(server, "anthropic-messages", samplingParams={"top_k": 7})}
        )
        request, _ = await send(runtime, model_of(runtime, "claude-like", "m"), server)
    assert "top_k" not in request.json


async def test_model_overrides_merge_sampling_params_per_level(agent_dir: Path) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        runtime = runtime_with(
            agent_dir,
            {
                "local": {
                    **local(server, reasoning=True, samplingParamsByThinkingLevel={"low": {"top_k": 1, "top_p": 0.5}}),
                    "modelOverrides": {"m": {"samplingParamsByThinkingLevel": {"low": {"top_k": 2}}}},
                }
            },
        )
        request, _ = await send(runtime, model_of(runtime, "local", "m"), server, "low")
    assert (request.json["top_k"], request.json["top_p"]) == (2, 0.5)


# --- cost tiers, inputLimits, promptCache ----------------------------------------------------


async def test_cost_tiers_price_the_whole_request_at_the_highest_tier_passed(agent_dir: Path) -> None:
    tiers = [
        {"inputTokensAbove": 200_000, "input": 6, "output": 20, "cacheRead": 0, "cacheWrite": 0},
        {"inputTokensAbove": 100_000, "input": 4, "output": 15, "cacheRead": 0, "cacheWrite": 0},
    ]
    small = ScriptedResponse(steps=[TextStep("ok")], usage={"input": 1_000_000 // 10, "output": 1_000_000})
    large = ScriptedResponse(steps=[TextStep("ok")], usage={"input": 250_000, "output": 1_000_000})
    with FakeLLMServer([small, large]) as server:
        cost = {"input": 2, "output": 10, "cacheRead": 0, "cacheWrite": 0, "tiers": tiers}
        runtime = runtime_with(agent_dir, {"local": local(server, cost=cost)})
        model = model_of(runtime, "local", "m")
        _, at_base = await send(runtime, model, server)
        _, at_top = await send(runtime, model, server)
    # 100,000 input tokens is not *above* 100,000: the model's own rates.
    assert at_base["usage"]["cost"]["output"] == pytest.approx(10)
    assert at_top["usage"]["cost"]["input"] == pytest.approx(6 * 0.25)
    assert at_top["usage"]["cost"]["output"] == pytest.approx(20)


def test_input_limits_and_prompt_cache_merge_over_the_builtin_model(agent_dir: Path) -> None:
    runtime = runtime_with(
        agent_dir,
        {
            "anthropic": {
                "modelOverrides": {
                    "claude-sonnet-5-5": {
                        "inputLimits": {"images": {"resize": {"maxWidth": 1568}}},
                        "promptCache": {"short": 240},
                    }
                }
            }
        },
    )
    model = model_of(runtime, "anthropic", "claude-sonnet-5-5")
    limits: Any = model["inputLimits"]
    # The override's field replaces its own value; the catalogue's other limits stay.
    assert limits["images"]["resize"] == {"maxWidth": 1568, "maxHeight": 2000, "maxBytes": 4718592, "jpegQuality": 80}
    assert limits["images"]["maxPerRequest"] == 600 and limits["maxRequestBytes"] == 33554432
    assert model["promptCache"] == {"short": 240, "long": 3600}


# --- compat ----------------------------------------------------------------------------------


async def test_provider_and_model_compat_merge_and_reach_the_wire(agent_dir: Path) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        runtime = runtime_with(
            agent_dir,
            {
                "local": {
                    **local(server, compat={"supportsUsageInStreaming": False, "openRouterRouting": {"order": ["b"]}}),
                    "compat": {"maxTokensField": "max_tokens", "openRouterRouting": {"only": ["a", "b"]}},
                }
            },
        )
        model = model_of(runtime, "local", "m")
        request, _ = await send(runtime, model, server, max_tokens=64)
    assert request.json["max_tokens"] == 64 and "max_completion_tokens" not in request.json
    assert "stream_options" not in request.json
    # Routing objects merge key by key (model over provider).
    assert model["compat"]["openRouterRouting"] == {"only": ["a", "b"], "order": ["b"]}


# --- values: ${VAR} templates, $$, auth.json env ---------------------------------------------


async def test_templates_inside_header_and_key_values(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORG", "acme")
    monkeypatch.setenv("KEY_PART", "s3cret")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        provider = {
            **local(server),
            "apiKey": "sk-${KEY_PART}-$ORG",
            "headers": {"X-Org": "team-${ORG}", "X-Price": "$$5 and $!bang"},
        }
        runtime = runtime_with(agent_dir, {"local": provider})
        request, _ = await send(runtime, model_of(runtime, "local", "m"), server)
    assert request.headers["authorization"] == "Bearer sk-s3cret-acme"
    assert request.headers["x-org"] == "team-acme"
    assert request.headers["x-price"] == "$5 and !bang"


async def test_a_template_naming_an_unset_variable_is_no_value(agent_dir: Path) -> None:
    runtime = runtime_with(
        agent_dir,
        {
            "local": {
                "baseUrl": "http://x",
                "api": "openai-completions",
                "apiKey": "sk-${NOT_SET_ANYWHERE}",
                "models": [{"id": "m"}],
            }
        },
    )
    assert not runtime.has_credentials("local")
    assert runtime.get_api_key("local") is None


async def test_auth_json_env_fills_header_templates_over_the_process_environment(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAM", "from-process")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        runtime = runtime_with(agent_dir, {"local": {**local(server), "headers": {"X-Team": "$TEAM"}}})
        AuthStorage(agent_dir).set("local", {"type": "api_key", "key": "stored-$TEAM", "env": {"TEAM": "stored"}})
        request, _ = await send(runtime, model_of(runtime, "local", "m"), server)
    assert request.headers["x-team"] == "stored"
    assert request.headers["authorization"] == "Bearer stored-stored"


async def test_cloudflare_account_id_from_auth_json_env_fills_the_url(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    monkeypatch.delenv("CLOUDFLARE_API_KEY", raising=False)
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        url = f"{server.url}/client/v4/accounts/{{CLOUDFLARE_ACCOUNT_ID}}/ai/v1"
        runtime = runtime_with(agent_dir, {"cloudflare-workers-ai": {"baseUrl": url}})
        assert not runtime.has_credentials("cloudflare-workers-ai")
        monkeypatch.setenv("CLOUDFLARE_API_KEY", "cf-key")
        # A key alone is not enough: there is no account to send to (Pi lists no model either).
        assert not runtime.has_credentials("cloudflare-workers-ai")
        AuthStorage(agent_dir).set(
            "cloudflare-workers-ai", {"type": "api_key", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc-9"}}
        )
        assert runtime.has_credentials("cloudflare-workers-ai")
        model = next(m for m in runtime.get_available() if m["provider"] == "cloudflare-workers-ai")
        assert "{CLOUDFLARE_ACCOUNT_ID}" in model["baseUrl"]  # filled per request, not in the list
        request, _ = await send(runtime, model, server)
    assert request.path == "/client/v4/accounts/acc-9/ai/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer cf-key"


# --- credential priority, unknown fields -----------------------------------------------------


async def test_models_json_key_wins_over_the_environment_on_the_wire(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(2)]) as server:
        runtime = runtime_with(
            agent_dir, {"openai": {"baseUrl": server.base_url("openai-responses"), "apiKey": "from-models-json"}}
        )
        model = model_of(runtime, "openai", "gpt-5")
        first, _ = await send(runtime, model, server)
        AuthStorage(agent_dir).set_api_key("openai", "from-auth-json")
        second, _ = await send(runtime, model, server)
    assert first.headers["authorization"] == "Bearer from-models-json"
    assert second.headers["authorization"] == "Bearer from-auth-json"


def test_unknown_fields_are_reported_and_ignored(agent_dir: Path) -> None:
    provider = {
        "baseUrl": "http://x",
        "api": "openai-completions",
        "apiKey": "k",
        "bogus": 1,
        "models": [
            {"id": "m", "contextWindw": 5, "cost": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "x": 0}}
        ],
    }
    runtime = runtime_with(agent_dir, {"local": provider})
    assert runtime.errors == []
    assert [w.split(" (")[0] for w in runtime.warnings] == [
        "models.json: unknown field providers.local.bogus ignored",
        "models.json: unknown field providers.local.models.0.contextWindw ignored",
        "models.json: unknown field providers.local.models.0.cost.x ignored",
    ]
    model = model_of(runtime, "local", "m")
    assert model["contextWindow"] == 128_000 and "bogus" not in model


def test_wrong_types_of_new_fields_reject_the_file(agent_dir: Path) -> None:
    provider = {
        "baseUrl": "http://x",
        "api": "openai-completions",
        "models": [{"id": "m", "samplingParams": [1], "promptCache": {"short": "long"}, "cost": {"tiers": [{}]}}],
    }
    runtime = runtime_with(agent_dir, {"local": provider})
    assert runtime.find("local", "m") is None
    assert runtime.errors[0].splitlines()[:4] == [
        "Invalid models.json schema:",
        "  - providers.local.models.0.samplingParams: must be object",
        "  - providers.local.models.0.promptCache.short: must be number",
        "  - providers.local.models.0.cost.tiers.0.inputTokensAbove: must have required properties inputTokensAbove",
    ]


async def test_input_limits_resize_profile_fits_images_the_read_tool_returns(agent_dir: Path, tmp_path: Path) -> None:
    import base64
    import io

    from PIL import Image

    from pi_harness.ai.models import image_resize
    from pi_harness.coding.tools import ToolOptions, create_read_tool

    buffer = io.BytesIO()
    Image.new("RGB", (1200, 600), (10, 120, 200)).save(buffer, format="PNG")
    (tmp_path / "wide.png").write_bytes(buffer.getvalue())
    runtime = runtime_with(
        agent_dir,
        {
            "local": {
                "baseUrl": "http://x",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [
                    {
                        "id": "small-vision",
                        "input": ["text", "image"],
                        "inputLimits": {"images": {"resize": {"maxWidth": 400}}},
                    },
                    {"id": "plain", "input": ["text", "image"]},
                ],
            }
        },
    )
    sizes = []
    for model_id in ("small-vision", "plain"):
        model = model_of(runtime, "local", model_id)
        tool = create_read_tool(str(tmp_path), ToolOptions(image_resize=lambda m=model: image_resize(m)))
        result = await tool.execute("c", {"path": "wide.png"}, None, None)
        image: Any = result["content"][1]
        with Image.open(io.BytesIO(base64.b64decode(image["data"]))) as decoded:
            sizes.append(decoded.size)
    assert sizes == [(400, 200), (1200, 600)]


# --- compat flags of Pi 1.4's thinking dialects ------------------------------------------------


async def test_catalogue_dialects_baseten_and_ant_ling(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASETEN_API_KEY", "b")
    monkeypatch.setenv("ANT_LING_API_KEY", "a")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(3)]) as server:
        runtime = runtime_with(
            agent_dir, {"baseten": {"baseUrl": server.base_url()}, "ant-ling": {"baseUrl": server.base_url()}}
        )
        glm = model_of(runtime, "baseten", "zai-org/GLM-5.2")
        high, _ = await send(runtime, glm, server, "high")
        off, _ = await send(runtime, glm, server, None)
        ring, _ = await send(runtime, model_of(runtime, "ant-ling", "Ring-2.6-1T"), server, "high")
    assert (high.json["chat_template_args"], high.json["reasoning_effort"]) == ({"enable_thinking": True}, "high")
    # Thinking off is the level map's "off" value, as Pi sends it.
    assert (off.json["chat_template_args"], off.json["reasoning_effort"]) == ({"enable_thinking": False}, "none")
    assert ring.json["reasoning"] == {"effort": "high"} and "reasoning_effort" not in ring.json


async def test_chat_template_kwargs_budget_field_and_vllm_priority(agent_dir: Path) -> None:
    compat = {
        "thinkingFormat": "chat-template",
        "chatTemplateKwargs": {
            "enable_thinking": {"$var": "thinking.enabled"},
            "budget": {"$var": "thinking.budget"},
            "effort": {"$var": "thinking.effort", "omitWhenOff": True},
            "fixed": 1,
        },
        "thinkingTokenBudgetField": "thinking_budget",
        "vllmPriority": -1,
    }
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(2)]) as server:
        runtime = runtime_with(agent_dir, {"vllm-box": local(server, reasoning=True, compat=compat)})
        model = model_of(runtime, "vllm-box", "m")
        medium, _ = await send(runtime, model, server, "medium", max_tokens=4096)
        off, _ = await send(runtime, model, server, None, max_tokens=4096)
    # 8192 for "medium", capped so 1024 tokens of the 4096 remain for the answer.
    kwargs = {"enable_thinking": True, "budget": 3072, "effort": "medium", "fixed": 1}
    assert medium.json["chat_template_kwargs"] == kwargs
    assert (medium.json["thinking_budget"], medium.json["priority"]) == (3072, -1)
    assert off.json["chat_template_kwargs"] == {"enable_thinking": False, "fixed": 1}
    assert "thinking_budget" not in off.json and "reasoning_effort" not in off.json


async def test_thinking_budgets_set_the_budget_field(agent_dir: Path) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")])]) as server:
        compat = {"thinkingTokenBudgetField": "thinking_budget_tokens"}
        runtime = runtime_with(agent_dir, {"llama": local(server, reasoning=True, compat=compat)})
        request, _ = await send(runtime, model_of(runtime, "llama", "m"), server, "low", thinking_budgets={"low": 500})
    assert request.json["thinking_budget_tokens"] == 500


async def test_string_thinking_format(agent_dir: Path) -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("ok")]) for _ in range(2)]) as server:
        compat = {"thinkingFormat": "string-thinking"}
        runtime = runtime_with(agent_dir, {"s": local(server, reasoning=True, compat=compat)})
        model = model_of(runtime, "s", "m")
        high, _ = await send(runtime, model, server, "high")
        off, _ = await send(runtime, model, server, None)
    assert (high.json["thinking"], off.json["thinking"]) == ("high", "none")
