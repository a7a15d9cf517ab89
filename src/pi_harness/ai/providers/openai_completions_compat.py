"""Compatibility flags of OpenAI-compatible servers.

Every server that speaks Chat Completions deviates a little: some reject ``store`` or the
``developer`` role, some want ``max_tokens`` instead of ``max_completion_tokens``, some switch
thinking on with their own field. ``resolve_compat(model)`` auto-detects the flags from the
model's ``provider`` and ``baseUrl`` and lays the model's own (possibly partial) ``compat`` object
over them: a field the model sets wins, every other field keeps its detected value.
"""

from __future__ import annotations

import functools
from typing import Literal, NotRequired, TypeAlias, TypedDict, cast
from urllib.parse import urlsplit

from pi_harness.ai.types import Model

ThinkingFormat: TypeAlias = Literal["openai", "openrouter", "deepseek", "together", "zai", "qwen", "qwen-chat-template"]
MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]


class Routing(TypedDict, total=False):
    """Provider routing of a gateway: try only these upstreams, or these first, in order."""

    only: list[str]
    order: list[str]


class OpenAICompletionsCompat(TypedDict):
    """The resolved flags, camelCase as in models.json ``compat`` objects."""

    supportsStore: bool
    supportsDeveloperRole: bool
    supportsReasoningEffort: bool
    reasoningEffortMap: dict[str, str]
    supportsUsageInStreaming: bool
    maxTokensField: MaxTokensField
    requiresToolResultName: bool
    requiresAssistantAfterToolResult: bool
    requiresThinkingAsText: bool
    thinkingFormat: ThinkingFormat
    openRouterRouting: Routing
    vercelGatewayRouting: Routing
    supportsStrictMode: bool
    # Flags of later Pi catalogues (models.json files written for Pi 0.7x carry them).
    requiresReasoningContentOnAssistantMessages: bool
    zaiToolStream: bool
    sendSessionAffinityHeaders: bool
    # Which session headers go with it: ``openrouter`` (``x-session-id``) or ``openai``.
    sessionAffinityFormat: str
    cacheControlFormat: NotRequired[Literal["anthropic"]]
    # Whether the server keeps caches long (``prompt_cache_retention``, one-hour markers).
    supportsLongCacheRetention: NotRequired[bool]
    # Proposal (not in Pi): read a reply that is nothing but a tool call written as text as that
    # tool call (``ai/text_tool_calls.py``). On for local servers, off for hosted APIs.
    recoverTextToolCalls: bool


# Proposal (not in Pi): local inference servers configured by provider id. Their chat templates
# know only the classic roles, and they document ``max_tokens`` as the output cap.
LOCAL_SERVER_PROVIDERS = frozenset({"llamacpp", "llama.cpp", "llama-cpp", "ollama", "lmstudio", "lm-studio", "vllm"})

_GROQ_QWEN3_EFFORTS = {level: "default" for level in ("minimal", "low", "medium", "high", "xhigh")}


def _is(provider: str, base_url: str, names: tuple[str, ...], hosts: tuple[str, ...]) -> bool:
    return provider in names or any(host in base_url for host in hosts)


