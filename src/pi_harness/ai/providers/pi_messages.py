"""``pi-messages``: Pi's own protocol, for gateways that speak Pi's message format.

``POST {baseUrl}/messages`` with ``Authorization: Bearer <key>`` and the body
``{"model": <id>, "context": <the Context as it is>, "options": {temperature, maxTokens,
reasoning, cacheRetention, sessionId, toolChoice}}`` (unset options are left out;
``cacheRetention`` is only sent when set, or ``long`` from ``PI_CACHE_RETENTION``). The
answer is SSE whose ``data:`` lines are Pi's assistant-message events without ``partial``
(``text_start``/``_delta``/``_end`` with ``content`` and ``contentSignature``, the same for
thinking with ``redacted``, ``toolcall_start`` with ``id``/``toolName``, ``toolcall_end`` with
the finished ``toolCall``), ended by ``done`` (``reason``, ``usage``, ``responseId``) or
``error`` (``errorMessage``). The gateway's usage, cost included, is taken as it is.

HTTP errors read ``<status> <reason phrase>: <error.message or the body>[ (<error.code>)]``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import cast

from pi_harness.ai.http import join_url, merge_headers
from pi_harness.ai.json_values import JsonObject, as_object
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.providers.option_fields import options_as
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Context, Model, StopReason, Usage

API = "pi-messages"
_DONE_REASONS = frozenset({"stop", "length", "toolUse"})


@dataclass
class PiMessagesOptions(StreamOptions):
    reasoning: str | None = None
    tool_choice: str | JsonObject | None = None
    # Adds ``?debug=1`` to the request.
    debug: bool = False


class PiMessagesStreamError(Exception):
    """The gateway's ``error`` event."""


def build_request_body(model: Model, context: Context, options: PiMessagesOptions) -> dict[str, object]:
    retention = options.cache_retention or ("long" if os.environ.get("PI_CACHE_RETENTION") == "long" else None)
    wanted: dict[str, object] = {
        "temperature": options.temperature,
        "maxTokens": options.max_tokens,
        "reasoning": options.reasoning,
        "cacheRetention": retention,
        "sessionId": options.session_id,
        "toolChoice": options.tool_choice,
    }
    return {
        "model": model["id"],
        "context": context,
        "options": {name: value for name, value in wanted.items() if value is not None},
    }


def format_error(status: int, body: str, _headers: Mapping[str, str]) -> str:
    try:
        parsed = loads(body) if body.strip() else None
    except ValueError:
        parsed = None
    error = as_object(parsed).get("error") if isinstance(parsed, dict) else None
    details = error if isinstance(error, dict) else {}
    message = details.get("message")
    code = details.get("code")
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    suffix = message if isinstance(message, str) else body
    code_suffix = f" ({code})" if isinstance(code, str) and code else ""
    return f"{status} {phrase}: {suffix}{code_suffix}"


class PiMessagesReader:
    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.terminal: StopReason | None = None
        self.ended = False

    def feed(self, event: ServerSentEvent) -> None:
        data = event.data.strip()
        if not data or data == "[DONE]":
            return
        payload = as_object(loads(data))
        kind = payload.get("type")
        index = payload.get("contentIndex")
        key = index if isinstance(index, int) else 0
        builder = self.builder
        if kind == "start":
            builder.start()
        elif kind == "text_start":
            builder.open_text(key)
        elif kind == "thinking_start":
            builder.open_thinking(key)
        elif kind == "toolcall_start":
            builder.open_tool_call(key, str(payload.get("id") or ""), str(payload.get("toolName") or ""))
        elif kind in ("text_delta", "thinking_delta", "toolcall_delta") and builder.is_open(key):
            builder.append(key, str(payload.get("delta") or ""))
        elif kind == "text_end" and builder.open_kind(key) == "text":
            self._end_text(key, payload)
        elif kind == "thinking_end" and builder.open_kind(key) == "thinking":
            self._end_thinking(key, payload)
        elif kind == "toolcall_end" and builder.open_kind(key) == "toolCall":
            self._end_tool_call(key, as_object(payload.get("toolCall")))
        elif kind in ("done", "error"):
            self._terminal(str(kind), payload)

    def _end_text(self, key: int, payload: Mapping[str, object]) -> None:
        block = self.builder.text_block(key)
        if isinstance(payload.get("content"), str):
            block["text"] = str(payload["content"])
        if isinstance(payload.get("contentSignature"), str):
            block["textSignature"] = str(payload["contentSignature"])
        self.builder.close(key)

    def _end_thinking(self, key: int, payload: Mapping[str, object]) -> None:
        block = self.builder.thinking_block(key)
        if isinstance(payload.get("content"), str):
            block["thinking"] = str(payload["content"])
        if isinstance(payload.get("contentSignature"), str):
            block["thinkingSignature"] = str(payload["contentSignature"])
        if payload.get("redacted") is True:
            block["redacted"] = True
        self.builder.close(key)

    def _end_tool_call(self, key: int, tool_call: Mapping[str, object]) -> None:
        block = self.builder.tool_call_block(key)
        if isinstance(tool_call.get("id"), str):
            block["id"] = str(tool_call["id"])
        if isinstance(tool_call.get("name"), str):
            block["name"] = str(tool_call["name"])
        arguments = tool_call.get("arguments")
        self.builder.close(key)
        # The gateway's finished call is authoritative (the event above holds this same block).
        if isinstance(arguments, dict):
            block["arguments"] = arguments
            block.pop("argumentsError", None)

    def _terminal(self, kind: str, payload: Mapping[str, object]) -> None:
        self.ended = True
        output = self.builder.output
        usage = payload.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("cost"), dict):
            output["usage"] = cast(Usage, usage)
        response_id = payload.get("responseId")
        if isinstance(response_id, str):
            output["responseId"] = response_id
        level = payload.get("providerThinkingLevel")
        if isinstance(level, str):
            cast(dict[str, object], output)["providerThinkingLevel"] = level
        if kind == "error":
            message = payload.get("errorMessage")
            raise PiMessagesStreamError(message if isinstance(message, str) and message else dumps_str(payload))
        reason = payload.get("reason")
        self.terminal = cast(StopReason, reason) if reason in _DONE_REASONS else None


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options_as(options, PiMessagesOptions)

    def prepare() -> SSERequest:
        if not opts.api_key:
            raise ValueError(f'No API key provided for provider "{model["provider"]}"')
        url = join_url(model["baseUrl"], "messages") + ("?debug=1" if opts.debug else "")
        base = {
            "authorization": f"Bearer {opts.api_key}",
            "accept": "text/event-stream",
            "content-type": "application/json",
        }
        # Pi sends the caller's headers, not the model's, to this API.
        return SSERequest(
            url, merge_headers(base, opts.headers), build_request_body(model, context, opts), format_error
        )

    async def read(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason | None:
        reader = PiMessagesReader(builder)
        async for event in events:
            reader.feed(event)
            if reader.ended:
                return reader.terminal
        raise ConnectionError(f"{model['provider']} stream ended without a terminal event (terminated)")

    return stream_sse_request(model, opts, prepare, read, sequential=False)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = options_as(simple, PiMessagesOptions)
    opts.reasoning = simple.reasoning
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
