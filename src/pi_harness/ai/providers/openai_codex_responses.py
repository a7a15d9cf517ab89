"""``openai-codex-responses``: the Responses API as the Codex backend serves it.

``POST {baseUrl}/codex/responses`` (``baseUrl`` defaults to ``https://chatgpt.com/backend-api``;
one already ending in ``/codex`` or ``/codex/responses`` is used as it is), streamed SSE. The
token is supplied by the user (``api_key``): a JWT whose ``https://api.openai.com/auth`` claim
holds ``chatgpt_account_id``, sent back as the ``chatgpt-account-id`` header. Signing in to get
such a token is not part of this module.

Differences from ``openai-responses`` (the conversion and event reading are shared):

* headers ``originator: pi``, ``OpenAI-Beta: responses=experimental`` and, with a session id,
  ``session-id`` / ``x-client-request-id``;
* the system prompt goes in ``instructions`` (never empty), not in ``input``; ``text.verbosity``,
  ``include``, ``tool_choice`` and ``parallel_tool_calls`` are always sent; tools carry
  ``strict: null``;
* ``error`` events read ``Codex error: <message>``; ``response.done`` ends a stream like
  ``response.completed``; a ``flex``/``priority`` service tier scales the cost;
* HTTP errors are the service's ``error.message`` (no status prefix), and a 429 or usage-limit
  code reads ``You have hit your ChatGPT usage limit (<plan> plan). Try again in ~N min.``

Transports (``options.transport``, settings ``transport``): ``sse`` posts the request and reads
Server-Sent Events; ``websocket``, ``websocket-cached`` and ``auto`` (the default, as in Pi) first try
the WebSocket route (``codex_websocket``) and fall back to SSE when it fails before the first
event. The SSE body is sent zstd-compressed (``Content-Encoding: zstd``, which the backend
decodes) when a zstd codec is importable (``compression.zstd`` or ``zstandard``).
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Mapping
from dataclasses import dataclass

from pi_harness.ai.http import apply_payload_hook, merge_headers, open_encoded_event_stream
from pi_harness.ai.json_values import JsonObject, as_object
from pi_harness.ai.jsonutil import dumps, dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions, resolve_cache_retention, shared_options
from pi_harness.ai.output_cap import simple_max_tokens
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.providers import codex_transport
from pi_harness.ai.providers.codex_websocket import CodexApiError, CodexProtocolError
from pi_harness.ai.providers.openai_responses import OpenAIResponsesOptions
from pi_harness.ai.providers.openai_responses_convert import build_input, convert_tools
from pi_harness.ai.providers.openai_responses_events import ResponsesStreamReader
from pi_harness.ai.providers.option_fields import options_as
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.sse_provider import CREDENTIAL_HEADERS, announced_events
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.thinking import requested_level
from pi_harness.ai.types import Context, Model, StopReason

API = "openai-codex-responses"
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
JWT_CLAIM = "https://api.openai.com/auth"
DEFAULT_INSTRUCTIONS = "You are a helpful assistant."
ACCOUNT_ID_ERROR = "Failed to extract accountId from token"
PROMPT_CACHE_KEY_MAX = 64
_USAGE_LIMIT_CODES = ("usage_limit_reached", "usage_not_included", "rate_limit_exceeded")
_TERMINAL = frozenset({"response.done", "response.completed", "response.incomplete"})
_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled", "queued", "in_progress"})


@dataclass
class OpenAICodexResponsesOptions(OpenAIResponsesOptions):
    # ``text.verbosity``: "low" (default), "medium" or "high".
    text_verbosity: str | None = None
    tool_choice: str | JsonObject | None = None


def resolve_url(base_url: str | None) -> str:
    raw = base_url if base_url and base_url.strip() else DEFAULT_BASE_URL
    normalized = raw.rstrip("/")
    if normalized.endswith("/codex/responses"):
        return normalized
    if normalized.endswith("/codex"):
        return f"{normalized}/responses"
    return f"{normalized}/codex/responses"


def account_id(token: str) -> str:
    """The ChatGPT account id inside the token's JWT payload."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError(ACCOUNT_ID_ERROR)
    try:
        payload = loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):
        raise ValueError(ACCOUNT_ID_ERROR) from None
    found = as_object(as_object(payload).get(JWT_CLAIM)).get("chatgpt_account_id")
    if not isinstance(found, str) or not found:
        raise ValueError(ACCOUNT_ID_ERROR)
    return found


