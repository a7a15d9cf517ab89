"""``mistral-conversations``: Mistral's native chat endpoint (``POST {baseUrl}/v1/chat/completions``).

The wire is OpenAI-like SSE (``data: {chunk}`` lines, ending with ``data: [DONE]``) with Mistral's
own message format (see ``mistral_convert``). Reading rules:

* ``delta.content`` is a string or a list of parts: ``text`` parts and ``thinking`` parts whose
  ``thinking`` list holds text parts; empty deltas open nothing;
* a tool call usually arrives whole in one delta; calls stay open until the stream ends (text
  after them does not close them), and a missing id is derived from the call's index;
* ``finish_reason``: ``stop`` → stop, ``length``/``model_length`` → length, ``tool_calls`` →
  toolUse, ``error`` → a retryable error, anything else → ``Provider stopped with: <reason>``;
* usage comes in the chunk that has it; cached prompt tokens are split out of ``prompt_tokens``.

Errors read ``Mistral API error (<status>): <body>``. Thinking: models with a
``thinkingLevelMap`` get ``reasoning_effort``, other reasoning models ``prompt_mode: "reasoning"``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable, Mapping
from dataclasses import dataclass
from http import HTTPStatus

from pi_harness.ai.env_keys import AUTHENTICATED
from pi_harness.ai.http import merge_headers
from pi_harness.ai.json_values import JsonObject, as_count, as_list, as_object
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, resolve_cache_retention, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.providers.mistral_convert import build_messages, convert_tools, derive_tool_call_id
from pi_harness.ai.providers.option_fields import options_as
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import requested_level
from pi_harness.ai.types import Context, Model, StopReason

API = "mistral-conversations"
MAX_ERROR_BODY = 4000
NO_FINISH_REASON = "Mistral stream ended without a finish reason"
INVALID_EVENT = "Invalid Mistral streaming event"


@dataclass
class MistralOptions(StreamOptions):
    # ``prompt_mode`` ("reasoning" for Magistral-style thinking).
    prompt_mode: str | None = None
    # ``reasoning_effort`` for models with a thinking-level map.
    reasoning_effort: str | None = None
    # "auto", "none", "any", "required" or ``{"type": "function", "function": {"name": …}}``.
    tool_choice: str | JsonObject | None = None


def request_url(model: Model) -> str:
    return model["baseUrl"].rstrip("/") + "/v1/chat/completions"


def _caches(options: StreamOptions) -> bool:
    return resolve_cache_retention(options.cache_retention) != "none" and bool(options.session_id)


def build_request_body(model: Model, context: Context, options: MistralOptions) -> dict[str, object]:
    """The body before ``extra_body`` and the payload hook, keys in Pi's wire order."""
    body: dict[str, object] = {"model": model["id"], "stream": True, "messages": build_messages(model, context)}
    tools = context.get("tools")
    if tools:
        body["tools"] = convert_tools(tools)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.max_tokens is not None:
        body["max_tokens"] = options.max_tokens
    if options.tool_choice:
        choice = options.tool_choice
        if isinstance(choice, dict):
            name = as_object(choice.get("function")).get("name")
            choice = {"type": "function", "function": {"name": str(name or "")}}
        body["tool_choice"] = choice
    if options.reasoning_effort:
        body["reasoning_effort"] = options.reasoning_effort
    if options.prompt_mode:
        body["prompt_mode"] = options.prompt_mode
    if _caches(options):
        body["prompt_cache_key"] = options.session_id
    return body


def build_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    key = options.api_key if options.api_key and options.api_key != AUTHENTICATED else ""
    base = {"accept": "text/event-stream", "authorization": f"Bearer {key}", "content-type": "application/json"}
    headers = merge_headers(base, model.get("headers"), options.headers)
    if _caches(options) and not any(name.lower() == "x-affinity" for name in headers):
        headers["x-affinity"] = options.session_id or ""
    return headers


def format_error(status: int, body: str, _headers: Mapping[str, str]) -> str:
    text = body.strip()
    if not text:
        try:
            text = HTTPStatus(status).phrase
        except ValueError:
            text = f"Request failed with status {status}"
    elif len(text) > MAX_ERROR_BODY:
        text = f"{text[:MAX_ERROR_BODY]}... [truncated {len(text) - MAX_ERROR_BODY} chars]"
    return f"Mistral API error ({status}): {text}"


_STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "model_length": "length",
    "tool_calls": "toolUse",
}


