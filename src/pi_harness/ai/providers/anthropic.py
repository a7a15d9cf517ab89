"""The ``anthropic-messages`` provider: Anthropic's Messages API over Server-Sent Events.

``POST {baseUrl}/v1/messages`` with ``x-api-key`` (or ``Authorization: Bearer`` for OAuth tokens
and GitHub Copilot) and ``anthropic-version: 2023-06-01``. The stream's content blocks are
addressed by their ``index`` and may interleave, so the builder runs non-sequentially. Usage is
taken at ``message_start`` (an aborted request keeps its input cost) and refreshed by every
``message_delta``. Request building lives in ``anthropic_convert``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import AsyncIterator, Hashable, Mapping

from pi_harness.ai.env_keys import ANTHROPIC_AUTH_TOKEN, AUTHENTICATED
from pi_harness.ai.http import ProviderHTTPError, join_url, merge_headers, open_event_stream
from pi_harness.ai.json_values import as_count, as_object
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder, now_ms
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.output_cap import budgeted_max_tokens, simple_max_tokens
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.providers.anthropic_convert import (
    REDACTED_THINKING_TEXT,
    AnthropicOptions,
    as_anthropic_options,
    build_request_body,
    has_native_max_effort,
    has_preferred_strict_tools,
    supports_adaptive_thinking,
    thinking_mode,
    uses_eager_tool_streaming,
)
from pi_harness.ai.providers.anthropic_wire import AnthropicEffort
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import CREDENTIAL_HEADERS
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import requested_level, thinking_budget
from pi_harness.ai.types import Context, Model, StopReason, ThinkingLevel

__all__ = [
    "PROVIDER",
    "AnthropicOptions",
    "format_anthropic_error",
    "is_oauth_token",
    "map_stop_reason",
    "stream_anthropic",
    "stream_simple_anthropic",
]

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
OAUTH_BETA = "oauth-2025-04-20"
STREAM_ENDED_EARLY = "Anthropic stream ended before message_stop"

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "pause_turn": "stop",  # a long server-side turn paused; resubmitting continues it
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}
_MESSAGE_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)
_EFFORT_BY_LEVEL: dict[str, AnthropicEffort] = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "max": "max",
}


class AnthropicStreamError(Exception):
    """An ``event: error`` frame inside an otherwise successful stream."""


# --- errors -----------------------------------------------------------------------------------


def format_anthropic_error(status: int, body: str, _headers: Mapping[str, str]) -> str:
    """``<status> <body>`` as the Anthropic SDK words it: the error JSON re-serialised compactly.

    Keeping the vendor's JSON (``{"type":"error","error":{"type":"overloaded_error",...}}``) means
    the overflow and retry classifiers see "prompt is too long", "overloaded", "rate_limit"...
    """
    text = body.strip()
    if not text:
        return f"{status} status code (no body)"
    try:
        parsed = loads(text)
    except ValueError:
        return f"{status} {text}"
    if isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
        return f"{status} {parsed['message']}"
    return f"{status} {dumps_str(parsed)}"


def _stream_error_message(data: str) -> str:
    try:
        parsed = loads(data)
    except ValueError:
        return data or "Anthropic stream error"
    if isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
        return str(parsed["message"])
    return dumps_str(parsed)


STREAM_ABORTED_MESSAGE = "This operation was aborted"


def map_stop_reason(reason: str) -> StopReason:
    mapped = _STOP_REASONS.get(reason)
    if mapped is None:
        raise ValueError(f"Unhandled stop reason: {reason}")
    return mapped


# --- headers ----------------------------------------------------------------------------------


def is_oauth_token(api_key: str) -> bool:
    return "sk-ant-oat" in api_key


def auth_token(model: Model, options: AnthropicOptions) -> str | None:
    """``ANTHROPIC_AUTH_TOKEN`` when the built-in ``anthropic`` provider has no key of its own."""
    if model["provider"] != "anthropic" or options.api_key not in (None, "", AUTHENTICATED):
        return None
    return (options.env or {}).get(ANTHROPIC_AUTH_TOKEN) or os.environ.get(ANTHROPIC_AUTH_TOKEN) or None


def build_headers(model: Model, context: Context, options: AnthropicOptions) -> dict[str, str]:
    token = auth_token(model, options)
    api_key = token or ("" if options.api_key == AUTHENTICATED else options.api_key or "")
    bearer = token is not None or is_oauth_token(api_key) or model["provider"] == "github-copilot"
    betas: list[str] = []
    if is_oauth_token(api_key):
        betas.append(OAUTH_BETA)
    if context.get("tools") and not uses_eager_tool_streaming(model):
        betas.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    # Adaptive models interleave thinking natively; budget-based ones need the beta.
    if options.interleaved_thinking and thinking_mode(model, options) == "enabled":
        betas.append(INTERLEAVED_THINKING_BETA)
    headers: dict[str, str] = {
        "content-type": "application/json",
        "accept": "application/json",
        "anthropic-version": ANTHROPIC_VERSION,
    }
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    # An empty key sends no credentials: the server answers 401, or a custom header authenticates.
    if api_key:
        if bearer:
            headers["authorization"] = f"Bearer {api_key}"
        else:
            headers["x-api-key"] = api_key
    return merge_headers(headers, model.get("headers"), options.headers)


# --- the stream -------------------------------------------------------------------------------


class _StreamState:
    """Feeds one response's Anthropic events into the builder, keyed by content-block index."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.stop_reason: StopReason | None = None
        self.saw_stop = False

    def handle(self, name: str, data: Mapping[str, object]) -> None:
        if name == "message_start":
            self._message_start(as_object(data.get("message")))
        elif name == "content_block_start":
            self._block_start(_index(data), as_object(data.get("content_block")))
        elif name == "content_block_delta":
            self._block_delta(_index(data), as_object(data.get("delta")))
        elif name == "content_block_stop":
            self.builder.close(_index(data))
        elif name == "message_delta":
            self._message_delta(data)
        elif name == "message_stop":
            self.saw_stop = True

    def _message_start(self, message: Mapping[str, object]) -> None:
        response_id = message.get("id")
        if isinstance(response_id, str):
            self.builder.output["responseId"] = response_id
        usage = as_object(message.get("usage"))
        cache_creation = usage.get("cache_creation")
        self.builder.set_usage(
            input=as_count(usage.get("input_tokens")) or 0,
            output=as_count(usage.get("output_tokens")) or 0,
            cache_read=as_count(usage.get("cache_read_input_tokens")) or 0,
            cache_write=as_count(usage.get("cache_creation_input_tokens")) or 0,
            cache_write_1h=as_count(as_object(cache_creation).get("ephemeral_1h_input_tokens")) or 0,
        )

    def _block_start(self, index: Hashable, block: Mapping[str, object]) -> None:
        kind = block.get("type")
        builder = self.builder
        if kind == "text":
            builder.open_text(index)
            if block.get("text"):
                builder.append(index, str(block["text"]))
        elif kind == "thinking":
            builder.open_thinking(index, signature=str(block.get("signature") or ""))
            if block.get("thinking"):
                builder.append(index, str(block["thinking"]))
        elif kind == "redacted_thinking":
            builder.open_thinking(index, signature=str(block.get("data") or ""), redacted=True)
            # The placeholder is the block's text, not streamed content: no delta event.
            builder.thinking_block(index)["thinking"] = REDACTED_THINKING_TEXT
        elif kind == "tool_use":
            arguments = block.get("input")
            builder.open_tool_call(
                index,
                str(block.get("id") or ""),
                str(block.get("name") or ""),
                arguments=arguments if isinstance(arguments, dict) else {},
            )
        # Server-side tool blocks (web search results...) are not part of Pi's content model.

    def _block_delta(self, index: Hashable, delta: Mapping[str, object]) -> None:
        builder = self.builder
        kind = builder.open_kind(index)
        if kind is None:
            return
        delta_type = delta.get("type")
        if delta_type == "text_delta" and kind == "text":
            builder.append(index, str(delta.get("text") or ""))
        elif delta_type == "thinking_delta" and kind == "thinking":
            builder.append(index, str(delta.get("thinking") or ""))
        elif delta_type == "signature_delta" and kind == "thinking":
            block = builder.thinking_block(index)
            block["thinkingSignature"] = block.get("thinkingSignature", "") + str(delta.get("signature") or "")
        elif delta_type == "input_json_delta" and kind == "toolCall":
            builder.append(index, str(delta.get("partial_json") or ""))

    def _message_delta(self, data: Mapping[str, object]) -> None:
        delta = as_object(data.get("delta"))
        reason = delta.get("stop_reason")
        if isinstance(reason, str):
            self.builder.output["rawStopReason"] = reason
            self.stop_reason = map_stop_reason(reason)
            if reason == "refusal":
                details = delta.get("stop_details") or data.get("stop_details")
                explanation = as_object(details).get("explanation")
                if isinstance(explanation, str) and explanation:
                    self.builder.output["errorMessage"] = explanation
        # Proxies omit fields they do not know: only values that are present overwrite.
        usage = as_object(data.get("usage"))
        cache_creation = as_object(usage.get("cache_creation"))
        output_details = as_object(usage.get("output_tokens_details"))
        self.builder.set_usage(
            input=as_count(usage.get("input_tokens")),
            output=as_count(usage.get("output_tokens")),
            cache_read=as_count(usage.get("cache_read_input_tokens")),
            cache_write=as_count(usage.get("cache_creation_input_tokens")),
            cache_write_1h=as_count(cache_creation.get("ephemeral_1h_input_tokens")),
            reasoning=as_count(output_details.get("thinking_tokens")),
        )


