"""``warnings.anthropicExtraUsage``: warn once per run when an ``anthropic`` model would be used
with Claude subscription credentials, which bill a third-party harness's requests as paid extra
usage rather than against the plan's limits.

Subscription credentials are an ``oauth`` entry for ``anthropic`` in ``auth.json``, or an
``anthropic`` key that is a subscription token (``sk-ant-oat…``, e.g. ``ANTHROPIC_OAUTH_TOKEN``).
As in Pi, the check runs when the interactive session starts and whenever the model changes (and
after ``/login``); ``"warnings": {"anthropicExtraUsage": false}`` turns it off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext
    from pi_harness.coding.model_runtime import ModelRuntime

PROVIDER = "anthropic"
SUBSCRIPTION_KEY_PREFIX = "sk-ant-oat"
EXTRA_USAGE_WARNING = (
    "Anthropic is signed in with a Claude subscription. Its requests from a third-party harness such "
    "as this one are billed per token as extra usage, not counted against your plan's limits; "
    "manage extra usage at https://claude.ai/settings/usage. /settings → Warnings turns this off."
)


def uses_subscription_auth(runtime: ModelRuntime) -> bool:
    """Whether ``anthropic`` requests would carry Claude subscription credentials."""
    entry = runtime.auth.get(PROVIDER)
    if entry is not None and entry.get("type") == "oauth":
        return True
    key = runtime.get_api_key(PROVIDER)
    return isinstance(key, str) and key.startswith(SUBSCRIPTION_KEY_PREFIX)


class ExtraUsageWarning:
    """Shows the warning at most once for the mode's lifetime."""

    def __init__(self, mode: ModeContext) -> None:
        self.mode = mode
        self.shown = False

    async def check(self, model: Mapping[str, object] | None = None) -> None:
        """Warn if ``model`` (default: the session's) is an Anthropic model on subscription auth."""
        session = self.mode.session
        if self.shown or not session.settings.values.warnings.anthropic_extra_usage:
            return
        model = session.model if model is None else model
        if model is None or model.get("provider") != PROVIDER:
            return
        try:
            found = await asyncio.to_thread(uses_subscription_auth, session.model_runtime)
        except Exception:  # a warning only: a credential that cannot be read says nothing here
            return
        if found and not self.shown:
            self.shown = True
            self.mode.shell.notice("warning", EXTRA_USAGE_WARNING)
