"""``google-generative-ai``: the Gemini API, streamed over Server-Sent Events.

``POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse`` with ``x-goog-api-key``. Every
SSE ``data:`` line is a complete ``GenerateContentResponse``: text and thought parts arrive as
deltas, a ``functionCall`` part arrives whole (one ``toolcall_delta`` with the complete
arguments), and the chunk holding ``finishReason`` ends the response. ``usageMetadata`` comes with
every chunk and is re-read each time; ``promptTokenCount`` includes cached tokens, and
``thoughtsTokenCount`` is counted as output (and as its ``reasoning`` subset).

Prompt caching: the Gemini API caches implicitly and has no per-request
cache markers, so ``cacheRetention`` and ``sessionId`` change nothing in the request; cache hits
are reported as ``cacheRead`` from ``cachedContentTokenCount``.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Literal

from pi_harness.ai.http import default_error_message, join_url, merge_headers
from pi_harness.ai.json_values import as_count, as_list, as_object
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.providers.google_convert import build_request
from pi_harness.ai.providers.google_thinking import disabled_thinking_config, simple_thinking_config
from pi_harness.ai.providers.google_wire import GenerateContentRequest, ThinkingConfig
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.transform import make_google_normalizer, transform_messages
from pi_harness.ai.types import Context, Model, StopReason

API = "google-generative-ai"

STREAM_ENDED_EARLY = "Connection error: the stream ended before a finishReason arrived (terminated)"

_tool_call_counter = itertools.count(1)


@dataclass
class GoogleStreamOptions(StreamOptions):
    """Gemini-specific options for ``stream``.

    ``thinking_enabled``: ``None`` sends no ``thinkingConfig``; ``True`` asks for thoughts with
    ``thinking_level`` (Gemini 3) or ``thinking_budget`` (Gemini 2.5; ``-1`` = dynamic);
    ``False`` turns thinking off as far as the model allows. Ignored for non-reasoning models.
    """

    thinking_enabled: bool | None = None
    thinking_budget: int | None = None
    thinking_level: str | None = None
    tool_choice: Literal["auto", "none", "any"] | None = None
    # A complete ``thinkingConfig`` sent verbatim; takes precedence over the three fields above.
    thinking_config: ThinkingConfig | None = None


# --- errors -----------------------------------------------------------------------------------


def format_error_object(error: Mapping[str, object], status: int | None = None) -> str:
    """``<code> <STATUS>: <message>`` from Google's ``{"code", "message", "status"}`` object."""
    code = error.get("code") if isinstance(error.get("code"), int) else status
    name = error.get("status")
    message = error.get("message")
    text = str(message) if isinstance(message, str) and message else "Unknown error"
    prefix = " ".join(str(piece) for piece in (code, name) if piece)
    return f"{prefix}: {text}" if prefix else text


def format_google_error(status: int, body: str, headers: Mapping[str, str]) -> str:
    """The ``errorMessage`` of an HTTP error, e.g. ``429 RESOURCE_EXHAUSTED: <message>``."""
    try:
        data = loads(body) if body.strip() else None
    except ValueError:
        data = None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]  # the non-SSE stream format wraps errors in an array
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return format_error_object(data["error"], status)
    return default_error_message(status, body, headers)


class GeminiStreamError(Exception):
    """An ``{"error": {...}}`` object received inside the event stream."""


# --- response parsing -------------------------------------------------------------------------


def new_tool_call_id(name: str) -> str:
    """Gemini models send no call ids: make one that is unique across requests."""
    return f"{name}_{next(_tool_call_counter)}_{secrets.token_hex(4)}"


