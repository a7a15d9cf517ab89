"""``openai-completions``: OpenAI Chat Completions and every server that imitates it
(OpenRouter, Groq, xAI, Cerebras, DeepSeek, z.ai, llama.cpp, Ollama, vLLM, LM Studio...).

``POST {baseUrl}/chat/completions`` with ``stream: true``; the SSE ``data:`` chunks are fed into
a ``MessageBuilder`` until ``data: [DONE]``. Request bodies are built in
``openai_completions_convert``, bent by the server's ``compat`` flags.
"""

from __future__ import annotations

import copy
import itertools
import os
from collections.abc import AsyncIterator, Hashable, Mapping
from dataclasses import dataclass

from pi_harness.ai.http import bearer_authorization, join_url, merge_headers
from pi_harness.ai.json_values import as_count, as_list, as_object
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.providers.openai_completions_compat import OpenAICompletionsCompat, resolve_compat
from pi_harness.ai.providers.openai_completions_convert import REASONING_FIELDS, build_request_body
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import SSERequest, stream_sse_request
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.text_tool_calls import recover_text_tool_calls
from pi_harness.ai.thinking import requested_level
from pi_harness.ai.types import Context, Model, StopReason

API = "openai-completions"


@dataclass
class OpenAICompletionsOptions(StreamOptions):
    # A thinking level (``minimal``…``max``); sent in the dialect of ``compat.thinkingFormat``
    # after ``thinkingLevelMap``/``reasoningEffortMap`` rename it. ``None`` = no reasoning option.
    reasoning_effort: str | None = None
    # ``"auto"``, ``"none"``, ``"required"`` or ``{"type": "function", "function": {"name": …}}``.
    tool_choice: str | Mapping[str, object] | None = None
    # Token budgets per level for ``thinkingTokenBudgetField`` and ``{"$var": "thinking.budget"}``.
    thinking_budgets: dict[str, int] | None = None


class ProviderStreamError(Exception):
    """The server reported a failure inside a 200 stream, or the stream was unusable."""


# --- errors -----------------------------------------------------------------------------------


# Longest error body quoted in an error message.
MAX_ERROR_BODY_CHARS = 4000


def format_openai_error(status: int, body: str, _headers: Mapping[str, str] | None = None) -> str:
    """The error text Pi shows for an HTTP error of an OpenAI-style API.

    The SDK's own message is ``"<status> <error.message>"``; when the body holds an error object
    that this message does not already quote, Pi shows ``"<status>: <the object as JSON>"``
    instead, so retry and overflow patterns see the provider's type and code. An
    OpenRouter-style ``error.metadata.raw`` (the upstream provider's own text) is appended on a
    line of its own unless already there.
    """
    text = body.strip()
    try:
        data = loads(text) if text else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return f"{status} {body}" if body else f"{status} status code (no body)"
    # Like the SDK: the body's ``error`` member, or the whole body when it has none.
    error = data["error"] if data.get("error") is not None else data
    message = f"{status} {_sdk_error_text(error)}"
    if isinstance(error, dict) and error:
        quoted = _truncate(dumps_str(error).strip(), MAX_ERROR_BODY_CHARS)
        if quoted not in message:
            message = f"{status}: {quoted}"
    raw = _raw_metadata(error)
    return f"{message}\n{raw}" if raw and raw not in message else message


def _sdk_error_text(error: object) -> str:
    message = as_object(error).get("message")
    if isinstance(message, str) and message:
        return message
    return dumps_str(message if message else error)


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... [truncated {len(text) - limit} chars]"


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        message = error.get("message")
        if isinstance(message, str):
            return message
        return dumps_str(message if message is not None else error)
    return error if isinstance(error, str) else dumps_str(error)


def _raw_metadata(error: object) -> str | None:
    raw = as_object(as_object(error).get("metadata")).get("raw")
    if raw is None or raw == "":
        return None
    return raw if isinstance(raw, str) else dumps_str(raw)


def stream_error_message(error: object) -> str:
    """An in-stream ``{"error": …}`` chunk: the message without a status, as the SDK raises it."""
    raw = _raw_metadata(error)
    message = _error_text(error)
    return f"{message}\n{raw}" if raw else message


# --- stop reasons and usage -------------------------------------------------------------------

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "content_filter": "error",
}


def map_stop_reason(native: str | None) -> StopReason:
    if native is None:
        return "stop"
    reason = _STOP_REASONS.get(native)
    if reason is None:
        raise ProviderStreamError(f"Unhandled stop reason: {native}")
    return reason


@dataclass(frozen=True, slots=True)
class UsageCounts:
    input: int
    output: int
    cache_read: int
    cache_write: int
    reasoning: int