def session_key(options: StreamOptions) -> str | None:
    if resolve_cache_retention(options.cache_retention) == "none" or not options.session_id:
        return None
    return options.session_id[:PROMPT_CACHE_KEY_MAX]


def build_request_body(model: Model, context: Context, options: OpenAICodexResponsesOptions) -> dict[str, object]:
    """The body before ``extra_body`` and the payload hook; keys in Pi's order."""
    without_system: Context = {**context, "systemPrompt": ""}
    body: dict[str, object] = {
        "model": model["id"],
        "store": False,
        "stream": True,
        "instructions": context.get("systemPrompt") or DEFAULT_INSTRUCTIONS,
        "input": build_input(model, without_system),
        "text": {"verbosity": options.text_verbosity or "low"},
        "include": ["reasoning.encrypted_content"],
    }
    key = session_key(options)
    if key is not None:
        body["prompt_cache_key"] = key
    body["tool_choice"] = options.tool_choice if options.tool_choice is not None else "auto"
    body["parallel_tool_calls"] = True
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.service_tier is not None:
        body["service_tier"] = options.service_tier
    tools = context.get("tools")
    if tools:
        strict_supported = (model.get("compat") or {}).get("supportsStrictMode") is not False
        converted: list[dict[str, object]] = []
        for tool in convert_tools(tools, supports_strict=strict_supported):
            entry: dict[str, object] = dict(tool)
            if strict_supported and entry.get("strict") is not True:
                # Codex's default is no preference (null) rather than false; a tool that asks
                # for strict sampling keeps true and its strict schema.
                entry["strict"] = None
            converted.append(entry)
        body["tools"] = converted
    _reasoning(model, options, body)
    return body


def _reasoning(model: Model, options: OpenAICodexResponsesOptions, body: dict[str, object]) -> None:
    level_map = model.get("thinkingLevelMap") or {}
    effort: str | None
    if options.reasoning_effort is not None:
        if options.reasoning_effort == "none":
            effort = level_map.get("off", "none")
        else:
            mapped = level_map.get(options.reasoning_effort)
            effort = mapped if mapped is not None else options.reasoning_effort
        if effort is not None:
            body["reasoning"] = {"effort": effort, "summary": options.reasoning_summary or "auto"}
    elif model.get("reasoning") and ("off" not in level_map or level_map["off"] is not None):
        body["reasoning"] = {"effort": level_map.get("off") or "none"}


def build_headers(model: Model, options: StreamOptions, token: str, session: str | None) -> dict[str, str]:
    fixed = {
        "Authorization": f"Bearer {token}",
        "chatgpt-account-id": account_id(token),
        "OpenAI-Beta": "responses=experimental",
        "accept": "text/event-stream",
        "content-type": "application/json",
    }
    if session:
        fixed["session-id"] = session
        fixed["x-client-request-id"] = session
    return merge_headers({"originator": "pi"}, model.get("headers"), options.headers, fixed)


def format_error(status: int, body: str, _headers: Mapping[str, str]) -> str:
    """The service's ``error.message``, the usage-limit sentence for quota codes and 429s, else the raw body."""
    message = body or f"{status} status code (no body)"
    try:
        parsed = loads(body) if body.strip() else None
    except ValueError:
        return message
    error = as_object(parsed).get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict) or not error:
        return message
    code = str(error.get("code") or error.get("type") or "")
    if status == 429 or any(known in code.lower() for known in _USAGE_LIMIT_CODES):
        plan_type = error.get("plan_type")
        plan = f" ({plan_type.lower()} plan)" if isinstance(plan_type, str) and plan_type else ""
        resets_at = error.get("resets_at")
        when = ""
        if isinstance(resets_at, int | float):
            when = f" Try again in ~{max(0, round((resets_at - time.time()) / 60))} min."
        return f"You have hit your ChatGPT usage limit{plan}.{when}"
    text = error.get("message")
    return text if isinstance(text, str) and text else message


_TIER_MULTIPLIERS = {"flex": 0.5, "priority": 2.0}


def _tier_multiplier(model: Model, tier: str | None) -> float:
    if tier == "priority" and model["id"] == "gpt-5.5":
        return 2.5
    return _TIER_MULTIPLIERS.get(tier or "", 1.0)


