"""Refreshing a signed-in credential before a request uses it.

An expired OAuth credential whose provider has a refresh grant (a device-code sign-in) is
refreshed inside ``AuthStorage.modify``, i.e. under the ``auth.json.lock`` that Pi takes too: a
second process waiting on the lock re-reads the entry, finds it fresh and uses it, so a rotated
refresh token is spent once. A failed refresh leaves the entry as it was and resolves no key (the
request then reports missing credentials; ``pi auth check`` names the expired token).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_harness.coding.auth_flows.credentials import from_token_response, is_fresh, now_ms
from pi_harness.coding.auth_flows.errors import LoginError

if TYPE_CHECKING:
    from pi_harness.coding.auth_flows.registry import FlowSpec
    from pi_harness.coding.config.auth import AuthStorage


def refresh_grant(spec: FlowSpec, refresh_token: str) -> dict[str, Any]:
    """One ``grant_type=refresh_token`` request; the new credential. Raises ``LoginError``."""
    from pi_harness.coding.auth_flows.oauth_http import post_form_sync

    status, body = post_form_sync(
        spec.token_url,
        {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": spec.client_id},
        what="Token refresh",
    )
    credential = from_token_response(body, refresh_token) if 200 <= status < 300 else None
    if credential is None:
        detail = body.get("error_description") or body.get("error") or f"HTTP {status}"
        raise LoginError(f"Token refresh failed: {detail}")
    return credential


def fresh_api_key(
    auth: AuthStorage, provider: str, env: Mapping[str, str] | None = None, *, min_validity_ms: int = 0
) -> str | None:
    """What ``auth.get_api_key`` returns, after refreshing an expired, refreshable credential (or
    one that expires within ``min_validity_ms``, for a caller that hands the token on)."""
    entry = auth.get(provider)
    deadline = now_ms() + min_validity_ms
    if entry is None or entry.get("type") != "oauth" or is_fresh(entry, deadline):
        return auth.get_api_key(provider)
    # Only an expired sign-in gets this far: the flow registry loads for it alone.
    from pi_harness.coding.auth_flows.registry import flow_for

    spec = flow_for(provider, env)
    if spec is None or spec.kind != "device-code" or not entry.get("refresh"):
        return auth.get_api_key(provider) if is_fresh(entry) else None  # valid, if not for long

    def change(current: dict[str, Any] | None) -> dict[str, Any] | None:
        if current is None or current.get("type") != "oauth" or is_fresh(current, deadline):
            return None  # signed out meanwhile, or another process refreshed it
        refresh = current.get("refresh")
        if not isinstance(refresh, str) or not refresh:
            return None
        return refresh_grant(spec, refresh)

    try:
        auth.modify(provider, change)
    except (LoginError, TimeoutError):
        return auth.get_api_key(provider) if is_fresh(entry) else None
    return auth.get_api_key(provider)
