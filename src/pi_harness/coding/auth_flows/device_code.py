"""The device authorization grant (RFC 8628).

The user is shown a short code and a verification address to open on any device; meanwhile the
token endpoint is polled every ``interval`` seconds (5 when the server names none). The server
answers ``authorization_pending`` until the user approves, ``slow_down`` to ask for a longer
interval (5 seconds more, or the ``interval`` it sends), and ``expired_token`` / ``access_denied``
to end the attempt. ``sleep`` and ``clock`` are parameters so tests can run the states without
waiting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pi_harness.coding.auth_flows.credentials import from_token_response
from pi_harness.coding.auth_flows.errors import LoginError
from pi_harness.coding.auth_flows.oauth_http import error_detail, failure, post
from pi_harness.coding.auth_flows.registry import FlowSpec
from pi_harness.coding.auth_flows.ui import LoginUI

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
DEFAULT_INTERVAL_S = 5.0
SLOW_DOWN_STEP_S = 5.0
MIN_INTERVAL_S = 1.0

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class DeviceAuthorization:
    device_code: str
    user_code: str
    verification_uri: str
    interval_s: float
    expires_in_s: float


def _parse_authorization(body: dict[str, Any]) -> DeviceAuthorization:
    device_code = body.get("device_code")
    user_code = body.get("user_code")
    uri = body.get("verification_uri_complete") or body.get("verification_uri")
    expires_in = body.get("expires_in")
    interval = body.get("interval", DEFAULT_INTERVAL_S)
    if not (isinstance(device_code, str) and isinstance(user_code, str) and isinstance(uri, str)):
        raise LoginError("Device authorization: the response lacks device_code, user_code or verification_uri")
    # The address is shown for the user to open: only web addresses are accepted.
    if urlsplit(uri).scheme not in ("http", "https"):
        raise LoginError("Device authorization: the verification address is not a web address")
    return DeviceAuthorization(
        device_code,
        user_code,
        uri,
        float(interval) if isinstance(interval, int | float) and interval > 0 else DEFAULT_INTERVAL_S,
        float(expires_in) if isinstance(expires_in, int | float) and expires_in > 0 else 900.0,
    )


async def start(spec: FlowSpec) -> DeviceAuthorization:
    what = "Device authorization"
    form = {"client_id": spec.client_id} | ({"scope": spec.scope} if spec.scope else {})
    status, body = await post(spec.device_url, form=form, what=what)
    if not 200 <= status < 300:
        raise failure(what, status, body)
    return _parse_authorization(body)


async def poll(
    spec: FlowSpec,
    authorization: DeviceAuthorization,
    *,
    sleep: Sleep = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """Poll until the user approves; the new credential. Raises ``LoginError``."""
    deadline = clock() + authorization.expires_in_s
    interval = max(MIN_INTERVAL_S, authorization.interval_s)
    slowed = False
    form = {"grant_type": GRANT_TYPE, "device_code": authorization.device_code, "client_id": spec.client_id}
    while True:
        remaining = deadline - clock()
        if remaining <= 0:
            break
        await sleep(min(interval, remaining))
        status, body = await post(spec.token_url, form=form, what="Device sign-in")
        if 200 <= status < 300:
            credential = from_token_response(body)
            if credential is None:
                raise LoginError("Device sign-in: the token response has no access_token")
            return credential
        error = body.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            slowed = True
            sent = body.get("interval")
            interval = float(sent) if isinstance(sent, int | float) and sent > 0 else interval + SLOW_DOWN_STEP_S
            interval = max(MIN_INTERVAL_S, interval)
            continue
        if error == "expired_token":
            raise LoginError("The device code expired before the sign-in was approved; run the sign-in again.")
        if error == "access_denied":
            raise LoginError("The sign-in was denied.")
        if isinstance(error, str):
            detail = error_detail(body)
            raise LoginError(f"Device sign-in failed: {error}" + (f" ({detail})" if detail and detail != error else ""))
        raise failure("Device sign-in", status, body)
    hint = " after the server asked to slow down (a skewed clock in a VM can cause this)" if slowed else ""
    raise LoginError(f"The device sign-in timed out{hint}; run it again.")


async def login(spec: FlowSpec, ui: LoginUI, *, sleep: Sleep = asyncio.sleep) -> dict[str, Any]:
    authorization = await start(spec)
    ui.show_url(
        authorization.verification_uri,
        f"Open this address on any device and enter the code {authorization.user_code}",
    )
    ui.show(f"Code: {authorization.user_code}  (waiting for approval...)")
    return await poll(spec, authorization, sleep=sleep)
