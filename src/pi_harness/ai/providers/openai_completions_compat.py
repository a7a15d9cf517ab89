"""Compatibility flags of OpenAI-compatible servers.

Every server that speaks Chat Completions deviates a little: some reject ``store`` or the
``developer`` role, some want ``max_tokens`` instead of ``max_completion_tokens``, some switch
thinking on with their own field. ``resolve_compat(model)`` auto-detects the flags from the
model's ``provider`` and ``baseUrl`` and lays the model's own (possibly partial) ``compat`` object
over them: a field the model sets wins, every other field keeps its detected value.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict, cast

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
    cacheControlFormat: NotRequired[Literal["anthropic"]]


# Hosted services known to reject ``store`` and the ``developer`` role.
_NON_STANDARD_PROVIDERS = frozenset({"cerebras", "xai", "zai", "opencode", "opencode-go"})
_NON_STANDARD_URL_PARTS = ("cerebras.ai", "api.x.ai", "chutes.ai", "deepseek.com", "api.z.ai", "opencode.ai")

# Proposal (not in Pi): local inference servers configured by provider id. Their chat templates
# know only the classic roles, and they document ``max_tokens`` as the output cap.
LOCAL_SERVER_PROVIDERS = frozenset({"llamacpp", "llama.cpp", "llama-cpp", "ollama", "lmstudio", "lm-studio", "vllm"})

_GROQ_QWEN3_EFFORTS = {level: "default" for level in ("minimal", "low", "medium", "high", "xhigh")}


def detect_compat(model: Model) -> OpenAICompletionsCompat:
    """The flags implied by ``provider`` and ``baseUrl`` alone (the model's ``compat`` ignored)."""
    provider = model.get("provider", "")
    base_url = model.get("baseUrl", "")
    is_zai = provider == "zai" or "api.z.ai" in base_url
    is_xai = provider == "xai" or "api.x.ai" in base_url
    is_groq = provider == "groq" or "groq.com" in base_url
    is_local = provider.lower() in LOCAL_SERVER_PROVIDERS
    non_standard = (
        provider in _NON_STANDARD_PROVIDERS or any(part in base_url for part in _NON_STANDARD_URL_PARTS) or is_local
    )
    use_max_tokens = "chutes.ai" in base_url or is_local
    return {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": not non_standard,
        "supportsReasoningEffort": not is_xai and not is_zai,
        "reasoningEffortMap": dict(_GROQ_QWEN3_EFFORTS) if is_groq and model.get("id") == "qwen/qwen3-32b" else {},
        "supportsUsageInStreaming": True,
        "maxTokensField": "max_tokens" if use_max_tokens else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "thinkingFormat": "zai" if is_zai else "openai",
        "openRouterRouting": {},
        "vercelGatewayRouting": {},
        # Speaking Chat Completions does not mean taking ``strict``: models.json turns it on.
        "supportsStrictMode": False,
        "requiresReasoningContentOnAssistantMessages": False,
        "zaiToolStream": False,
        "sendSessionAffinityHeaders": False,
    }


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
