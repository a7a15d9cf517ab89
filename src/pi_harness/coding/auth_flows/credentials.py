"""The stored shape of a signed-in credential, as Pi writes it in auth.json:
``{"type": "oauth", "refresh": str, "access": str, "expires": <epoch ms>}``.

``expires`` is kept a little before the server's own expiry so that a token never dies in the
middle of a request; a credential that never expires (OpenRouter's API key) stores JavaScript's
``Number.MAX_SAFE_INTEGER`` as Pi does, with an empty ``refresh``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

NEVER_EXPIRES = 2**53 - 1
EXPIRY_MARGIN_MS = 5 * 60 * 1000


def now_ms() -> int:
    return int(time.time() * 1000)


def oauth_credential(access: str, refresh: str = "", expires_in_s: float | None = None) -> dict[str, Any]:
    if expires_in_s is None:
        expires = NEVER_EXPIRES
    else:
        lifetime_ms = int(expires_in_s * 1000)
        # Short-lived tokens keep at least half their lifetime as the margin would eat them whole.
        expires = now_ms() + max(lifetime_ms - EXPIRY_MARGIN_MS, lifetime_ms // 2)
    return {"type": "oauth", "refresh": refresh, "access": access, "expires": expires}


def from_token_response(body: Mapping[str, Any], previous_refresh: str = "") -> dict[str, Any] | None:
    """The credential of an OAuth token response, ``None`` if it carries no access token. A server
    that does not rotate refresh tokens leaves the previous one in place."""
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        return None
    refresh = body.get("refresh_token")
    expires_in = body.get("expires_in")
    return oauth_credential(
        access,
        refresh if isinstance(refresh, str) and refresh else previous_refresh,
        float(expires_in) if isinstance(expires_in, int | float) and expires_in > 0 else None,
    )


def is_fresh(entry: Mapping[str, Any], at_ms: int | None = None) -> bool:
    expires = entry.get("expires")
    return isinstance(expires, int | float) and expires > (now_ms() if at_ms is None else at_ms)
