"""The Codex backend's Responses route (``POST /backend-api/codex/responses``) as the fake speaks it.

Events are the Responses API's; the terminal response echoes the requested ``service_tier``
(``default`` otherwise). Before answering, the request is checked as the backend does:

* no bearer token: 401 with OpenAI's "Missing bearer …" error;
* ``store`` must be ``false``, ``stream`` ``true`` and ``instructions`` present, else 400
  ``{"detail": "…"}`` (the backend's own shape, not an ``error`` object).

A 429 is the usage-limit error ``{"error": {"type": "usage_limit_reached", "plan_type", "resets_at",
"resets_in_seconds"}}`` (reset 10 minutes ahead) unless the script names another type.
"""

from __future__ import annotations

import time
import uuid

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.testing.fake_llm.openai_responses import OpenAIResponsesProtocol, _Events, error_object
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest

MISSING_AUTH = "Missing bearer or basic authentication in header"
USAGE_LIMIT_RESET_S = 600


class _CodexEvents(_Events):
    def response_object(
        self,
        status: str,
        *,
        usage: JsonObject | None = None,
        error: JsonObject | None = None,
        incomplete_reason: str | None = None,
    ) -> JsonObject:
        response = super().response_object(status, usage=usage, error=error, incomplete_reason=incomplete_reason)
        tier = self.body.get("service_tier")
        response["service_tier"] = tier if isinstance(tier, str) else "default"
        return response


def _detail(message: str) -> HTTPErrorSpec:
    return HTTPErrorSpec(400, message, body=orjson.dumps({"detail": message}).decode())


class OpenAICodexResponsesProtocol(OpenAIResponsesProtocol):
    api = "openai-codex-responses"
    writer = _CodexEvents

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        if not request.headers.get("authorization", "").startswith("Bearer "):
            return HTTPErrorSpec(401, MISSING_AUTH)
        body = request.json
        if body.get("store") is not False:
            return _detail("Store must be set to false")
        if body.get("stream") is not True:
            return _detail("Stream must be set to true")
        if not body.get("instructions"):
            return _detail("Instructions are required")
        return None

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {"x-request-id": str(uuid.uuid4()), "cf-ray": f"{uuid.uuid4().hex[:16]}-SJC"}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        if error.status == 429 and error.type in (None, "usage_limit_reached"):
            usage_limit: JsonObject = {
                "type": "usage_limit_reached",
                "message": error.message,
                "plan_type": "plus",
                "resets_at": int(time.time()) + USAGE_LIMIT_RESET_S,
                "resets_in_seconds": USAGE_LIMIT_RESET_S,
            }
            return orjson.dumps({"error": usage_limit})
        return orjson.dumps({"error": error_object(error)})


PROTOCOL = OpenAICodexResponsesProtocol()