def parse_usage(raw: Mapping[str, object]) -> UsageCounts:
    """Pi's usage from an OpenAI-style ``usage`` object.

    ``prompt_tokens`` includes cached tokens (and, at gateways in front of Anthropic, cache
    writes), so both are subtracted to get ``input``. ``output`` must include reasoning; most
    servers (OpenAI, DeepSeek, OpenRouter) already count it in ``completion_tokens`` while others
    (xAI) report it beside them. Pi 0.58.3 always added ``reasoning_tokens``, which double
    counts on OpenAI; here it is added only when the server evidently left it out: its
    ``total_tokens`` covers prompt + completion + reasoning, or, without a total, reasoning
    exceeds the completion count.
    """
    prompt = _int(raw.get("prompt_tokens"))
    completion = _int(raw.get("completion_tokens"))
    prompt_details = as_object(raw.get("prompt_tokens_details"))
    cached = prompt_details.get("cached_tokens")
    if cached is None:
        cached = raw.get("prompt_cache_hit_tokens")  # DeepSeek's older field
    cache_read = _int(cached)
    cache_write = _int(prompt_details.get("cache_write_tokens"))
    reasoning_raw = as_object(raw.get("completion_tokens_details")).get("reasoning_tokens")
    reasoning = _int(reasoning_raw)
    output = completion
    if reasoning:
        total = raw.get("total_tokens")
        if isinstance(total, int) and total > 0:
            excluded = total >= prompt + completion + reasoning
        else:
            excluded = reasoning > completion
        if excluded:
            output += reasoning
    return UsageCounts(
        input=max(0, prompt - cache_read - cache_write),
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=reasoning,
    )


def _int(value: object) -> int:
    return as_count(value) or 0


# --- the chunk reader -------------------------------------------------------------------------


class ChunkReader:
    """Feeds decoded ``chat.completion.chunk`` objects into the builder."""

    __slots__ = ("_counter", "_details", "_last_tool", "_tools", "builder", "done", "finish_reason", "saw_finish")

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.done = False
        self.finish_reason: str | None = None
        self.saw_finish = False
        # The call a fragment belongs to (its index, else its id) -> (builder key, id was invented).
        self._tools: dict[Hashable, tuple[Hashable, bool]] = {}
        self._last_tool: Hashable = None
        self._counter = itertools.count()
        self._details: dict[str, str] = {}  # tool call id -> encrypted reasoning detail (JSON)

    def feed(self, data: str) -> None:
        if data == "[DONE]":
            self.done = True
            return
        try:
            chunk = loads(data)
        except ValueError:
            raise ProviderStreamError(f"Could not parse stream chunk as JSON: {data[:200]}") from None
        if not isinstance(chunk, dict):
            raise ProviderStreamError(f"Unexpected stream chunk: {data[:200]}")
        fields: Mapping[str, object] = chunk
        error = fields.get("error")
        if error:
            raise ProviderStreamError(stream_error_message(error))
        output = self.builder.output
        response_id = fields.get("id")
        if "responseId" not in output and isinstance(response_id, str) and response_id:
            output["responseId"] = response_id
        usage = fields.get("usage")
        choices = as_list(fields.get("choices"))
        if choices:
            choice = as_object(choices[0])
            if usage is None:
                usage = choice.get("usage")  # Moonshot reports usage on the choice
            delta = choice.get("delta")
            if delta:
                self._delta(as_object(delta))
            finish = choice.get("finish_reason")
            if finish is not None:
                self.finish_reason = str(finish)
                self.builder.output["rawStopReason"] = self.finish_reason
                self.saw_finish = True
        if usage is None:
            usage = as_object(fields.get("x_groq")).get("usage")
        if usage:
            counts = parse_usage(as_object(usage))
            self.builder.set_usage(
                input=counts.input,
                output=counts.output,
                cache_read=counts.cache_read,
                cache_write=counts.cache_write,
                reasoning=counts.reasoning,
            )

    def _delta(self, delta: Mapping[str, object]) -> None:
        for name in REASONING_FIELDS:
            reasoning = delta.get(name)
            if reasoning and isinstance(reasoning, str):
                self.builder.thinking(reasoning, signature=name)
                break
        content = delta.get("content")
        if content and isinstance(content, str):
            self.builder.text(content)
        for call in as_list(delta.get("tool_calls")):
            self._tool_call(as_object(call))
        details = delta.get("reasoning_details")
        if details:
            self._reasoning_details(details)

    def _tool_call(self, call: Mapping[str, object]) -> None:
        builder = self.builder
        index = call.get("index")
        call_id = str(call.get("id") or "")
        function = as_object(call.get("function"))
        name = str(function.get("name") or "")
        arguments = function.get("arguments")
        slot: Hashable = index if isinstance(index, int) else ("id", call_id) if call_id else self._last_tool
        entry = self._tools.get(slot)
        key: Hashable = None
        if entry is not None:
            open_key, invented = entry
            if builder.is_open(open_key):
                block = builder.tool_call_block(open_key)
                if not call_id or call_id == block["id"]:
                    key = open_key
                elif invented:  # the server named the call after its first fragment
                    block["id"] = call_id
                    self._tools[slot] = (open_key, False)
                    self._attach_detail(call_id)
                    key = open_key
                # else: another call reusing the index (servers that number every call 0)
            elif not call_id and not name:
                return  # a late fragment of a call that is already closed cannot be reopened
        if key is None:
            key = ("tool", next(self._counter))
            builder.open_tool_call(key, call_id or f"call_{os.urandom(12).hex()}", name)
            self._tools[slot] = (key, not call_id)
            self._attach_detail(call_id)
        elif name and not builder.tool_call_block(key)["name"]:
            builder.tool_call_block(key)["name"] = name
        self._last_tool = slot
        # Every tool-call chunk is one ``toolcall_delta``, possibly with an empty fragment.
        builder.append(key, arguments if isinstance(arguments, str) else "")

    def _reasoning_details(self, details: object) -> None:
        for detail in as_list(details):
            if isinstance(detail, dict) and detail.get("type") == "reasoning.encrypted" and detail.get("id"):
                self._details[str(detail["id"])] = dumps_str(detail)
                self._attach_detail(str(detail["id"]))

    def _attach_detail(self, call_id: str) -> None:
        signature = self._details.get(call_id) if call_id else None
        if signature is None:
            return
        for block in self.builder.output["content"]:
            if block["type"] == "toolCall" and block["id"] == call_id:
                block["thoughtSignature"] = signature

    def stop_reason(self) -> StopReason:
        if not self.done and not self.saw_finish:
            raise ProviderStreamError("Stream terminated before the response was complete")
        reason = map_stop_reason(self.finish_reason)
        if reason == "stop" and any(b["type"] == "toolCall" for b in self.builder.output["content"]):
            reason = "toolUse"  # servers that say "stop" after emitting tool calls
        return reason


