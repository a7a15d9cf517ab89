"""Signing in to providers: OpenRouter's PKCE flow with a loopback callback (or a pasted code),
the RFC 8628 device flow for providers with a user-registered client, token refresh under the
auth.json lock, and the refusal of other vendors' subscription sign-ins (see ``registry``).

The names below load on first use: every request resolves its key through ``refresh``, which
must not bring in the sign-in flows (their HTTP servers, PKCE and device-code code) with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.coding.auth_flows.errors import LoginError
    from pi_harness.coding.auth_flows.login import can_sign_in, sign_in
    from pi_harness.coding.auth_flows.refresh import fresh_api_key
    from pi_harness.coding.auth_flows.registry import flow_for, refusal, refused_providers
    from pi_harness.coding.auth_flows.ui import LoginUI

_HOMES = {
    "LoginError": "errors",
    "LoginUI": "ui",
    "can_sign_in": "login",
    "flow_for": "registry",
    "fresh_api_key": "refresh",
    "refusal": "registry",
    "refused_providers": "registry",
    "sign_in": "login",
}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOMES)


__all__ = [
    "LoginError",
    "LoginUI",
    "can_sign_in",
    "flow_for",
    "fresh_api_key",
    "refusal",
    "refused_providers",
    "sign_in",
]
