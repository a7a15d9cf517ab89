"""The few HTTP calls of the sign-in flows: a POST answered with a JSON object.

Failures become ``LoginError`` with the server's own explanation when it gives one
(``error_description``, ``message``, ``error`` or ``error.message``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_harness.coding.auth_flows.errors import LoginError

TIMEOUT_S = 30.0


def error_detail(body: Mapping[str, Any]) -> str | None:
    for name in ("error_description", "message"):
        if isinstance(body.get(name), str):
            return str(body[name])
    error = body.get("error")
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return None


def _parse(status: int, text: str, what: str) -> tuple[int, dict[str, Any]]:
    import json

    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        if 200 <= status < 300:
            raise LoginError(f"{what}: the server answered with something that is not JSON") from None
        data = {}
    return status, data if isinstance(data, dict) else {}


async def post(
    url: str, *, form: Mapping[str, str] | None = None, json_body: object = None, what: str
) -> tuple[int, dict[str, Any]]:
    """``(status, body)``; raises ``LoginError`` only when the server cannot be reached."""
    import httpx2

    headers = {"accept": "application/json"}
    try:
        async with httpx2.AsyncClient(timeout=TIMEOUT_S) as client:
            if form is not None:
                response = await client.post(url, data=dict(form), headers=headers)
            else:
                response = await client.post(url, json=json_body, headers=headers)
    except httpx2.HTTPError as exc:
        raise LoginError(f"{what}: could not reach {url} ({exc.__class__.__name__})") from exc
    return _parse(response.status_code, response.text, what)


def post_form_sync(
    url: str, form: Mapping[str, str], *, what: str, timeout_s: float = 8.0
) -> tuple[int, dict[str, Any]]:
    """The blocking variant, for the token refresh that runs while a request resolves its key."""
    import httpx2

    try:
        response = httpx2.post(url, data=dict(form), headers={"accept": "application/json"}, timeout=timeout_s)
    except httpx2.HTTPError as exc:
        raise LoginError(f"{what}: could not reach {url} ({exc.__class__.__name__})") from exc
    return _parse(response.status_code, response.text, what)


def failure(what: str, status: int, body: Mapping[str, Any]) -> LoginError:
    detail = error_detail(body)
    return LoginError(f"{what} failed (HTTP {status})" + (f": {detail}" if detail else ""))
