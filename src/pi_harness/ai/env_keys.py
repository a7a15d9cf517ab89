"""API keys from the environment: one table of provider id -> environment variables.

The table is data so that new providers only add a row. ``AUTHENTICATED`` is a sentinel meaning
"credentials exist, the provider resolves them itself"; it is never sent as a key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

AUTHENTICATED = "<authenticated>"
# A bearer token for Anthropic (a gateway's, say): the anthropic provider sends it itself.
ANTHROPIC_AUTH_TOKEN = "ANTHROPIC_AUTH_TOKEN"

# provider id -> env vars, first non-empty wins (Pi 1.4's table; tests/ai/test_provider_env_table.py
# checks it against the table of Pi's docs/providers.md kept in tests/fixtures/providers_env.json).
ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "ant-ling": ("ANT_LING_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "kimi-coding": ("KIMI_API_KEY",),
    "meta": ("META_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_API_KEY",),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_CN_API_KEY",),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "typesafe": ("TYPESAFE_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
}

# Settings a provider needs besides its key before it can serve a request; they come from the
# stored credential's ``env`` object in auth.json or from the process environment, and fill the
# ``{NAME}`` placeholders of the provider's base URLs (see ``substitute_base_url``).
PROVIDER_SETTINGS: dict[str, tuple[str, ...]] = {
    "cloudflare-workers-ai": ("CLOUDFLARE_ACCOUNT_ID",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"),
}

# Providers that only authenticate through OAuth never take keys from the environment.
OAUTH_ONLY = frozenset({"openai-codex", "google-gemini-cli", "google-antigravity"})

_AWS_MARKERS = (
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def get_env_api_key(provider: str) -> str | None:
    """The key for ``provider`` from the environment, ``AUTHENTICATED``, or ``None``."""
    if provider in OAUTH_ONLY:
        return None
    if provider == "anthropic" and os.environ.get(ANTHROPIC_AUTH_TOKEN):
        # Sent as ``Authorization: Bearer`` by the provider, never as a key; it wins over the
        # keys below (Pi 1.4.0's order).
        return AUTHENTICATED
    for name in ENV_API_KEYS.get(provider, ()):
        value = os.environ.get(name)
        if value:
            return value
    if provider == "amazon-bedrock":
        if any(os.environ.get(name) for name in _AWS_MARKERS):
            return AUTHENTICATED
        if os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY"):
            return AUTHENTICATED
        return None
    if provider == "google-vertex":
        # Checked on every call: a negative result must not be cached.
        creds = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS") or str(
            Path.home() / ".config" / "gcloud" / "application_default_credentials.json"
        )
        project = os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("GCLOUD_PROJECT")
        if Path(creds).is_file() and project and os.environ.get("GOOGLE_CLOUD_LOCATION"):
            return AUTHENTICATED
    return None


def env_var_names(provider: str) -> tuple[str, ...]:
    """The env vars consulted for ``provider`` (for error messages and ``pi auth check``)."""
    return ENV_API_KEYS.get(provider, ())


def provider_settings(provider: str, overrides: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The values of ``PROVIDER_SETTINGS[provider]`` (``overrides`` first, then the process
    environment); ``None`` when one is missing. Providers without settings get ``{}``."""
    values: dict[str, str] = {}
    for name in PROVIDER_SETTINGS.get(provider, ()):
        value = (overrides or {}).get(name) or os.environ.get(name)
        if not value:
            return None
        values[name] = value
    return values


def substitute_base_url(base_url: str, values: Mapping[str, str]) -> str:
    """``base_url`` with each ``{NAME}`` placeholder of ``values`` replaced; unknown ones stay."""
    for name, value in values.items():
        base_url = base_url.replace("{" + name + "}", value)
    return base_url
