"""``bedrock-converse-stream``: Amazon Bedrock's Converse API, streamed (``ConverseStream``).

``POST {endpoint}/model/{modelId}/converse-stream`` with a JSON body (``bedrock_convert``), signed
with SigV4 or a bearer token (``bedrock_auth``). The answer is AWS event-stream framing
(``aws_eventstream``), one JSON payload per message:

* ``messageStart``; ``contentBlockDelta`` with ``text`` (no start event: the first delta opens
  the block), ``toolUse.input`` fragments (after ``contentBlockStart.start.toolUse``), or
  ``reasoningContent`` (``text``, ``signature``, ``redactedContent``); ``contentBlockStop``;
* ``messageStop.stopReason``: ``end_turn``/``stop_sequence`` → stop, ``max_tokens`` /
  ``model_context_window_exceeded`` → length, ``tool_use`` → toolUse, else an error;
* ``metadata.usage`` (``inputTokens`` excludes cached tokens);
* exception messages (``:message-type: exception``) end the stream with an error.

Error texts carry Pi's prefix per exception (``Validation error: …``, ``Throttling error: …``,
``Internal server error: …``, ``Service unavailable: …``, ``Model stream error: …``), other
exceptions their name (``AccessDeniedException: …``).
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from pi_harness.ai.env_keys import AUTHENTICATED
from pi_harness.ai.http import apply_payload_hook, merge_headers, post_stream
from pi_harness.ai.json_values import JsonObject, as_count, as_object
from pi_harness.ai.jsonutil import dumps, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, resolve_cache_retention, shared_options
from pi_harness.ai.output_cap import budgeted_max_tokens, simple_max_tokens
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.providers import bedrock_auth
from pi_harness.ai.providers.aws_eventstream import EventMessage, EventStreamDecoder
from pi_harness.ai.providers.bedrock_convert import (
    additional_fields,
    build_messages,
    build_system,
    build_tool_config,
    is_claude,
    supports_adaptive_thinking,
)
from pi_harness.ai.providers.option_fields import options_as
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import requested_level, thinking_budget
from pi_harness.ai.types import Context, Model, StopReason

API = "bedrock-converse-stream"
REDACTED_PLACEHOLDER = "[Reasoning redacted]"
NO_STOP_REASON = "Bedrock stream ended without a stop reason (terminated)"
DATA_RETENTION_DOCS = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"
# Pi's wording per exception; retry and overflow classification match on these.
ERROR_PREFIXES = {
    "InternalServerException": "Internal server error",
    "ModelStreamErrorException": "Model stream error",
    "ValidationException": "Validation error",
    "ThrottlingException": "Throttling error",
    "ServiceUnavailableException": "Service unavailable",
}
_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}


@dataclass
class BedrockOptions(StreamOptions):
    region: str | None = None
    profile: str | None = None
    bearer_token: str | None = None
    # The unified thinking level and budgets (``stream_simple`` fills them in).
    reasoning: str | None = None
    thinking_budgets: dict[str, int] | None = None
    tool_choice: str | JsonObject | None = None


class BedrockError(Exception):
    """A Bedrock exception, from an HTTP error or an exception event; ``str()`` is Pi's text."""


def exception_text(name: str, message: str) -> str:
    prefix = ERROR_PREFIXES.get(name, name)
    hint = (
        f" See {DATA_RETENTION_DOCS} for supported data retention modes."
        if "data retention mode" in message.lower()
        else ""
    )
    return f"{prefix}: {message}{hint}"


def format_error(status: int, body: str, headers: Mapping[str, str]) -> str:
    """The exception named by ``x-amzn-errortype`` (or the body's ``__type``) and its message."""
    try:
        data = loads(body) if body.strip() else None
    except ValueError:
        data = None
    payload = data if isinstance(data, dict) else {}
    name = (headers.get("x-amzn-errortype") or "").split(":", 1)[0]
    if not name:
        raw_type = payload.get("__type") or payload.get("code")
        name = str(raw_type).rsplit("#", 1)[-1] if raw_type else ""
    message = payload.get("message") or payload.get("Message")
    if name and isinstance(message, str):
        return exception_text(name, message)
    text = body.strip()
    core = f"{status}: {text}" if text else f"{status} status code (no body)"
    return exception_text(name or "UnknownError", core)


