"""Amazon Bedrock's ConverseStream (``POST /model/{modelId}/converse-stream``) as the fake speaks it.

Responses use AWS event-stream framing (``application/vnd.amazon.eventstream``, see
``pi_harness.ai.providers.aws_eventstream``); each message has ``:event-type``,
``:content-type: application/json`` and ``:message-type: event`` headers and a JSON payload that,
like AWS's, carries a ``p`` padding field:

    messageStart {"role": "assistant"}
    text      contentBlockDelta {"delta": {"text": …}} per piece · contentBlockStop
    thinking  contentBlockDelta {"delta": {"reasoningContent": {"text": …}}} per piece, then the
              signature as {"reasoningContent": {"signature": …}}; a redacted step sends its
              signature as base64 ``redactedContent`` instead · contentBlockStop
    tool call contentBlockStart {"start": {"toolUse": {"toolUseId", "name"}}} ·
              contentBlockDelta {"delta": {"toolUse": {"input": …}}} per fragment · contentBlockStop
    messageStop {"stopReason": end_turn | tool_use | max_tokens | …} · metadata {"usage", "metrics"}

``native_stop`` is the literal ``stopReason``. A ``stream_error`` becomes an exception message
(``:message-type: exception``, ``:exception-type`` e.g. ``throttlingException``) after the steps.

The request must be authenticated as Bedrock expects: a bearer token, or a SigV4 ``Authorization``
header of the right shape (``AWS4-HMAC-SHA256 Credential=<key>/<yyyymmdd>/<region>/bedrock/
aws4_request, SignedHeaders=…host…x-amz-date…, Signature=<64 hex>``) with a matching
``X-Amz-Date``; otherwise AWS's 403 (``MissingAuthenticationTokenException`` or
``IncompleteSignatureException``). For an access key listed in ``KNOWN_SECRET_KEYS`` the signature
itself is recomputed (``sigv4``) and a wrong one gets ``InvalidSignatureException``. HTTP errors
carry ``x-amzn-ErrorType`` and ``{"message": …}``.
"""

from __future__ import annotations

import base64
import hmac
import re
import secrets
import uuid

import orjson

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.providers.aws_eventstream import encode_message
from pi_harness.testing.fake_llm import sigv4
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, RecordedRequest, TextStep, ThinkingStep, ToolCallStep
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter

CONTENT_TYPE = "application/vnd.amazon.eventstream"
_SIGV4 = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[A-Za-z0-9]+)/(?P<date>\d{8})/(?P<region>[a-z0-9-]+)/bedrock/aws4_request, "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=[0-9a-f]{64}$"
)
_AMZ_DATE = re.compile(r"^\d{8}T\d{6}Z$")
_STOP = {"stop": "end_turn", "toolUse": "tool_use", "length": "max_tokens", "error": "content_filtered"}
_EXCEPTIONS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}
MISSING_TOKEN = "Missing Authentication Token"
SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check your AWS Secret "
    "Access Key and signing method. Consult the service documentation for details."
)
# access key id -> secret key: signatures made with these keys are verified, not only their shape.
KNOWN_SECRET_KEYS: dict[str, str] = {}
INCOMPLETE_SIGNATURE = (
    "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. "
    "Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either "
    "a 'X-Amz-Date' or a 'Date' header."
)


def exception_name(error: HTTPErrorSpec) -> str:
    if error.type:
        return error.type
    return _EXCEPTIONS.get(error.status, "InternalServerException" if error.status >= 500 else "ValidationException")


def _padding() -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(secrets.choice(alphabet) for _ in range(secrets.randbelow(20) + 1))


