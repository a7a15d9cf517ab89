"""``openai-responses``: the OpenAI Responses API (``POST {baseUrl}/responses``, streamed SSE).

Request rules: ``Authorization: Bearer <key>``; ``store: false``;
reasoning models get ``reasoning: {effort, summary}`` plus ``include:
["reasoning.encrypted_content"]`` so reasoning can be replayed statelessly; ``prompt_cache_key`` is
the session id unless caching is off, and long retention asks api.openai.com for ``24h``.
The stream is read by ``ResponsesStreamReader`` (``openai_responses_events``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from pi_harness.ai.http import bearer_authorization, default_error_message, join_url, merge_headers
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, resolve_cache_retention, shared_options
from pi_harness.ai.providers.openai_responses_convert import build_input, convert_tools, juice_off_message
from pi_harness.ai.providers.openai_responses_events import ResponsesStreamReader
from pi_harness.ai.providers.openai_responses_wire import ResponsesRequest
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import default_max_tokens, requested_level
from pi_harness.ai.types import Context, Model, StopReason, ThinkingLevel

API = "openai-responses"


@dataclass
class OpenAIResponsesOptions(StreamOptions):
    # ``reasoning.effort`` ("minimal" … "xhigh"); None leaves reasoning off.
    reasoning_effort: str | None = None
    # ``reasoning.summary`` ("auto", "concise", "detailed"); defaults to "auto" when reasoning is on.
    reasoning_summary: str | None = None
    # ``service_tier`` ("auto", "default", "flex", "priority"), passed through when set.
    service_tier: str | None = None


def build_request_body(model: Model, context: Context, options: StreamOptions) -> ResponsesRequest:
    """The body before ``extra_body`` and the payload hook (``open_event_stream`` applies both).

    The API-specific fields are read by name, so options of another API that carry them count.
    """
    input_items = build_input(model, context)
    body: ResponsesRequest = {"model": model["id"], "input": input_items, "stream": True, "store": False}
    retention = resolve_cache_retention(options.cache_retention)
    if retention != "none" and options.session_id:
        body["prompt_cache_key"] = options.session_id
    if retention == "long" and "api.openai.com" in model["baseUrl"] and not options.disable_cache_writes:
        body["prompt_cache_retention"] = "24h"
    if options.max_tokens:
        body["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tier = getattr(options, "service_tier", None)
    if tier:
        body["service_tier"] = tier
    tools = context.get("tools")
    if tools:
        # Strict tools only where models.json says the server takes them, as in Pi.
        strict = (model.get("compat") or {}).get("supportsStrictMode") is True
        body["tools"] = convert_tools(tools, supports_strict=strict)
    if model.get("reasoning"):
        effort = getattr(options, "reasoning_effort", None)
        summary = getattr(options, "reasoning_summary", None)
        if effort or summary:
            body["reasoning"] = {"effort": effort or "medium", "summary": summary or "auto"}
            body["include"] = ["reasoning.encrypted_content"]
        elif model["name"].startswith("gpt-5"):
            input_items.append(juice_off_message())
    return body


def build_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    base = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    return merge_headers(base, bearer_authorization(options.api_key), model.get("headers"), options.headers)


def format_error(status: int, body: str, headers: Mapping[str, str]) -> str:
    """``<status> <error.message>`` like OpenAI's SDK; an error object without a message is shown as JSON."""
    try:
        data = loads(body) if body.strip() else None
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict) and not data["error"].get("message"):
        return f"{status} {dumps_str(data['error'])}"
    return default_error_message(status, body, headers)


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options if options is not None else OpenAIResponsesOptions()

    def prepare() -> SSERequest:
        return SSERequest(
            join_url(model["baseUrl"], "responses"),
            build_headers(model, opts),
            build_request_body(model, context, opts),
            format_error,
        )

    return stream_sse_request(model, opts, prepare, _read)


async def _read(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason | None:
    reader = ResponsesStreamReader(builder)
    async for event in events:
        reader.feed(event)
        if reader.terminated:
            break
    return reader.result()


def reasoning_effort_for(model: Model, level: ThinkingLevel | None) -> str | None:
    """The ``reasoning.effort`` for a thinking level, clamped to the model; None = reasoning off."""
    clamped = requested_level(model, level)
    if clamped is None:
        return None
    mapped = (model.get("thinkingLevelMap") or {}).get(clamped)
    return mapped if mapped is not None else clamped


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, OpenAIResponsesOptions)
    opts.max_tokens = simple.max_tokens or default_max_tokens(model)
    opts.reasoning_effort = reasoning_effort_for(model, simple.reasoning)
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
