"""Signing in to providers: OpenRouter's PKCE flow with a loopback callback (or a pasted code),
the RFC 8628 device flow for providers with a user-registered client, token refresh under the
auth.json lock, and the refusal of other vendors' subscription sign-ins (see ``registry``)."""

from __future__ import annotations

from pi_harness.coding.auth_flows.errors import LoginError
from pi_harness.coding.auth_flows.login import can_sign_in, sign_in
from pi_harness.coding.auth_flows.refresh import fresh_api_key
from pi_harness.coding.auth_flows.registry import flow_for, refusal, refused_providers
from pi_harness.coding.auth_flows.ui import LoginUI

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
