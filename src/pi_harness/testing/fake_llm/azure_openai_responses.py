"""The Responses API as Azure OpenAI serves it (``POST /openai/v1/responses?api-version=v1``).

The stream is the OpenAI one, event for event. What differs is the front door:

* the key comes in an ``api-key`` header (a bearer token is accepted too, as Entra ID tokens are);
  without either the answer is Azure's 401 ``{"error": {"code": "401", "message": …}}``;
* ``api-version`` is required: without it Azure answers 400 ``MissingApiVersionParameter``;
* 401, 404 and 429 come from Azure's gateway in its ``{"code", "message"}`` shape (a 404 is
  ``DeploymentNotFound`` unless the script names another code, a 429 ``RateLimitReached`` with
  ``retry-after``); the other statuses come from the model service in OpenAI's shape;
* errors carry ``apim-request-id`` and ``x-ms-region`` like Azure's.
"""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs

import orjson

from pi_harness.testing.fake_llm.openai_responses import OpenAIResponsesProtocol, error_object
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest

ACCESS_DENIED = (
    "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key "
    "for an active subscription and use a correct regional API endpoint for your resource."
)
MISSING_API_VERSION = "The api-version query parameter (?api-version=) is required for all requests."
# Azure's own codes for the statuses its gateway answers.
_GATEWAY_CODES = {401: "401", 404: "DeploymentNotFound", 429: "RateLimitReached"}


class AzureOpenAIResponsesProtocol(OpenAIResponsesProtocol):
    api = "azure-openai-responses"

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        headers = request.headers
        if not headers.get("api-key") and not headers.get("authorization", "").startswith("Bearer "):
            return HTTPErrorSpec(401, ACCESS_DENIED)
        if not parse_qs(request.query).get("api-version"):
            return HTTPErrorSpec(400, MISSING_API_VERSION, type="MissingApiVersionParameter")
        return None

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {
            "apim-request-id": str(uuid.uuid4()),
            "x-request-id": str(uuid.uuid4()),
            "x-ms-region": "East US",
        }

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        gateway_code = _GATEWAY_CODES.get(error.status)
        if gateway_code is not None or error.type == "MissingApiVersionParameter":
            return orjson.dumps({"error": {"code": error.type or gateway_code, "message": error.message}})
        return orjson.dumps({"error": error_object(error)})


PROTOCOL = AzureOpenAIResponsesProtocol()
