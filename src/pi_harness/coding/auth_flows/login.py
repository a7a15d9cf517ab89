"""Sign in to a provider and store the credential; used by ``pi auth login`` and ``/login``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.coding.auth_flows import device_code, openrouter_pkce
from pi_harness.coding.auth_flows.errors import LoginError
from pi_harness.coding.auth_flows.registry import flow_for, refusal
from pi_harness.coding.auth_flows.ui import LoginUI

if TYPE_CHECKING:
    from pi_harness.coding.config.auth import AuthStorage


def can_sign_in(provider: str) -> bool:
    return flow_for(provider) is not None


async def sign_in(provider: str, ui: LoginUI, auth: AuthStorage) -> str:
    """Run the provider's flow and store the result in auth.json; the success line.
    Raises ``LoginError`` (refused providers, no flow, a failed flow)."""
    refused = refusal(provider)
    if refused is not None:
        raise LoginError(refused)
    spec = flow_for(provider)
    if spec is None:
        raise LoginError(
            f"{provider} has no sign-in flow here; store an API key with /login or its environment variable."
        )
    if spec.kind == "openrouter-pkce":
        credential = await openrouter_pkce.login(spec, ui)
    else:
        credential = await device_code.login(spec, ui)
    auth.set(provider, credential)
    where = auth.path if auth.path is not None else "memory"
    return f"Signed in to {provider}; the credential is stored in {where}"