class CodexStreamReader:
    """Codex's events mapped onto the Responses reader (see the module docstring)."""

    def __init__(self, builder: MessageBuilder, requested_tier: str | None) -> None:
        self.reader = ResponsesStreamReader(builder)
        self.builder = builder
        self.requested_tier = requested_tier
        self.terminated = False

    def feed(self, event: ServerSentEvent) -> None:
        if not event.data or event.data == "[DONE]":
            return
        try:
            data = loads(event.data)
        except ValueError:
            raise CodexProtocolError(f"Invalid Codex SSE JSON: {event.data[:200]}") from None
        if isinstance(data, dict):
            self.feed_object(data)

    @staticmethod
    def check(data: JsonObject) -> None:
        """Raise the service's error for an ``error`` or ``response.failed`` event."""
        kind = data.get("type")
        if kind == "error":
            nested = as_object(data.get("error"))
            message = data.get("message") if isinstance(data.get("message"), str) else nested.get("message")
            code = data.get("code") if isinstance(data.get("code"), str) else nested.get("code")
            text = message or code or dumps_str(data)
            raise CodexApiError(f"Codex error: {text}", code if isinstance(code, str) else None)
        if kind == "response.failed":
            error = as_object(as_object(data.get("response")).get("error"))
            message, code = error.get("message"), error.get("code")
            raise CodexApiError(
                message if isinstance(message, str) and message else "Codex response failed",
                code if isinstance(code, str) else None,
            )

    def feed_object(self, data: JsonObject) -> None:
        kind = data.get("type")
        if not isinstance(kind, str):
            return
        self.check(data)
        if kind in _TERMINAL:
            response = dict(as_object(data.get("response")))
            status = response.get("status")
            response["status"] = status if isinstance(status, str) and status in _STATUSES else None
            self.reader.handle("response.completed", {**data, "type": "response.completed", "response": response})
            self.terminated = True
            self._price_tier(response.get("service_tier"))
            return
        self.reader.handle(kind, data)

    def result(self) -> StopReason | None:
        return self.reader.result()

    def _price_tier(self, response_tier: object) -> None:
        tier = response_tier if isinstance(response_tier, str) else None
        if tier == "default" and self.requested_tier in ("flex", "priority"):
            tier = self.requested_tier
        multiplier = _tier_multiplier(self.builder.model, tier or self.requested_tier)
        if multiplier == 1.0:
            return
        cost = self.builder.output["usage"]["cost"]
        cost["input"] *= multiplier
        cost["output"] *= multiplier
        cost["cacheRead"] *= multiplier
        cost["cacheWrite"] *= multiplier
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    opts = options_as(options, OpenAICodexResponsesOptions)

    async def run(builder: MessageBuilder) -> None:
        token = opts.api_key
        if not token:
            raise ValueError(f"No API key for provider: {model['provider']}")
        builder.add_secret(token)
        url = resolve_url(model.get("baseUrl"))
        headers = build_headers(model, opts, token, session_key(opts))
        for name, value in headers.items():
            if name.lower() in CREDENTIAL_HEADERS:
                builder.add_secret(value)
        payload = await apply_payload_hook(opts, {**build_request_body(model, context, opts), **opts.extra_body}, model)
        attempt = codex_transport.WebSocketAttempt(model, opts, builder, url, headers, account_id(token))
        if attempt.wanted() and await attempt.run(payload, lambda: CodexStreamReader(builder, opts.service_tier)):
            return
        encoded = dumps(payload)
        compressed = codex_transport.zstd_compress(encoded)
        if compressed is not None:
            encoded, headers = compressed, {**headers, "content-encoding": "zstd"}
        async with open_encoded_event_stream(
            url, headers=headers, body=encoded, options=opts, format_error=format_error
        ) as events:
            builder.start()
            hook = opts.on_stream_event
            reader = CodexStreamReader(builder, opts.service_tier)
            async for event in events if hook is None else announced_events(events, hook, model):
                reader.feed(event)
                if reader.terminated:
                    break
        if not reader.terminated:
            raise ConnectionError("Codex stream ended without a stop reason (terminated)")
        builder.finish(reader.result())

    return run_provider_stream(model, opts.signal, run)


def stream_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None = None
) -> AssistantMessageEventStream:
    simple = options if options is not None else SimpleStreamOptions()
    opts = shared_options(simple, OpenAICodexResponsesOptions)
    opts.max_tokens = simple_max_tokens(model, context, simple.max_tokens)
    # The clamped level; the body maps it through ``thinkingLevelMap``.
    opts.reasoning_effort = requested_level(model, simple.reasoning)
    return stream(model, context, opts)


PROVIDER = ApiProvider(api=API, stream=stream, stream_simple=stream_simple)
