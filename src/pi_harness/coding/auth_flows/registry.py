"""Which providers can sign in here, with which flow, and which are refused.

Only flows a provider documents for third-party applications are offered:

* ``openrouter``: OpenRouter's PKCE flow, which hands out a user-controlled API key.
* any provider for which the user registered an OAuth client of their own, declared through
  ``PI_OAUTH_<PROVIDER>_*`` environment variables (``<PROVIDER>`` upper-cased, ``-`` as ``_``):
  ``CLIENT_ID`` and ``TOKEN_URL``, plus ``DEVICE_URL`` (RFC 8628 device flow) and optionally
  ``SCOPE``. Refreshing uses the same ``TOKEN_URL``.

Every endpoint can be overridden from the environment, which is also how the tests point the
flows at ``pi_harness.testing.fake_oauth``.

Subscription plans of other vendors' own command-line tools are signed in with those tools'
client identities, outside what the vendors authorize third parties to do: they are refused,
with the reason in one line (``refusal``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

OPENROUTER_AUTHORIZE_URL = "https://openrouter.ai/auth"
OPENROUTER_KEYS_URL = "https://openrouter.ai/api/v1/auth/keys"

FlowKind = Literal["openrouter-pkce", "device-code"]


@dataclass(frozen=True)
class FlowSpec:
    provider: str
    kind: FlowKind
    label: str
    authorize_url: str = ""
    token_url: str = ""
    device_url: str = ""
    client_id: str = ""
    scope: str = ""


# provider -> what its sign-in would need; the refusal line is built from it.
_REFUSED: dict[str, str] = {
    "anthropic": "Claude Pro/Max sign-in uses Claude Code's own OAuth client",
    "openai": "ChatGPT subscription sign-in uses OpenAI's own Codex client",
    "openai-codex": "ChatGPT Plus/Pro (Codex) sign-in uses the Codex CLI's own OAuth client",
    "github-copilot": "Copilot sign-in uses the VS Code Copilot extension's own OAuth client",
    "google-gemini-cli": "Gemini CLI sign-in uses the Gemini CLI's own OAuth client",
    "google-antigravity": "Antigravity sign-in uses Antigravity's own OAuth client",
    "kimi-coding": "Kimi Code subscription sign-in uses the Kimi Code CLI's own OAuth client",
    "meta": "Meta (Muse) subscription sign-in uses the Muse Code CLI's own OAuth client",
    "xai": "SuperGrok / X Premium sign-in uses the Grok CLI's own OAuth client",
    "radius": "Radius sign-in uses Pi's own gateway OAuth client",
}


def refusal(provider: str) -> str | None:
    """The one-line reason ``provider`` has no sign-in here, or ``None``."""
    reason = _REFUSED.get(provider)
    if reason is None:
        return None
    return (
        f"{provider}: {reason}, which the vendor does not authorize other applications to use; "
        "sign-in is not offered. Use an API key instead (/login stores one)."
    )


def refused_providers() -> list[str]:
    return sorted(_REFUSED)


def _env_name(provider: str, field: str) -> str:
    return f"PI_OAUTH_{provider.upper().replace('-', '_').replace('.', '_')}_{field}"


def _env(provider: str, field: str, env: Mapping[str, str]) -> str:
    return env.get(_env_name(provider, field), "").strip()


def flow_for(provider: str, env: Mapping[str, str] | None = None) -> FlowSpec | None:
    """The sign-in flow of ``provider``, or ``None`` if it has none (refused ones included)."""
    values = os.environ if env is None else env
    if provider == "openrouter":
        return FlowSpec(
            provider,
            "openrouter-pkce",
            "Sign in with OpenRouter (browser)",
            authorize_url=_env(provider, "AUTHORIZE_URL", values) or OPENROUTER_AUTHORIZE_URL,
            token_url=_env(provider, "KEYS_URL", values) or OPENROUTER_KEYS_URL,
        )
    client_id = _env(provider, "CLIENT_ID", values)
    token_url = _env(provider, "TOKEN_URL", values)
    device_url = _env(provider, "DEVICE_URL", values)
    if provider in _REFUSED or not (client_id and token_url and device_url):
        return None
    return FlowSpec(
        provider,
        "device-code",
        f"Sign in to {provider} (device code)",
        token_url=token_url,
        device_url=device_url,
        client_id=client_id,
        scope=_env(provider, "SCOPE", values),
    )


def callback_host(env: Mapping[str, str] | None = None) -> str:
    """Where the loopback callback server listens (``PI_OAUTH_CALLBACK_HOST``, as in Pi)."""
    values = os.environ if env is None else env
    return values.get("PI_OAUTH_CALLBACK_HOST", "").strip() or "127.0.0.1"
