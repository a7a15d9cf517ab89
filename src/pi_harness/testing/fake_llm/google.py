"""The Gemini API (``google-generative-ai``) as the fake server speaks it.

Requests arrive at ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``. Each response
chunk is one ``data: {GenerateContentResponse}`` line followed by ``\\r\\n\\r\\n``, in Google's JSON
style (``": "`` after keys, ``","`` between items), and every chunk carries ``usageMetadata``,
``modelVersion`` and ``responseId`` like the real service:

* a text step becomes one chunk per piece (``{"text": ...}`` parts); a thinking step likewise
  with ``"thought": true``, its signature (if any) as ``thoughtSignature`` on the last piece.
  Gemini has no redacted thinking, so ``redacted`` steps stream like ordinary thoughts;
* a tool-call step becomes one chunk with a complete ``functionCall`` part (Gemini never
  fragments arguments, so ``chunks`` is ignored); ``id`` is included only when the step names
  one. The first call gets a ``thoughtSignature`` when the request asked for thoughts or the
  model is a Gemini 3 model, as the real service does;
* the last chunk carries ``finishReason`` and the final usage counts; without steps it holds an
  empty text part. A ``stream_error`` replaces the finish with a ``data: {"error": {...}}`` chunk.

HTTP errors use Google's error body ``{"error": {"code", "message", "status", "details"}}``
(pretty-printed), the canonical status name per HTTP code, a ``RetryInfo`` detail with
``retryDelay`` for 429, and an ``ErrorInfo`` ``API_KEY_INVALID`` detail for bad keys.
"""

from __future__ import annotations

import base64
import json
import secrets

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.testing.fake_llm.script import HTTPErrorSpec, TextStep, ThinkingStep, ToolCallStep
from pi_harness.testing.fake_llm.wire import ScriptedProtocol, StepWriter, requested, sse_frame

STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

FINISH_REASONS = {"stop": "STOP", "toolUse": "STOP", "length": "MAX_TOKENS", "error": "SAFETY"}
DEFAULT_RETRY_DELAY_S = 12

# The ``parts`` of one response chunk.
Parts = list[JsonValue]


def _json(value: JsonValue) -> str:
    # Google's streaming JSON: no space between items, one after each key's colon.
    return json.dumps(value, ensure_ascii=False, separators=(",", ": "))


def _frame(value: JsonObject) -> bytes:
    return sse_frame(_json(value).encode(), line_end=b"\r\n")


def model_from_path(path: str) -> str:
    """``/v1beta/models/gemini-2.5-flash:streamGenerateContent`` → ``gemini-2.5-flash``."""
    return path.rsplit("/", 1)[-1].split(":", 1)[0]


def status_name(status: int, explicit: str | None = None) -> str:
    if explicit:
        return explicit
    if status in STATUS_NAMES:
        return STATUS_NAMES[status]
    return "UNAVAILABLE" if status >= 500 else "FAILED_PRECONDITION"


def _usage(usage: dict[str, int], final: bool) -> JsonObject:
    """``usageMetadata`` from the script's usage; only the final chunk counts the output."""
    cached = usage.get("cacheRead", 0)
    prompt = usage.get("input", 0) + cached
    thoughts = usage.get("reasoning", 0)
    candidates = max(0, usage.get("output", 0) - thoughts)
    meta: JsonObject = {"promptTokenCount": prompt}
    if final:
        meta["candidatesTokenCount"] = candidates
        meta["totalTokenCount"] = prompt + candidates + thoughts
    else:
        meta["totalTokenCount"] = prompt
    if cached:
        meta["cachedContentTokenCount"] = cached
    meta["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    if cached:
        meta["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": cached}]
    if final and candidates:
        meta["candidatesTokensDetails"] = [{"modality": "TEXT", "tokenCount": candidates}]
    if final and thoughts:
        meta["thoughtsTokenCount"] = thoughts
    return meta


