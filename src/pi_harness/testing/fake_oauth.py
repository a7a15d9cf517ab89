"""A local fake authorization server for the sign-in flows (part of the product, like fake_llm).

It speaks just enough OAuth to run every flow end to end over real loopback HTTP:

* OpenRouter's PKCE flow: ``GET /auth?callback_url=&code_challenge=&code_challenge_method=S256``
  redirects (302) to ``callback_url?code=...``; ``POST /api/v1/auth/keys`` with
  ``{code, code_verifier, code_challenge_method}`` checks the verifier against the challenge and
  answers ``{"key": ...}``. A code works once.
* the RFC 8628 device flow: ``POST /device/code`` hands out a device code; ``POST /token`` with the
  device grant answers with the next state of ``device_states`` (``"authorization_pending"``,
  ``"slow_down"``, ``"expired_token"``, ``"access_denied"`` or ``"approve"``), the last one
  repeating.
* the refresh grant on ``POST /token``: rotates the refresh token; a spent refresh token gets
  ``invalid_grant``, so a double refresh shows (``refresh_hold_s`` holds a refresh back until a
  second one arrives, so that concurrent refreshes really overlap).

Everything received is recorded (``requests``, ``refresh_count``). Use it as a context manager;
``env(provider)`` gives the ``PI_OAUTH_*`` variables that point pi at it.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


@dataclass
class OAuthRequest:
    method: str
    path: str
    params: dict[str, str]


@dataclass
class _State:
    challenges: dict[str, str] = field(default_factory=dict)  # code -> challenge
    devices: dict[str, list[str]] = field(default_factory=dict)  # device code -> remaining states
    refresh_tokens: set[str] = field(default_factory=set)
    access_tokens: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    refresh_count: int = 0
    requests: list[OAuthRequest] = field(default_factory=list)


class FakeOAuthServer:
    def __init__(
        self,
        *,
        client_id: str = "pi-test-client",
        device_states: Sequence[str] = ("approve",),
        interval: int = 1,
        expires_in: int = 600,
        access_lifetime_s: int = 3600,
        deny_pkce: bool = False,
        refresh_hold_s: float = 0.0,
    ) -> None:
        self.client_id = client_id
        self.device_states = list(device_states)
        self.interval = interval
        self.expires_in = expires_in
        self.access_lifetime_s = access_lifetime_s
        self.deny_pkce = deny_pkce
        # A refresh is answered only after this long or once another refresh arrives, so that
        # two clients refreshing at the same time (without a lock) both reach the server.
        self.refresh_hold_s = refresh_hold_s
        self._refresh_arrivals = 0
        self._arrived = threading.Condition()
        self._state = _State()
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- recorded facts ----------------------------------------------------------------------

    @property
    def requests(self) -> list[OAuthRequest]:
        with self._lock:
            return list(self._state.requests)

    @property
    def refresh_count(self) -> int:
        with self._lock:
            return self._state.refresh_count

    @property
    def access_tokens(self) -> list[str]:
        with self._lock:
            return list(self._state.access_tokens)

    @property
    def keys(self) -> list[str]:
        with self._lock:
            return list(self._state.keys)

    def issue_refresh_token(self) -> str:
        """A valid refresh token, for tests that start from a stored (expired) credential."""
        token = f"refresh-{next(self._counter)}"
        with self._lock:
            self._state.refresh_tokens.add(token)
        return token

    # -- addresses ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def env(self, provider: str) -> dict[str, str]:
        name = provider.upper().replace("-", "_").replace(".", "_")
        if provider == "openrouter":
            return {
                "PI_OAUTH_OPENROUTER_AUTHORIZE_URL": f"{self.url}/auth",
                "PI_OAUTH_OPENROUTER_KEYS_URL": f"{self.url}/api/v1/auth/keys",
            }
        return {
            f"PI_OAUTH_{name}_CLIENT_ID": self.client_id,
            f"PI_OAUTH_{name}_DEVICE_URL": f"{self.url}/device/code",
            f"PI_OAUTH_{name}_TOKEN_URL": f"{self.url}/token",
            f"PI_OAUTH_{name}_SCOPE": "models offline_access",
        }

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOAuthServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                status, headers, body = server._get(parts.path, params)
                self._send(status, headers, body)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length).decode("utf-8")
                if (self.headers.get("content-type") or "").startswith("application/json"):
                    loaded = json.loads(raw or "{}")
                    params = {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
                else:
                    params = {k: v[0] for k, v in parse_qs(raw).items()}
                status, payload = server._post(urlsplit(self.path).path, params)
                self._send(status, {"content-type": "application/json"}, json.dumps(payload).encode("utf-8"))

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="fake-oauth", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOAuthServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- endpoints ---------------------------------------------------------------------------

    def _record(self, method: str, path: str, params: dict[str, str]) -> None:
        with self._lock:
            self._state.requests.append(OAuthRequest(method, path, dict(params)))

    def _get(self, path: str, params: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        self._record("GET", path, params)
        callback = params.get("callback_url", "")
        if path != "/auth" or not callback:
            return 404, {"content-type": "text/plain"}, b"not found"
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return 400, {"content-type": "text/plain"}, b"code_challenge with S256 required"
        if self.deny_pkce:
            return 302, {"location": f"{callback}?{urlencode({'error': 'access_denied'})}"}, b""
        code = f"code-{next(self._counter)}"
        with self._lock:
            self._state.challenges[code] = params["code_challenge"]
        return 302, {"location": f"{callback}?{urlencode({'code': code})}"}, b""

    def _post(self, path: str, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        self._record("POST", path, params)
        if path == "/api/v1/auth/keys":
            return self._exchange_key(params)
        if path == "/device/code":
            return self._device_code(params)
        if path == "/token":
            if params.get("client_id") != self.client_id:
                return 401, {"error": "invalid_client", "error_description": "unknown client"}
            if params.get("grant_type") == "refresh_token":
                return self._refresh(params)
            if params.get("grant_type") == "urn:ietf:params:oauth:grant-type:device_code":
                return self._device_token(params)
            return 400, {"error": "unsupported_grant_type"}
        return 404, {"error": "not_found"}

    def _exchange_key(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            challenge = self._state.challenges.pop(params.get("code", ""), None)
        if challenge is None:
            return 400, {"error": {"message": "Invalid or already used code", "code": 400}}
        if _s256(params.get("code_verifier", "")) != challenge:
            return 403, {"error": {"message": "code_verifier does not match code_challenge", "code": 403}}
        key = f"sk-or-v1-fake-{next(self._counter)}"
        with self._lock:
            self._state.keys.append(key)
        return 200, {"key": key, "user_id": "user_fake"}

    def _device_code(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if params.get("client_id") != self.client_id:
            return 401, {"error": "invalid_client", "error_description": "unknown client"}
        device = f"device-{next(self._counter)}"
        with self._lock:
            self._state.devices[device] = list(self.device_states)
        return 200, {
            "device_code": device,
            "user_code": "WDJB-MJHT",
            "verification_uri": f"{self.url}/device",
            "interval": self.interval,
            "expires_in": self.expires_in,
        }

    def _tokens(self) -> dict[str, Any]:
        n = next(self._counter)
        access, refresh = f"access-{n}", f"refresh-{n}"
        self._state.access_tokens.append(access)
        self._state.refresh_tokens.add(refresh)
        return {
            "access_token": access,
            "refresh_token": refresh,
            "token_type": "Bearer",
            "expires_in": self.access_lifetime_s,
        }

    def _device_token(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            states = self._state.devices.get(params.get("device_code", ""))
            if states is None:
                return 400, {"error": "invalid_grant", "error_description": "unknown device code"}
            state = states.pop(0) if len(states) > 1 else states[0]
            if state == "approve":
                del self._state.devices[params["device_code"]]
                return 200, self._tokens()
        return 400, {"error": state}

    def _refresh(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if self.refresh_hold_s > 0:
            with self._arrived:
                self._refresh_arrivals += 1
                self._arrived.notify_all()
                self._arrived.wait_for(lambda: self._refresh_arrivals > 1, timeout=self.refresh_hold_s)
        with self._lock:
            token = params.get("refresh_token", "")
            if token not in self._state.refresh_tokens:
                return 400, {"error": "invalid_grant", "error_description": "refresh token already used or unknown"}
            self._state.refresh_tokens.discard(token)
            self._state.refresh_count += 1
            return 200, self._tokens()