class MistralStreamReader:
    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.stop_reason: StopReason | None = None
        self.finished = False  # a finish reason arrived
        self.done = False  # ``[DONE]``
        self._current: Hashable | None = None  # the open text/thinking block
        self._blocks = 0
        self._tool_keys: set[Hashable] = set()

    def feed(self, event: ServerSentEvent) -> None:
        data = event.data.strip()
        if not data:
            return
        if data == "[DONE]":
            self.done = True
            return
        chunk = loads(data)
        if not isinstance(chunk, dict) or not isinstance(chunk.get("choices"), list):
            raise ValueError(INVALID_EVENT)
        if not self.builder.output.get("responseId") and isinstance(chunk.get("id"), str) and chunk["id"]:
            self.builder.output["responseId"] = chunk["id"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage(usage)
        choices = chunk["choices"]
        if not choices or not isinstance(choices[0], dict):
            return
        choice = choices[0]
        reason = choice.get("finish_reason")
        if isinstance(reason, str):
            self._finish_reason(reason)
        delta = as_object(choice.get("delta"))
        content = delta.get("content")
        if content is not None:
            for item in [content] if isinstance(content, str) else as_list(content):
                self._content(item)
        for call in as_list(delta.get("tool_calls")):
            if isinstance(call, dict):
                self._tool_call(call)

    def _finish_reason(self, reason: str) -> None:
        self.finished = True
        self.builder.output["rawStopReason"] = reason
        mapped = _STOP_REASONS.get(reason)
        if mapped is not None:
            self.stop_reason = mapped
            return
        self.stop_reason = "error"
        # "server error" lets retry classification see Mistral's transient failures.
        detail = "error (server error)" if reason == "error" else reason
        self.builder.output["errorMessage"] = f"Provider stopped with: {detail}"

    def _content(self, item: object) -> None:
        if isinstance(item, str):
            self._append("text", item)
        elif isinstance(item, dict):
            if item.get("type") == "thinking":
                texts = (
                    str(part.get("text") or "") for part in as_list(item.get("thinking")) if isinstance(part, dict)
                )
                self._append("thinking", "".join(texts))
            elif item.get("type") == "text":
                self._append("text", str(item.get("text") or ""))

    def _append(self, kind: str, delta: str) -> None:
        if not delta:
            return
        if self._current is None or self.builder.open_kind(self._current) != kind:
            self._close_current()
            self._blocks += 1
            self._current = ("block", self._blocks)
            if kind == "text":
                self.builder.open_text(self._current)
            else:
                self.builder.open_thinking(self._current)
        self.builder.append(self._current, delta)

    def _close_current(self) -> None:
        if self._current is not None:
            self.builder.close(self._current)
            self._current = None

    def _tool_call(self, call: Mapping[str, object]) -> None:
        self._close_current()
        raw_id = call.get("id")
        index = call.get("index")
        call_id = (
            raw_id
            if isinstance(raw_id, str) and raw_id and raw_id != "null"
            else derive_tool_call_id(f"toolcall:{index if isinstance(index, int) else 0}")
        )
        key: Hashable = ("tool", index if isinstance(index, int) else call_id)
        function = as_object(call.get("function"))
        if key not in self._tool_keys:
            self._tool_keys.add(key)
            self.builder.open_tool_call(key, call_id, str(function.get("name") or ""))
        arguments = function.get("arguments")
        delta = arguments if isinstance(arguments, str) else dumps_str(arguments or {})
        self.builder.append(key, delta)

    def _usage(self, usage: Mapping[str, object]) -> None:
        prompt = as_count(usage.get("prompt_tokens")) or 0
        cached = _cached_tokens(usage)
        cached = min(prompt, max(0, cached))
        self.builder.set_usage(
            input=prompt - cached,
            output=as_count(usage.get("completion_tokens")) or 0,
            cache_read=cached,
            cache_write=0,
            total=as_count(usage.get("total_tokens")),
        )

    def result(self) -> StopReason | None:
        self._close_current()
        if not self.finished:
            raise ConnectionError(f"{NO_FINISH_REASON} (terminated)")
        return self.stop_reason


def _cached_tokens(usage: Mapping[str, object]) -> int:
    for container, field in (
        ("promptTokensDetails", "cachedTokens"),
        ("prompt_tokens_details", "cached_tokens"),
        ("promptTokenDetails", "cachedTokens"),
        ("prompt_token_details", "cached_tokens"),
    ):
        value = as_object(usage.get(container)).get(field)
        if value is not None:
            return as_count(value) or 0
    for field in ("numCachedTokens", "num_cached_tokens"):
        if usage.get(field) is not None:
            return as_count(usage.get(field)) or 0
    return 0


async def _read(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason | None:
    reader = MistralStreamReader(builder)
    async for event in events:
        reader.feed(event)
        if reader.done:
            break
    return reader.result()


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options_as(options, MistralOptions)

    def prepare() -> SSERequest:
        if not opts.api_key:
            raise ValueError(f"No API key for provider: {model['provider']}")
        return SSERequest(
            request_url(model), build_headers(model, opts), build_request_body(model, context, opts), format_error
        )

    # Tool calls stay open while text goes on, so blocks are closed by the reader, not by order.
    return stream_sse_request(model, opts, prepare, _read, sequential=False)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, MistralOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    level = requested_level(model, simple.reasoning)
    effort_map = model.get("thinkingLevelMap") if model.get("reasoning") else None
    if effort_map:
        opts.reasoning_effort = (effort_map.get(level) or "high") if level else effort_map.get("off")
    elif model.get("reasoning") and level:
        opts.prompt_mode = "reasoning"
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
