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
from typing import Any

from pi_harness.testing.fake_llm.script import (
    HTTPErrorSpec,
    RecordedRequest,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
    split_text,
)

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


def _json(value: Any) -> str:
    # Google's streaming JSON: no space between items, one after each key's colon.
    return json.dumps(value, ensure_ascii=False, separators=(",", ": "))


def _frame(value: Any) -> bytes:
    return f"data: {_json(value)}\r\n\r\n".encode()


def model_from_path(path: str) -> str:
    """``/v1beta/models/gemini-2.5-flash:streamGenerateContent`` → ``gemini-2.5-flash``."""
    return path.rsplit("/", 1)[-1].split(":", 1)[0]


def status_name(status: int, explicit: str | None = None) -> str:
    if explicit:
        return explicit
    if status in STATUS_NAMES:
        return STATUS_NAMES[status]
    return "UNAVAILABLE" if status >= 500 else "FAILED_PRECONDITION"


def _wants_thoughts(request: RecordedRequest, model: str) -> bool:
    config = request.json.get("generationConfig")
    thinking = config.get("thinkingConfig") if isinstance(config, dict) else None
    return "gemini-3" in model or (isinstance(thinking, dict) and thinking.get("includeThoughts") is True)


def _usage(response: ScriptedResponse, final: bool) -> dict[str, Any]:
    usage = response.usage
    cached = usage.get("cacheRead", 0)
    prompt = usage.get("input", 0) + cached
    thoughts = usage.get("reasoning", 0)
    candidates = max(0, usage.get("output", 0) - thoughts)
    meta: dict[str, Any] = {"promptTokenCount": prompt}
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


def _step_parts(response: ScriptedResponse, request: RecordedRequest, model: str) -> list[list[dict[str, Any]]]:
    """The ``parts`` of each content chunk, in order."""
    chunks: list[list[dict[str, Any]]] = []
    needs_signature = _wants_thoughts(request, model)
    for step in response.steps:
        if isinstance(step, TextStep):
            chunks.extend([{"text": piece}] for piece in split_text(step.text, step.chunks))
        elif isinstance(step, ThinkingStep):
            pieces = split_text(step.text, step.chunks)
            for index, piece in enumerate(pieces):
                part: dict[str, Any] = {"text": piece, "thought": True}
                if step.signature and index == len(pieces) - 1:
                    part["thoughtSignature"] = step.signature
                chunks.append([part])
        elif isinstance(step, ToolCallStep):
            call: dict[str, Any] = {"name": step.name, "args": step.arguments}
            if step.id:
                call["id"] = step.id
            part = {"functionCall": call}
            if needs_signature:
                part["thoughtSignature"] = base64.b64encode(f"fake-signature:{step.name}".encode()).decode()
                needs_signature = False
            chunks.append([part])
    return chunks


class GoogleProtocol:
    api = "google-generative-ai"

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        model = model_from_path(request.path)
        response_id = response.response_id or secrets.token_urlsafe(17)[:23]
        chunks = _step_parts(response, request, model)
        frames: list[bytes] = []

        def chunk(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
            candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
            if finish is not None:
                candidate["finishReason"] = finish
            return {
                "candidates": [candidate],
                "usageMetadata": _usage(response, final=finish is not None),
                "modelVersion": model,
                "responseId": response_id,
            }

        if response.stream_error is not None:
            frames.extend(_frame(chunk(parts, None)) for parts in chunks)
            error = response.stream_error
            body = {
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

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        headers = {"content-type": "application/json; charset=UTF-8"}
        if error.body is not None:
            return error.status, headers, error.body.encode()
        details: list[dict[str, Any]] = []
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
        payload: dict[str, Any] = {
            "code": error.status,
            "message": error.message,
            "status": status_name(error.status, error.type),
        }
        if details:
            payload["details"] = details
        body = json.dumps({"error": payload}, ensure_ascii=False, indent=2) + "\n"
        return error.status, headers, body.encode()


def _retry_after_seconds(headers: dict[str, str]) -> int:
    for name, value in headers.items():
        if name.lower() == "retry-after":
            try:
                return max(0, int(float(value)))
            except ValueError:
                break
    return DEFAULT_RETRY_DELAY_S


PROTOCOL = GoogleProtocol()