class _ChunkReader:
    """Feeds ``GenerateContentResponse`` chunks into the message builder."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.finish_reason: str | None = None
        self.finish_message: str | None = None
        self.block_reason: str | None = None
        self._current: str | None = None  # key of the open text/thinking block
        self._tool_index = 0

    def feed(self, chunk: object) -> None:
        if not isinstance(chunk, dict):
            raise ValueError(f"Malformed Gemini stream chunk: {dumps_str(chunk)[:200]}")
        data: Mapping[str, object] = chunk
        error = data.get("error")
        if isinstance(error, dict):
            raise GeminiStreamError(format_error_object(error))
        response_id = data.get("responseId")
        if isinstance(response_id, str) and response_id and "responseId" not in self.builder.output:
            self.builder.output["responseId"] = response_id
        candidates = as_list(data.get("candidates"))
        candidate = candidates[0] if candidates else None
        if isinstance(candidate, dict):
            for part in as_list(as_object(candidate.get("content")).get("parts")):
                if isinstance(part, dict):
                    self._part(part)
            reason = candidate.get("finishReason")
            if isinstance(reason, str) and reason:
                self.finish_reason = reason
                self.builder.output["rawStopReason"] = reason
                message = candidate.get("finishMessage")
                self.finish_message = message if isinstance(message, str) else None
        block_reason = as_object(data.get("promptFeedback")).get("blockReason")
        if isinstance(block_reason, str):
            self.block_reason = block_reason
        usage = data.get("usageMetadata")
        if isinstance(usage, dict):
            self._usage(usage)

    def _part(self, part: Mapping[str, object]) -> None:
        signature = part.get("thoughtSignature")
        signature = signature if isinstance(signature, str) and signature else None
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._function_call(call, signature)
            return
        text = part.get("text")
        if not isinstance(text, str):
            if signature is not None:
                self._attach_signature(signature)
            return
        key = "thinking" if part.get("thought") is True else "text"
        builder = self.builder
        if self._current != key or not builder.is_open(key):
            if not text:
                # An empty part opens no block; its signature belongs to what came before it.
                if signature is not None:
                    self._attach_signature(signature)
                return
            if key == "thinking":
                builder.open_thinking(key)
            else:
                builder.open_text(key)
            self._current = key
        builder.append(key, text)
        if signature is not None:
            self._attach_signature(signature)

    def _attach_signature(self, signature: str) -> None:
        key = self._current
        if key is None or not self.builder.is_open(key):
            return
        if key == "thinking":
            self.builder.thinking_block(key)["thinkingSignature"] = signature
        else:
            self.builder.text_block(key)["textSignature"] = signature

    def _function_call(self, call: Mapping[str, object], signature: str | None) -> None:
        name = call.get("name")
        name = name if isinstance(name, str) else ""
        args = call.get("args")
        args = args if isinstance(args, dict) else {}
        provided = call.get("id")
        taken = {b["id"] for b in self.builder.output["content"] if b["type"] == "toolCall"}
        call_id = provided if isinstance(provided, str) and provided and provided not in taken else None
        key = ("tool", self._tool_index)
        self._tool_index += 1
        self.builder.open_tool_call(key, call_id or new_tool_call_id(name), name, thought_signature=signature)
        self._current = None
        self.builder.append(key, dumps_str(args))
        self.builder.close(key)

    def _usage(self, usage: Mapping[str, object]) -> None:
        def count(name: str) -> int:
            return as_count(usage.get(name)) or 0

        # Counts missing from a chunk keep their earlier value (intermediate chunks carry only
        # the prompt side).
        has_prompt = "promptTokenCount" in usage
        has_output = "candidatesTokenCount" in usage or "thoughtsTokenCount" in usage
        cached = count("cachedContentTokenCount")
        thoughts = count("thoughtsTokenCount")
        prompt = count("promptTokenCount") + count("toolUsePromptTokenCount")
        self.builder.set_usage(
            input=max(0, prompt - cached) if has_prompt else None,
            output=count("candidatesTokenCount") + thoughts if has_output else None,
            cache_read=cached if has_prompt else None,
            # A chunk without the count keeps an earlier one; the first usage always has one.
            reasoning=thoughts
            if "thoughtsTokenCount" in usage or "reasoning" not in self.builder.output["usage"]
            else None,
            total=count("totalTokenCount") or None,
        )

    def stop_reason(self) -> StopReason:
        """The Pi stop reason; sets ``errorMessage`` for blocked or failed responses."""
        output = self.builder.output
        if self.finish_reason is None:
            if self.block_reason is not None:
                output["errorMessage"] = f"The prompt was blocked by the provider (blockReason: {self.block_reason})"
                return "error"
            raise ConnectionError(STREAM_ENDED_EARLY)
        if self.finish_reason == "STOP":
            return "toolUse" if any(b["type"] == "toolCall" for b in output["content"]) else "stop"
        if self.finish_reason == "MAX_TOKENS":
            return "length"
        detail = f": {self.finish_message}" if self.finish_message else ""
        output["errorMessage"] = f"The provider stopped the response (finishReason: {self.finish_reason}){detail}"
        return "error"


# --- entry points -----------------------------------------------------------------------------


def _thinking_config(model: Model, options: StreamOptions) -> ThinkingConfig | None:
    if not model.get("reasoning") or not isinstance(options, GoogleStreamOptions):
        return None
    if options.thinking_config is not None:
        return options.thinking_config
    if options.thinking_enabled is None:
        return None
    if not options.thinking_enabled:
        return disabled_thinking_config(model)
    config: ThinkingConfig = {"includeThoughts": True}
    if options.thinking_level is not None:
        config["thinkingLevel"] = options.thinking_level
    elif options.thinking_budget is not None:
        config["thinkingBudget"] = options.thinking_budget
    return config


def request_url(model: Model) -> str:
    return join_url(model["baseUrl"], f"models/{model['id']}:streamGenerateContent?alt=sse")


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    auth = {"x-goog-api-key": options.api_key} if options.api_key else {}
    return merge_headers(
        {"content-type": "application/json", "accept": "text/event-stream"},
        auth,
        model.get("headers"),
        options.headers,
    )


def build_payload(model: Model, context: Context, options: StreamOptions) -> GenerateContentRequest:
    """The body before ``extra_body`` and the payload hook (``open_event_stream`` applies both)."""
    messages = transform_messages(context.get("messages", []), model, make_google_normalizer(model))
    return build_request(
        model,
        context,
        messages,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        thinking_config=_thinking_config(model, options),
        tool_choice=options.tool_choice if isinstance(options, GoogleStreamOptions) else None,
    )


async def read_gemini_events(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason:
    reader = _ChunkReader(builder)
    async for event in events:
        data = event.data.strip()
        if not data:
            continue
        try:
            chunk = loads(data)
        except ValueError as exc:
            raise ValueError(f"Malformed Gemini stream chunk: {data[:200]}") from exc
        reader.feed(chunk)
    return reader.stop_reason()


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options if options is not None else GoogleStreamOptions()

    def prepare() -> SSERequest:
        return SSERequest(
            request_url(model), request_headers(model, opts), build_payload(model, context, opts), format_google_error
        )

    return stream_sse_request(model, opts, prepare, read_gemini_events)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Map the unified ``reasoning`` level to ``thinkingConfig``."""
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, GoogleStreamOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    opts.thinking_config = simple_thinking_config(model, simple.reasoning, simple.thinking_budgets)
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