class _Chunks(StepWriter[Parts]):
    """``GenerateContentResponse`` chunks; the steps give each chunk's ``parts`` (one chunk per text
    piece, one per tool call) and the last one carries the finish reason and final usage."""

    def begin(self) -> None:
        self.model = model_from_path(self.request.path)
        thinking = requested(self.request, "generationConfig").get("thinkingConfig")
        asked = isinstance(thinking, dict) and thinking.get("includeThoughts") is True
        # The first call carries a signature when thoughts were asked for, or on Gemini 3.
        self.needs_signature = "gemini-3" in self.model or asked

    def encode(self) -> list[bytes]:
        response = self.response
        response_id = response.response_id or secrets.token_urlsafe(17)[:23]
        chunks = self.steps()
        frames: list[bytes] = []

        def chunk(parts: Parts, finish: str | None) -> JsonObject:
            candidate: JsonObject = {"content": {"parts": parts, "role": "model"}}
            if finish is not None:
                candidate["finishReason"] = finish
            return {
                "candidates": [candidate],
                "usageMetadata": _usage(response.usage, final=finish is not None),
                "modelVersion": self.model,
                "responseId": response_id,
            }

        if response.stream_error is not None:
            frames.extend(_frame(chunk(parts, None)) for parts in chunks)
            error = response.stream_error
            body: JsonObject = {
                "error": {
                    "code": error.status,
                    "message": error.message,
                    "status": status_name(error.status, error.type),
                }
            }
            frames.append(_frame(body))
            return frames
        finish = response.native_stop or FINISH_REASONS[response.resolved_stop]
        if not chunks:
            chunks = [[{"text": ""}]]
        for index, parts in enumerate(chunks):
            frames.append(_frame(chunk(parts, finish if index == len(chunks) - 1 else None)))
        return frames

    def text(self, step: TextStep, index: int) -> list[Parts]:
        return [[{"text": piece}] for piece in self.deltas(step)]

    def thinking(self, step: ThinkingStep, index: int) -> list[Parts]:
        pieces = self.deltas(step)
        chunks: list[Parts] = []
        for number, piece in enumerate(pieces):
            part: JsonObject = {"text": piece, "thought": True}
            if step.signature and number == len(pieces) - 1:
                part["thoughtSignature"] = step.signature
            chunks.append([part])
        return chunks

    def tool_call(self, step: ToolCallStep, index: int) -> list[Parts]:
        call: JsonObject = {"name": step.name, "args": step.arguments}
        if step.id:
            call["id"] = step.id
        part: JsonObject = {"functionCall": call}
        if self.needs_signature:
            part["thoughtSignature"] = base64.b64encode(f"fake-signature:{step.name}".encode()).decode()
            self.needs_signature = False
        return [[part]]


class GoogleProtocol(ScriptedProtocol):
    api = "google-generative-ai"
    writer = _Chunks

    def error_headers(self, error: HTTPErrorSpec) -> dict[str, str]:
        return {"content-type": "application/json; charset=UTF-8"}

    def error_body(self, error: HTTPErrorSpec, headers: dict[str, str]) -> bytes:
        details: list[JsonValue] = []
        if error.status == 429:
            delay = _retry_after_seconds(error.headers)
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{delay}s",
                }
            )
        elif "api key" in error.message.lower():
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                }
            )
        payload: JsonObject = {
            "code": error.status,
            "message": error.message,
            "status": status_name(error.status, error.type),
        }
        if details:
            payload["details"] = details
        return (json.dumps({"error": payload}, ensure_ascii=False, indent=2) + "\n").encode()


def _retry_after_seconds(headers: dict[str, str]) -> int:
    for name, value in headers.items():
        if name.lower() == "retry-after":
            try:
                return max(0, int(float(value)))
            except ValueError:
                break
    return DEFAULT_RETRY_DELAY_S


PROTOCOL = GoogleProtocol()