def build_request_body(model: Model, context: Context, options: BedrockOptions) -> dict[str, object]:
    retention = resolve_cache_retention(options.cache_retention)
    body: dict[str, object] = {"messages": build_messages(model, context, retention)}
    system = build_system(model, context.get("systemPrompt"), retention)
    if system is not None:
        body["system"] = system
    inference: JsonObject = {}
    max_tokens = (
        options.max_tokens if options.max_tokens is not None else (model["maxTokens"] if is_claude(model) else None)
    )
    if max_tokens is not None:
        inference["maxTokens"] = max_tokens
    if options.temperature is not None:
        inference["temperature"] = options.temperature
    body["inferenceConfig"] = inference
    tool_config = build_tool_config(context.get("tools"), options.tool_choice)
    if tool_config is not None:
        body["toolConfig"] = tool_config
    region = bedrock_auth.configured_region(options.region) or ""
    gov_cloud = region.lower().startswith("us-gov-") or model["id"].lower().startswith(("us-gov.", "arn:aws-us-gov:"))
    fields = additional_fields(model, options.reasoning, options.thinking_budgets, gov_cloud=gov_cloud)
    if fields is not None:
        body["additionalModelRequestFields"] = fields
    return body


class ConverseStreamReader:
    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.stop_reason: StopReason | None = None
        self.stopped = False
        self._redacted: dict[int, list[bytes]] = {}

    def feed(self, message: EventMessage) -> None:
        try:
            data = loads(message.payload) if message.payload else {}
        except ValueError:
            raise ValueError(f"Malformed Bedrock event payload: {message.payload[:200]!r}") from None
        payload = as_object(data)
        kind = message.event_type
        if message.message_type in {"exception", "error"}:
            name = kind[:1].upper() + kind[1:] if kind else message.headers.get(":error-code", "UnknownError")
            text = payload.get("message") or payload.get("Message") or message.headers.get(":error-message", "")
            raise BedrockError(exception_text(name, str(text)))
        if kind == "messageStart":
            self.builder.start()
        elif kind == "contentBlockStart":
            self._block_start(payload)
        elif kind == "contentBlockDelta":
            self._block_delta(payload)
        elif kind == "contentBlockStop":
            self._block_stop(payload)
        elif kind == "messageStop":
            self._message_stop(str(payload.get("stopReason") or ""))
        elif kind == "metadata":
            self._metadata(as_object(payload.get("usage")))

    def _block_start(self, payload: Mapping[str, object]) -> None:
        tool_use = as_object(as_object(payload.get("start")).get("toolUse"))
        index = payload.get("contentBlockIndex")
        if tool_use and isinstance(index, int):
            self.builder.open_tool_call(index, str(tool_use.get("toolUseId") or ""), str(tool_use.get("name") or ""))

    def _block_delta(self, payload: Mapping[str, object]) -> None:
        index = payload.get("contentBlockIndex")
        if not isinstance(index, int):
            return
        delta = as_object(payload.get("delta"))
        kind = self.builder.open_kind(index)
        if isinstance(delta.get("text"), str):
            if kind is None:
                self.builder.open_text(index)
                kind = "text"
            if kind == "text":
                self.builder.append(index, str(delta["text"]))
        elif "toolUse" in delta and kind == "toolCall":
            self.builder.append(index, str(as_object(delta.get("toolUse")).get("input") or ""))
        elif "reasoningContent" in delta:
            self._reasoning(index, kind, as_object(delta.get("reasoningContent")))

    def _reasoning(self, index: int, kind: str | None, reasoning: Mapping[str, object]) -> None:
        if kind is None:
            self.builder.open_thinking(index, signature="")
        elif kind != "thinking":
            return
        block = self.builder.thinking_block(index)
        text = reasoning.get("text")
        if isinstance(text, str) and text:
            self.builder.append(index, text)
        signature = reasoning.get("signature")
        if isinstance(signature, str) and signature and not block.get("redacted"):
            block["thinkingSignature"] = (block.get("thinkingSignature") or "") + signature
        redacted = reasoning.get("redactedContent")
        if isinstance(redacted, str) and redacted:
            if not block.get("redacted"):
                block["redacted"] = True
                block["thinkingSignature"] = ""
                self.builder.append(index, REDACTED_PLACEHOLDER)
            self._redacted.setdefault(index, []).append(base64.b64decode(redacted))

    def _flush_redacted(self, index: int) -> None:
        chunks = self._redacted.pop(index, None)
        if chunks and self.builder.open_kind(index) == "thinking":
            self.builder.thinking_block(index)["thinkingSignature"] = base64.b64encode(b"".join(chunks)).decode()

    def _block_stop(self, payload: Mapping[str, object]) -> None:
        index = payload.get("contentBlockIndex")
        if isinstance(index, int):
            self._flush_redacted(index)
            self.builder.close(index)

    def _message_stop(self, reason: str) -> None:
        self.stopped = True
        self.builder.output["rawStopReason"] = reason
        mapped = _STOP_REASONS.get(reason)
        if mapped is None:
            self.stop_reason = "error"
            if reason:
                self.builder.output["errorMessage"] = f"Provider stopped with: {reason}"
        else:
            self.stop_reason = mapped

    def _metadata(self, usage: Mapping[str, object]) -> None:
        if not usage:
            return
        input_tokens = as_count(usage.get("inputTokens")) or 0
        output_tokens = as_count(usage.get("outputTokens")) or 0
        self.builder.set_usage(
            input=input_tokens,
            output=output_tokens,
            cache_read=as_count(usage.get("cacheReadInputTokens")) or 0,
            cache_write=as_count(usage.get("cacheWriteInputTokens")) or 0,
            total=as_count(usage.get("totalTokens")) or None,
        )

    def result(self) -> StopReason | None:
        for index in list(self._redacted):
            self._flush_redacted(index)
        if not self.stopped:
            raise ConnectionError(NO_STOP_REASON)
        return self.stop_reason


