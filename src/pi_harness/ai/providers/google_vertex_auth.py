"""OAuth access tokens for Vertex AI from Google's credential chain (``google-auth``, optional).

``GOOGLE_APPLICATION_CREDENTIALS`` names a key file (service account, authorized user, external
account); without it ``google.auth.default()`` looks for gcloud's application-default file and
the metadata server. Credentials are kept per key file and refreshed when their token expires.
google-auth is synchronous, so loading and refreshing run in a worker thread, over a small
``urllib`` transport (google-auth's own transports need ``requests``, which we do not depend on).
"""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from pi_harness.optional_deps import MissingDependencyError

SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
FEATURE = "Google Vertex AI with Application Default Credentials"

_lock = threading.Lock()
_credentials: dict[str | None, Any] = {}  # key file (None: the default chain) -> credentials


def _google_auth() -> Any:
    try:
        import google.auth
        import google.auth.transport
    except ModuleNotFoundError as error:
        if (error.name or "").startswith("google"):
            raise MissingDependencyError("google-auth", FEATURE, "vertex") from None
        raise
    return google.auth


class _Response:
    def __init__(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
        self.status = status
        self.headers = dict(headers)
        self.data = data


class UrllibRequest:
    """google-auth's transport interface (``google.auth.transport.Request``) over ``urllib``."""

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **_kwargs: object,
    ) -> _Response:
        # The URLs are the token endpoints named by the user's own key file.
        request = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
        try:
            with urllib.request.urlopen(request, timeout=timeout or 60) as response:
                return _Response(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return _Response(error.code, dict(error.headers), error.read())
        except OSError as error:
            auth = _google_auth()
            raise auth.exceptions.TransportError(str(error)) from error


def _token_now(key_file: str | None) -> str:
    auth = _google_auth()
    with _lock:
        credentials = _credentials.get(key_file)
        if credentials is None:
            # ``default()`` reads GOOGLE_APPLICATION_CREDENTIALS (``key_file``) first, then gcloud's
            # file and the metadata server.
            credentials, _project = auth.default(scopes=list(SCOPES))
            _credentials[key_file] = credentials
        if not credentials.valid:
            credentials.refresh(UrllibRequest())
        token = credentials.token
    if not isinstance(token, str) or not token:
        raise RuntimeError("Google credentials returned no access token")
    return token


async def access_token(key_file: str | None) -> str:
    """A valid access token for ``key_file`` (the GOOGLE_APPLICATION_CREDENTIALS in effect, which
    credentials are cached under) or the default chain; refreshed when expired."""
    _google_auth()  # a missing package is reported before any thread starts
    return await asyncio.to_thread(_token_now, key_file)


def forget_credentials() -> None:
    """Drop cached credentials (tests; a changed key file is otherwise picked up only by path)."""
    with _lock:
        _credentials.clear()
