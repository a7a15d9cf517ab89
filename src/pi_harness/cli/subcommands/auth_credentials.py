"""Which credential requests to a provider would use, and what to tell a user who has none
(``pi auth``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.coding.model_runtime import ModelRuntime


@dataclass(frozen=True)
class Credential:
    value: str | None  # None: nothing usable; "": usable without a key (ambient or keyless)
    source: str | None


def resolve_credential(runtime: ModelRuntime, provider: str, *, min_validity_ms: int = 0) -> Credential:
    """The credential requests to ``provider`` would use, and where it comes from; a stored
    sign-in that expires within ``min_validity_ms`` is refreshed first."""
    from pi_harness.ai.env_keys import AUTHENTICATED, env_var_names, get_env_api_key
    from pi_harness.coding.config.models_json import ModelsJsonError, load_models_json
    from pi_harness.coding.config.values import resolve_config_value

    entry = runtime.auth.get(provider)
    if entry is not None:
        from pi_harness.coding.auth_flows import fresh_api_key

        stored = fresh_api_key(runtime.auth, provider, min_validity_ms=min_validity_ms)
        if stored:
            return Credential(stored, "auth.json (oauth)" if entry.get("type") == "oauth" else "auth.json")
    configured: str | None = None
    if runtime.models_json_path is not None:
        try:
            configs = load_models_json(runtime.models_json_path)
        except ModelsJsonError:
            configs = []
        configured = next((c.api_key for c in configs if c.name == provider and c.api_key), None)
    # models.json's apiKey comes before the environment, as in Pi 1.4.
    value = resolve_config_value(configured) if configured and entry is None else None
    if value:
        return Credential(value, "models.json")
    env = get_env_api_key(provider)
    if env:
        if env == AUTHENTICATED:
            return Credential("", "environment (ambient credentials)")
        name = next((n for n in env_var_names(provider) if os.environ.get(n)), None)
        return Credential(env, f"environment ({name})" if name else "environment")
    if runtime.get_api_key(provider) == "":
        return Credential("", "none required")
    return Credential(None, None)


def known_provider(runtime: ModelRuntime, provider: str) -> bool:
    from pi_harness.ai.env_keys import ENV_API_KEYS

    return provider in runtime.get_providers() or provider in ENV_API_KEYS or runtime.auth.has(provider)


def not_ready_message(runtime: ModelRuntime, provider: str) -> str:
    from pi_harness.ai.env_keys import env_var_names

    entry = runtime.auth.get(provider)
    auth_path = runtime.auth.path
    if entry is not None:
        kind = "OAuth token has expired" if entry.get("type") == "oauth" else "API key did not resolve to a value"
        return f"No usable credentials for {provider}: the auth.json {kind}."
    hints = [f"set {' or '.join(env_var_names(provider))}"] if env_var_names(provider) else []
    hints.append(f"add a key to {auth_path}" if auth_path is not None else "add a key to auth.json")
    hints.append("run /login in interactive mode")
    return f"No credentials for {provider}. To fix: {', '.join(hints)}."


def missing_settings(runtime: ModelRuntime, provider: str) -> list[str]:
    """Settings the provider needs besides a key (Cloudflare's ids) that are set nowhere."""
    from pi_harness.ai.env_keys import PROVIDER_SETTINGS

    stored = runtime.auth.get_env(provider)
    return [name for name in PROVIDER_SETTINGS.get(provider, ()) if not (stored.get(name) or os.environ.get(name))]