async def _prepare(model: Model, context: Context, options: BedrockOptions) -> tuple[str, dict[str, str], bytes]:
    body = build_request_body(model, context, options)
    payload = await apply_payload_hook(options, {**body, **options.extra_body}, model)
    encoded = dumps(payload)
    profile = options.profile or os.environ.get("AWS_PROFILE") or None
    region = bedrock_auth.resolve_region(model, options.region)
    if region is None:
        region = await asyncio.to_thread(bedrock_auth.profile_region, profile)
    url = bedrock_auth.request_url(model, region, options.region)
    base = {"Content-Type": "application/json", "Accept": "application/vnd.amazon.eventstream"}
    headers = merge_headers(base, model.get("headers"), options.headers)
    token = bedrock_auth.bearer_token(options.api_key, options.bearer_token)
    if token is not None:
        return url, {**headers, "Authorization": f"Bearer {token}"}, encoded
    signed, _region = await bedrock_auth.sign(url, encoded, headers, region, profile)
    return url, signed, encoded


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options_as(options, BedrockOptions)

    async def run(builder: MessageBuilder) -> None:
        if opts.api_key and opts.api_key != AUTHENTICATED:
            builder.add_secret(opts.api_key)
        url, headers, body = await _prepare(model, context, opts)
        for name in ("Authorization", "X-Amz-Security-Token"):
            builder.add_secret(headers.get(name))
        reader = ConverseStreamReader(builder)
        decoder = EventStreamDecoder()
        async with post_stream(url, headers=headers, body=body, options=opts, format_error=format_error) as response:
            async for chunk in _chunks(response.aiter_bytes()):
                for message in decoder.feed(chunk):
                    reader.feed(message)
        builder.finish(reader.result())

    # Blocks are closed by contentBlockStop, so several may be open at once.
    return run_provider_stream(model, opts.signal, run, sequential=False)


async def _chunks(source: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    from pi_harness.ai.http import transport_error_message
    from pi_harness.ai.http_transport import transport_errors

    try:
        async for chunk in source:
            yield chunk
    except transport_errors() as exc:
        raise ConnectionError(transport_error_message(exc)) from exc


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, BedrockOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    level = requested_level(model, simple.reasoning)
    opts.reasoning = level
    opts.thinking_budgets = simple.thinking_budgets
    if level is not None and is_claude(model) and not supports_adaptive_thinking(model):
        # Budget-based Claude: the thinking budget must fit inside max_tokens with room to answer.
        budget_level = "high" if level in ("xhigh", "max") else level
        budget = thinking_budget(budget_level, simple.thinking_budgets)
        opts.max_tokens, budget = budgeted_max_tokens(model, context, simple.max_tokens, budget)
        opts.thinking_budgets = {**(simple.thinking_budgets or {}), budget_level: budget}
    return stream(model, context, opts)


# AWS credentials come from botocore's chain, so a missing key is not an error up front.
PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple, requires_api_key=False)
