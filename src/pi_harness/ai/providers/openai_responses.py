"""``openai-responses``: the OpenAI Responses API (``POST {baseUrl}/responses``, streamed SSE).

Request rules: ``Authorization: Bearer <key>``; ``store: false``;
reasoning models get ``reasoning: {effort, summary}`` plus ``include:
["reasoning.encrypted_content"]`` so reasoning can be replayed statelessly, or ``reasoning: {effort:
"none"}`` when thinking is off; ``prompt_cache_key`` is the session id unless caching is off, and
long retention asks for ``24h`` (models.json compat can say a server keeps no long caches).
The stream is read by ``ResponsesStreamReader`` (``openai_responses_events``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from pi_harness.ai.http import bearer_authorization, default_error_message, join_url, merge_headers
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, resolve_cache_retention, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.providers.openai_responses_convert import build_input, convert_tools
from pi_harness.ai.providers.openai_responses_events import ResponsesStreamReader
from pi_harness.ai.providers.openai_responses_wire import ResponsesRequest
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import requested_level
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


# OpenAI's limits: ``prompt_cache_key`` length, smallest ``max_output_tokens``.
PROMPT_CACHE_KEY_MAX = 64
MIN_OUTPUT_TOKENS = 16


def _compat_flag(model: Model, name: str, default: bool) -> bool:
    value = (model.get("compat") or {}).get(name)
    return value if isinstance(value, bool) else default


def build_request_body(model: Model, context: Context, options: StreamOptions) -> ResponsesRequest:
    """The body before ``extra_body`` and the payload hook (``open_event_stream`` applies both).

    The API-specific fields are read by name, so options of another API that carry them count.
    """
    input_items = build_input(model, context)
    body: ResponsesRequest = {"model": model["id"], "input": input_items, "stream": True, "store": False}
    retention = resolve_cache_retention(options.cache_retention)
    if retention != "none" and options.session_id:
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_MAX]
    keeps_long = retention == "long" and _compat_flag(model, "supportsLongCacheRetention", True)
    if _compat_flag(model, "supportsExplicitPromptCacheMode", False):
        # Servers with explicit cache control take options instead of a retention.
        if retention == "none":
            body["prompt_cache_options"] = {"mode": "explicit"}
        elif keeps_long:
            body["prompt_cache_options"] = {"ttl": "30m"}
    elif keeps_long and not options.disable_cache_writes:
        body["prompt_cache_retention"] = "24h"
    if options.max_tokens and _compat_flag(model, "supportsMaxOutputTokens", True):
        body["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tier = getattr(options, "service_tier", None)
    if tier:
        body["service_tier"] = tier
    tools = context.get("tools")
    if tools:
        # Strict tools only where models.json says the server takes them, as in Pi.
        body["tools"] = convert_tools(tools, supports_strict=_compat_flag(model, "supportsStrictMode", False))
    if model.get("reasoning"):
        _apply_reasoning(body, model, options)
    return body


def _apply_reasoning(body: ResponsesRequest, model: Model, options: StreamOptions) -> None:
    summary = getattr(options, "reasoning_summary", None)
    effort = getattr(options, "reasoning_effort", None) or ("medium" if summary else None)
    level_map = model.get("thinkingLevelMap") or {}
    if effort:
        body["reasoning"] = {"effort": effort, "summary": summary or "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    elif model.get("provider") != "github-copilot" and not ("off" in level_map and level_map["off"] is None):
        # Reasoning models reason unless told not to: "off" is said (the map's name for it, or "none").
        off = level_map.get("off")
        body["reasoning"] = {"effort": off if isinstance(off, str) else "none"}
    if model.get("provider") == "xai":
        body["include"] = ["reasoning.encrypted_content"]


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
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    opts.reasoning_effort = reasoning_effort_for(model, simple.reasoning)
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
