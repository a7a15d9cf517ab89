"""OpenRouter's PKCE sign-in: the browser visits ``/auth?callback_url=...&code_challenge=...
&code_challenge_method=S256``, OpenRouter redirects to the loopback callback with ``code``, and the
code plus the verifier are exchanged at ``/api/v1/auth/keys`` for ``{"key": ...}``: a permanent,
user-controlled API key, stored as a non-expiring OAuth credential.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlencode

from pi_harness.coding.auth_flows.callback_server import CallbackServer
from pi_harness.coding.auth_flows.credentials import oauth_credential
from pi_harness.coding.auth_flows.errors import LoginError
from pi_harness.coding.auth_flows.oauth_http import failure, post
from pi_harness.coding.auth_flows.paste import code_from_paste
from pi_harness.coding.auth_flows.pkce import new_pkce
from pi_harness.coding.auth_flows.registry import FlowSpec, callback_host
from pi_harness.coding.auth_flows.ui import LoginUI

LOGIN_TIMEOUT_S = 300.0


async def exchange_code(spec: FlowSpec, code: str, verifier: str) -> dict[str, Any]:
    what = "OpenRouter key exchange"
    status, body = await post(
        spec.token_url,
        json_body={"code": code, "code_verifier": verifier, "code_challenge_method": "S256"},
        what=what,
    )
    if not 200 <= status < 300:
        raise failure(what, status, body)
    key = body.get("key")
    if not isinstance(key, str) or not key:
        raise LoginError(f'{what}: the response has no "key"')
    return oauth_credential(key)


async def wait_for_code(server: CallbackServer, ui: LoginUI, prompt: str, timeout_s: float) -> str:
    """The code from the loopback callback or from a paste, whichever comes first."""
    assert server.code is not None
    callback: asyncio.Future[str] = server.code
    pasted: asyncio.Task[str | None] = asyncio.ensure_future(ui.paste(prompt))
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                waiting: set[asyncio.Future[Any]] = {callback, pasted}
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if callback in done:
                    return callback.result()
                text = pasted.result()
                if text is None:  # nobody can paste: only the callback is left
                    await asyncio.wait({callback})
                    return callback.result()
                code = code_from_paste(text)
                if code:
                    return code
                ui.show("No authorization code in what was pasted; paste the redirect URL or the code.")
                pasted = asyncio.ensure_future(ui.paste(prompt))
    except TimeoutError:
        raise LoginError("Sign-in timed out") from None
    finally:
        if not pasted.done():
            pasted.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pasted


async def login(spec: FlowSpec, ui: LoginUI, *, timeout_s: float = LOGIN_TIMEOUT_S) -> dict[str, Any]:
    pair = new_pkce()
    async with CallbackServer(callback_host()) as server:
        query = urlencode(
            {"callback_url": server.redirect_uri, "code_challenge": pair.challenge, "code_challenge_method": "S256"}
        )
        ui.show(f"Waiting for the browser on {server.redirect_uri}")
        ui.show_url(
            f"{spec.authorize_url}?{query}",
            "Open this URL in a browser to sign in. If that browser runs on another machine, "
            "paste the address it ends on (or the code) here.",
        )
        code = await wait_for_code(server, ui, "Redirect URL or code:", timeout_s)
    ui.show("Exchanging the authorization code for an API key...")
    return await exchange_code(spec, code, pair.verifier)
