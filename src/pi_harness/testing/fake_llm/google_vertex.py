"""Vertex AI's Gemini route as the fake speaks it, and Google's OAuth token endpoint.

Requests arrive at ``POST /v1/publishers/google/models/{model}:streamGenerateContent?alt=sse``
(API key or collection base URL) or ``/v1/projects/{p}/locations/{l}/publishers/google/models/…``.
The stream is the Gemini API's, chunk for chunk. Vertex differs at the door:

* a request with neither ``x-goog-api-key`` nor a bearer token gets Vertex's 401
  ``UNAUTHENTICATED`` ("Request is missing required authentication credential…");
* a 429 is Vertex's "Resource exhausted" error, with no ``RetryInfo`` detail (Vertex sends none).

``POST /token`` is the OAuth 2.0 token endpoint a service-account key file's ``token_uri`` may
point at (see ``token_response``): it takes the JWT-bearer grant (an RS256 assertion whose
audience is Google's token endpoint) or a refresh token, grants ``ya29.fake-<n>`` tokens for an hour, and
answers Google's ``invalid_grant`` errors for a malformed assertion, an assertion issued by
``revoked@…`` or the refresh token ``revoked``.
"""

from __future__ import annotations

import base64
import binascii
import json
from urllib.parse import parse_qs

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.google import GoogleProtocol, status_name
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest

MISSING_CREDENTIAL = (
    "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or "
    "other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
)
REVOKED_REFRESH_TOKEN = "revoked"
REVOKED_ISSUER_PREFIX = "revoked@"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
GOOGLE_TOKEN_ENDPOINT = "https://oauth2.googleapis.com/token"
TOKEN_LIFETIME_S = 3599


class GoogleVertexProtocol(GoogleProtocol):
    api = "google-vertex"

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        headers = request.headers
        if headers.get("x-goog-api-key") or headers.get("authorization", "").startswith("Bearer "):
            return None
        return HTTPErrorSpec(401, MISSING_CREDENTIAL)

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        if error.status != 429:
            return super().error_body(error, headers)
        payload: JsonObject = {"code": 429, "message": error.message, "status": status_name(429, error.type)}
        return (json.dumps({"error": payload}, ensure_ascii=False, indent=2) + "\n").encode()


def _jwt_part(segment: str) -> JsonObject | None:
    try:
        value = orjson.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (ValueError, binascii.Error):
        return None
    return value if isinstance(value, dict) else None


def _assertion_refusal(assertion: str) -> str | None:
    """Why Google would refuse the JWT-bearer ``assertion`` (``None``: it is acceptable)."""
    parts = assertion.split(".")
    header = _jwt_part(parts[0]) if len(parts) == 3 else None
    claims = _jwt_part(parts[1]) if len(parts) == 3 else None
    if header is None or claims is None or header.get("alg") != "RS256" or not parts[2]:
        return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
    if claims.get("aud") != GOOGLE_TOKEN_ENDPOINT:  # Google's audience, whatever the token_uri
        return "Invalid JWT: Failed audience check."
    if str(claims.get("iss", "")).startswith(REVOKED_ISSUER_PREFIX):
        return "Invalid JWT Signature."
    return None


def token_response(body: bytes, issued: int) -> tuple[int, bytes]:
    """Status and JSON body for a token request (form-encoded); ``issued`` numbers the token."""
    form = {name: values[0] for name, values in parse_qs(body.decode("utf-8", errors="replace")).items()}
    grant = form.get("grant_type")
    refusal: str | None = None
    if grant == JWT_BEARER:
        refusal = _assertion_refusal(form.get("assertion", ""))
    elif grant == "refresh_token":
        if form.get("refresh_token") == REVOKED_REFRESH_TOKEN:
            refusal = "Token has been expired or revoked."
    else:
        return 400, orjson.dumps(
            {"error": "unsupported_grant_type", "error_description": f"Invalid grant_type: {grant or ''}"}
        )
    if refusal is not None:
        return 400, orjson.dumps({"error": "invalid_grant", "error_description": refusal})
    granted = {
        "access_token": f"ya29.fake-{issued}",
        "expires_in": TOKEN_LIFETIME_S,
        "scope": form.get("scope", "https://www.googleapis.com/auth/cloud-platform"),
        "token_type": "Bearer",
    }
    return 200, orjson.dumps(granted)


PROTOCOL = GoogleVertexProtocol()