def _is_loopback_url(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def detect_compat(model: Model) -> OpenAICompletionsCompat:
    """The flags implied by ``provider`` and ``baseUrl`` alone (the model's ``compat`` ignored),
    by the same vendor list as Pi 1.4.0."""
    detected = _detected(model.get("provider", ""), model.get("baseUrl", ""), model.get("id", ""))
    # A copy the caller owns, nested maps included (every request asks again).
    return cast(OpenAICompletionsCompat, {key: dict(v) if isinstance(v, dict) else v for key, v in detected.items()})


@functools.lru_cache(maxsize=64)
def _detected(provider: str, base_url: str, model_id: str) -> OpenAICompletionsCompat:
    is_zai = _is(provider, base_url, ("zai", "zai-coding-cn"), ("api.z.ai", "open.bigmodel.cn"))
    is_together = _is(provider, base_url, ("together",), ("api.together.ai", "api.together.xyz"))
    is_moonshot = _is(provider, base_url, ("moonshotai", "moonshotai-cn"), ("api.moonshot.",))
    is_openrouter = _is(provider, base_url, ("openrouter",), ("openrouter.ai",))
    is_cf_workers = _is(provider, base_url, ("cloudflare-workers-ai",), ("api.cloudflare.com",))
    is_cf_gateway = _is(provider, base_url, ("cloudflare-ai-gateway",), ("gateway.ai.cloudflare.com",))
    is_nvidia = _is(provider, base_url, ("nvidia",), ("integrate.api.nvidia.com",))
    is_ant_ling = _is(provider, base_url, ("ant-ling",), ("api.ant-ling.com",))
    is_cerebras = _is(provider, base_url, ("cerebras",), ("cerebras.ai",))
    is_deepseek = provider == "deepseek" or "deepseek.com" in base_url.lower()
    is_xai = _is(provider, base_url, ("xai",), ("api.x.ai",))
    is_chutes = "chutes.ai" in base_url
    is_opencode = _is(provider, base_url, ("opencode",), ("opencode.ai",))
    is_groq = provider == "groq" or "groq.com" in base_url
    is_local = provider.lower() in LOCAL_SERVER_PROVIDERS
    on_this_machine = is_local or _is_loopback_url(base_url)
    non_standard = (
        is_nvidia
        or is_cerebras
        or is_xai
        or is_together
        or is_chutes
        or is_deepseek
        or is_zai
        or is_moonshot
        or is_opencode
        or is_cf_workers
        or is_cf_gateway
        or is_ant_ling
        or is_local
    )
    use_max_tokens = (
        is_chutes or is_deepseek or is_moonshot or is_cf_gateway or is_together or is_nvidia or is_ant_ling or is_zai
    ) or is_local
    developer_role_model = is_openrouter and model_id.startswith(("anthropic/", "openai/"))
    thinking_format: ThinkingFormat = "openai"
    if is_deepseek:
        thinking_format = "deepseek"
    elif is_zai:
        thinking_format = "zai"
    elif is_together:
        thinking_format = "together"
    elif is_openrouter:
        thinking_format = "openrouter"
    compat: OpenAICompletionsCompat = {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": developer_role_model or (not non_standard and not is_openrouter),
        "supportsReasoningEffort": not (
            is_xai or is_zai or is_moonshot or is_together or is_cf_gateway or is_nvidia or is_ant_ling
        ),
        "reasoningEffortMap": dict(_GROQ_QWEN3_EFFORTS) if is_groq and model_id == "qwen/qwen3-32b" else {},
        "supportsUsageInStreaming": True,
        "maxTokensField": "max_tokens" if use_max_tokens else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "thinkingFormat": thinking_format,
        "openRouterRouting": {},
        "vercelGatewayRouting": {},
        # Speaking Chat Completions does not mean taking ``strict``: models.json turns it on.
        "supportsStrictMode": False,
        "requiresReasoningContentOnAssistantMessages": is_deepseek,
        "zaiToolStream": False,
        "sendSessionAffinityHeaders": is_openrouter,
        "sessionAffinityFormat": "openrouter" if is_openrouter else "openai",
        "recoverTextToolCalls": on_this_machine,
    }
    if provider == "openrouter" and model_id.startswith("anthropic/"):
        compat["cacheControlFormat"] = "anthropic"
    if is_together or is_cf_workers or is_cf_gateway or is_nvidia or is_ant_ling:
        compat["supportsLongCacheRetention"] = False
    return compat


def resolve_compat(model: Model) -> OpenAICompletionsCompat:
    """Detected flags with the model's ``compat`` laid over them (``null`` values are ignored)."""
    detected = detect_compat(model)
    explicit = model.get("compat")
    if not explicit:
        return detected
    merged: dict[str, object] = dict(detected)
    merged.update({key: value for key, value in explicit.items() if value is not None})
    # models.json values are taken as the flags they name, unchecked, as Pi does.
    return cast(OpenAICompletionsCompat, merged)