def _index(data: Mapping[str, object]) -> Hashable:
    """The content-block index an event addresses (``None`` when the event has none)."""
    index = data.get("index")
    return index if isinstance(index, Hashable) else None


async def _consume(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason | None:
    # An abort while the body streams interrupts the read itself, which Pi reports in the
    # words of the fetch API.
    builder.abort_message = STREAM_ABORTED_MESSAGE
    state = _StreamState(builder)
    async for sse in events:
        name = sse.event
        if name == "error":
            raise AnthropicStreamError(_stream_error_message(sse.data))
        if name == "message":  # a proxy that leaves out the ``event:`` line
            name = _event_type(sse.data)
        if name not in _MESSAGE_EVENTS:
            continue  # ping and event types this client does not know
        try:
            data = loads(sse.data)
        except ValueError as exc:
            raise ValueError(f"Malformed Anthropic stream event {name}: {exc}: {sse.data[:200]}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"Malformed Anthropic stream event {name}: {sse.data[:200]}")
        state.handle(name, data)
    if not state.saw_stop:
        raise ConnectionError(STREAM_ENDED_EARLY)
    return state.stop_reason


def _event_type(data: str) -> str:
    try:
        parsed = loads(data)
    except ValueError:
        return "message"
    kind = parsed.get("type") if isinstance(parsed, dict) else None
    if kind == "error":
        raise AnthropicStreamError(_stream_error_message(data))
    return kind if isinstance(kind, str) else "message"


# A 400 that says the strict tools were too much for the service (limits of its grammar
# compiler); the request is then sent again with the tools that only prefer strictness loose.
_STRICT_LIMIT_MESSAGES = (
    "The compiled grammar is too large",
    "Too many strict tools (",
    "Schemas contains too many parameters with union types (",
)


def refused_strict_tools(error: ProviderHTTPError) -> bool:
    """The service refused the request for the size of its strict tools."""
    if error.status != 400:
        return False
    try:
        detail = as_object(as_object(loads(error.body)).get("error"))
    except ValueError:
        return False
    message = detail.get("message")
    return (
        detail.get("type") == "invalid_request_error"
        and isinstance(message, str)
        and any(part in message for part in _STRICT_LIMIT_MESSAGES)
    )


def stream_anthropic(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one response; every failure arrives as the terminal ``error`` event.

    A request whose strict tools the service finds too many or too large is sent once more
    with the tools that only prefer strict sampling sent without it.
    """
    opts = as_anthropic_options(options)
    url = join_url(model["baseUrl"], "/v1/messages")

    async def run(builder: MessageBuilder) -> None:
        builder.add_secret(opts.api_key)
        builder.add_secret(auth_token(model, opts))
        current = opts
        while True:
            body = build_request_body(model, context, current)
            headers = build_headers(model, context, current)
            for name, value in headers.items():
                if name.lower() in CREDENTIAL_HEADERS:
                    builder.add_secret(value)
            may_loosen = not current.without_preferred_strict_tools and has_preferred_strict_tools(
                body.get("tools", []), context.get("tools") or []
            )
            try:
                async with open_event_stream(
                    url, headers=headers, body=body, model=model, options=current, format_error=format_anthropic_error
                ) as events:
                    builder.start()
                    stop_reason = await _consume(events, builder)
            except ProviderHTTPError as error:
                aborted = current.signal is not None and current.signal.aborted
                if aborted or not may_loosen or not refused_strict_tools(error):
                    raise
                current = dataclasses.replace(current, without_preferred_strict_tools=True)
                builder.output.setdefault("diagnostics", []).append(
                    {
                        "type": "anthropic_strict_tools_fallback",
                        "timestamp": now_ms(),
                        "error": {"message": builder.redact(str(error))},
                        "details": {"reason": "strict_tool_limits_exceeded"},
                    }
                )
                continue
            builder.finish(stop_reason)
            return

    return run_provider_stream(model, opts.signal, run, sequential=False)


# --- stream_simple ----------------------------------------------------------------------------


def map_thinking_level_to_effort(model: Model, level: ThinkingLevel) -> AnthropicEffort | str:
    """The model's ``thinkingLevelMap`` entry (sent verbatim), else Pi's mapping of the level."""
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    if level == "xhigh":
        return "max" if has_native_max_effort(model) else "high"
    return _EFFORT_BY_LEVEL.get(level, "high")


def simple_to_anthropic_options(
    model: Model, context: Context, options: SimpleStreamOptions | None
) -> AnthropicOptions:
    """Map the unified ``reasoning`` level to adaptive effort or a thinking budget."""
    simple = options if options is not None else SimpleStreamOptions()
    base = as_anthropic_options(simple)
    max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    level = requested_level(model, simple.reasoning)
    if level is None:
        return dataclasses.replace(base, max_tokens=max_tokens, thinking_enabled=False)
    if supports_adaptive_thinking(model):
        return dataclasses.replace(
            base,
            max_tokens=max_tokens,
            thinking_enabled=True,
            effort=map_thinking_level_to_effort(model, level),
        )
    budget = thinking_budget(level, simple.thinking_budgets)
    max_tokens, budget = budgeted_max_tokens(model, context, simple.max_tokens, budget)
    return dataclasses.replace(base, max_tokens=max_tokens, thinking_enabled=True, thinking_budget_tokens=budget)


def stream_simple_anthropic(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    return stream_anthropic(model, context, simple_to_anthropic_options(model, context, options))


PROVIDER = ApiProvider(api=API, stream=stream_anthropic, stream_simple=stream_simple_anthropic)
