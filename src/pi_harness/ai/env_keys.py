"""API keys from the environment: one table of provider id -> environment variables.

The table is data so that new providers only add a row. ``AUTHENTICATED`` is a sentinel meaning
"credentials exist, the provider resolves them itself"; it is never sent as a key.
"""

from __future__ import annotations

import os
from pathlib import Path

AUTHENTICATED = "<authenticated>"

# provider id -> env vars, first non-empty wins
ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "azure-openai-responses": ("AZURE_OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "google": ("GEMINI_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_API_KEY",),
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
        key = os.environ.get("GOOGLE_CLOUD_API_KEY")
        if key:
            return key
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