# --- entry points -----------------------------------------------------------------------------


def build_headers(model: Model, options: StreamOptions, compat: OpenAICompletionsCompat) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    affinity: dict[str, str] = {}
    session = options.session_id
    if compat["sendSessionAffinityHeaders"] and session:
        fmt = compat.get("sessionAffinityFormat", "openai")
        if fmt == "openrouter":
            affinity = {"x-session-id": session}
        else:
            affinity = {"session_id": session} if fmt == "openai" else {}
            affinity |= {"x-client-request-id": session, "x-session-affinity": session}
    auth = bearer_authorization(options.api_key)
    return merge_headers(headers, auth, affinity, model.get("headers"), options.headers)


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options if options is not None else OpenAICompletionsOptions()
    # The flags are a function of the model alone: resolved once for the body and the stream.
    compat = _compat_of(model)

    def prepare() -> SSERequest:
        # Read by name: options of another API that carry these fields are honoured too.
        body = build_request_body(
            model,
            context,
            opts,
            compat,
            reasoning_effort=getattr(opts, "reasoning_effort", None),
            tool_choice=getattr(opts, "tool_choice", None),
        )
        url = join_url(model["baseUrl"], "chat/completions")
        return SSERequest(url, build_headers(model, opts, compat), body, format_openai_error)

    # Blocks stay open until the response ends (or is aborted), then close in order, as Pi's do.
    events = stream_sse_request(model, opts, prepare, _read, sequential=False, end_blocks_on_abort=True)
    if compat.get("recoverTextToolCalls") is True:
        return recover_text_tool_calls(events, context)
    return events


# The last model's flags, with what they were resolved from (its explicit ``compat`` as a copy,
# so that a change made to it in place counts too): a session asks for the same model's on every
# request. The flags are only read by the request path.
_last_compat: tuple[tuple[object, ...], OpenAICompletionsCompat] | None = None


def _compat_of(model: Model) -> OpenAICompletionsCompat:
    global _last_compat
    explicit = model.get("compat")
    key = (model.get("provider"), model.get("baseUrl"), model.get("id"), explicit)
    last = _last_compat
    if last is not None and last[0] == key:
        return last[1]
    compat = resolve_compat(model)
    saved = (*key[:3], copy.deepcopy(explicit))
    _last_compat = (saved, compat)
    return compat


async def _read(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason:
    reader = ChunkReader(builder)
    async for event in events:
        reader.feed(event.data)
        if reader.done:
            break  # what a server sends after ``[DONE]`` is not read
    return reader.stop_reason()


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    """Map the unified ``reasoning`` level (clamped to the model) and default the output cap."""
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, OpenAICompletionsOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    # The level's name on the wire is chosen when the body is built (``reasoning_effort_value``).
    opts.reasoning_effort = requested_level(model, simple.reasoning)
    opts.thinking_budgets = simple.thinking_budgets
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
