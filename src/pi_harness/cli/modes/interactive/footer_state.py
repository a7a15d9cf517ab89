"""What the footer needs to know beyond the session's counts: how many providers are in play
(the model's provider is named only when there are several) and whether the model is paid for by
a subscription plan (its cost then reads ``(sub)``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pi_harness.tui.components.footer import FooterData, cache_hit_rate

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession

# Providers whose OAuth sign-in is a subscription plan (Pi's ``isSubscription``); Kimi Coding's
# API keys come with a subscription too.
SUBSCRIPTION_OAUTH_PROVIDERS = frozenset(
    {"anthropic", "openai", "openai-codex", "github-copilot", "kimi-coding", "meta", "xai"}
)


def provider_count(session: AgentSession) -> int:
    """Distinct providers among the scoped models, or among every selectable model without a scope."""
    scoped = [model for model, _level in session.models.scoped]
    models = scoped or session.model_runtime.get_available()
    return len({model.get("provider") for model in models})


def using_subscription(session: AgentSession) -> bool:
    model = session.model
    if model is None:
        return False
    provider = str(model.get("provider"))
    if provider == "kimi-coding":
        return True
    credential = session.model_runtime.auth.get(provider)
    return (
        provider in SUBSCRIPTION_OAUTH_PROVIDERS
        and isinstance(credential, Mapping)
        and credential.get("type") == "oauth"
    )


def fill_footer_extras(data: FooterData, session: AgentSession) -> None:
    data.provider_count = provider_count(session)
    data.subscription = using_subscription(session)
    # The latest response's usage, kept by the store (a walk of every entry would parse them all).
    usage = session.session_manager.usage_summary().last_assistant_usage
    data.cache_hit_rate = cache_hit_rate([{"role": "assistant", "usage": usage}] if usage is not None else [])