class _Messages(StepWriter[bytes]):
    def event(self, event_type: str, payload: JsonObject) -> bytes:
        headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
        return encode_message(headers, orjson.dumps({**payload, "p": _padding()}))

    def delta(self, index: int, delta: JsonObject) -> bytes:
        return self.event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta})

    def stop(self, index: int) -> bytes:
        return self.event("contentBlockStop", {"contentBlockIndex": index})

    def text(self, step: TextStep, index: int) -> list[bytes]:
        return [*(self.delta(index, {"text": piece}) for piece in self.deltas(step)), self.stop(index)]

    def thinking(self, step: ThinkingStep, index: int) -> list[bytes]:
        frames: list[bytes] = []
        if step.redacted:
            opaque = base64.b64encode((step.signature or "").encode()).decode()
            frames.append(self.delta(index, {"reasoningContent": {"redactedContent": opaque}}))
        else:
            frames.extend(self.delta(index, {"reasoningContent": {"text": piece}}) for piece in self.deltas(step))
            if step.signature:
                frames.append(self.delta(index, {"reasoningContent": {"signature": step.signature}}))
        frames.append(self.stop(index))
        return frames

    def tool_call(self, step: ToolCallStep, index: int) -> list[bytes]:
        tool_use: JsonObject = {"toolUseId": step.id or f"tooluse_{secrets.token_urlsafe(16)}", "name": step.name}
        frames = [self.event("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": tool_use}})]
        frames.extend(self.delta(index, {"toolUse": {"input": piece}}) for piece in self.argument_deltas(step))
        frames.append(self.stop(index))
        return frames

    def encode(self) -> list[bytes]:
        frames = [self.event("messageStart", {"role": "assistant"})]
        frames.extend(self.steps())
        error = self.response.stream_error
        if error is not None:
            name = exception_name(error)
            headers = {
                ":exception-type": name[:1].lower() + name[1:],
                ":content-type": "application/json",
                ":message-type": "exception",
            }
            frames.append(encode_message(headers, orjson.dumps({"message": error.message})))
            return frames
        stop = self.response.native_stop or _STOP[self.response.resolved_stop]
        frames.append(self.event("messageStop", {"stopReason": stop}))
        usage = self.response.usage
        tokens: JsonObject = {
            "inputTokens": usage.get("input", 0),
            "outputTokens": usage.get("output", 0),
            "totalTokens": usage.get("input", 0)
            + usage.get("output", 0)
            + usage.get("cacheRead", 0)
            + usage.get("cacheWrite", 0),
        }
        if usage.get("cacheRead") or usage.get("cacheWrite"):
            tokens["cacheReadInputTokens"] = usage.get("cacheRead", 0)
            tokens["cacheWriteInputTokens"] = usage.get("cacheWrite", 0)
        frames.append(self.event("metadata", {"usage": tokens, "metrics": {"latencyMs": 321}}))
        return frames


def check_authorization(request: RecordedRequest) -> HTTPErrorSpec | None:
    """AWS's answer to a request whose credentials are missing, malformed or (for a key in
    ``KNOWN_SECRET_KEYS``) wrongly signed; ``None`` when the request is acceptable."""
    headers = request.headers
    authorization = headers.get("authorization", "")
    if not authorization:
        return HTTPErrorSpec(403, MISSING_TOKEN, type="MissingAuthenticationTokenException")
    if authorization.startswith("Bearer ") and authorization[7:].strip():
        return None
    match = _SIGV4.match(authorization)
    amz_date = headers.get("x-amz-date", "")
    if match is None or not _AMZ_DATE.match(amz_date):
        return HTTPErrorSpec(403, INCOMPLETE_SIGNATURE, type="IncompleteSignatureException")
    signed = match.group("signed").split(";")
    if "host" not in signed or "x-amz-date" not in signed or not amz_date.startswith(match.group("date")):
        return HTTPErrorSpec(403, SIGNATURE_MISMATCH, type="InvalidSignatureException")
    if "x-amz-security-token" in headers and "x-amz-security-token" not in signed:
        return HTTPErrorSpec(
            403, "The security token included in the request is invalid.", type="UnrecognizedClientException"
        )
    secret = KNOWN_SECRET_KEYS.get(match.group("key"))
    if secret is not None:
        scope = f"{match.group('date')}/{match.group('region')}/bedrock/aws4_request"
        given = authorization.rsplit("Signature=", 1)[1]
        if not hmac.compare_digest(given, sigv4.signature(request, secret, scope, signed)):
            return HTTPErrorSpec(403, SIGNATURE_MISMATCH, type="InvalidSignatureException")
    return None


class BedrockProtocol(ScriptedProtocol):
    api = "bedrock-converse-stream"
    writer = _Messages
    stream_content_type = CONTENT_TYPE

    def check_request(self, request: RecordedRequest) -> HTTPErrorSpec | None:
        return check_authorization(request)

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {
            "x-amzn-ErrorType": f"{exception_name(error)}:http://internal.amazon.com/coral/com.amazon.bedrock/",
            "x-amzn-RequestId": str(uuid.uuid4()),
        }

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        return orjson.dumps({"message": error.message})


PROTOCOL = BedrockProtocol()
