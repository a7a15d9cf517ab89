"""Request building for the Anthropic Messages API.

Turns a ``Context`` into the ``POST /v1/messages`` body: the system prompt as a cacheable text
block, tools with their JSON Schemas, the replayed conversation (after the cross-provider
transform) with consecutive tool results folded into one user message, prompt-cache markers,
and the thinking configuration (adaptive effort or a token budget).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias, cast

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.options import StreamOptions, convert_options, resolve_cache_retention
from pi_harness.ai.providers.anthropic_wire import (
    AnthropicEffort,
    AssistantBlock,
    AssistantMessageParam,
    CacheControl,
    ImageBlock,
    MessageParam,
    MessagesRequest,
    RedactedThinkingBlock,
    TextBlock,
    ToolParam,
    ToolResultBlock,
    UserBlock,
    UserMessageParam,
)
from pi_harness.ai.providers.constrained_sampling import is_preferred_strict, strict_sampling, tool_parameters
from pi_harness.ai.transform import (
    IMAGE_ONLY_RESULT_TEXT,
    accepts_images,
    normalize_id_anthropic,
    tool_result_texts,
    transform_messages,
)
from pi_harness.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    Tool,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

ToolChoice: TypeAlias = str | Mapping[str, object]

REDACTED_THINKING_TEXT = "[Reasoning redacted]"

THINKING_DISPLAY: Literal["summarized"] = "summarized"

# Model ids whose thinking is adaptive (``thinking: {type: "adaptive"}`` + an effort level)
# instead of a fixed token budget.
_ADAPTIVE_MARKERS = ("opus-4-6", "opus-4.6", "opus-4-7", "opus-4.7", "sonnet-4-6", "sonnet-4.6")
_NATIVE_MAX_EFFORT_MARKERS = ("opus-4-6", "opus-4.6")


@dataclass
class AnthropicOptions(StreamOptions):
    """``StreamOptions`` plus the Anthropic-specific request settings."""

    thinking_enabled: bool = False
    # Budget-based thinking (non-adaptive models); 1024 when thinking is on and this is unset.
    thinking_budget_tokens: int | None = None
    # Adaptive thinking effort (adaptive models only); a models.json ``thinkingLevelMap`` may name
    # one this client does not list, which is sent as it is.
    effort: AnthropicEffort | str | None = None
    # Ask for thinking between tool calls (beta header) on budget-based models.
    interleaved_thinking: bool = True
    # "auto" | "any" | "none", or a full object such as {"type": "tool", "name": "read"}.
    tool_choice: ToolChoice | None = None
    # Send tools that only prefer strict sampling without it (after the server refused them).
    without_preferred_strict_tools: bool = False


def as_anthropic_options(options: StreamOptions | None) -> AnthropicOptions:
    """Accept plain ``StreamOptions`` (or ``SimpleStreamOptions``) as well as ``AnthropicOptions``."""
    return convert_options(options, AnthropicOptions)


# --- model capabilities -----------------------------------------------------------------------


def supports_adaptive_thinking(model: Model) -> bool:
    forced = (model.get("compat") or {}).get("forceAdaptiveThinking")
    if isinstance(forced, bool):
        return forced
    return any(marker in model["id"] for marker in _ADAPTIVE_MARKERS)


def has_native_max_effort(model: Model) -> bool:
    return any(marker in model["id"] for marker in _NATIVE_MAX_EFFORT_MARKERS)


def _compat_flag(model: Model, name: str, default: bool) -> bool:
    value = (model.get("compat") or {}).get(name)
    return value if isinstance(value, bool) else default


def uses_eager_tool_streaming(model: Model) -> bool:
    """Per-tool ``eager_input_streaming`` unless the model's compat turns it off.

    Models without it stream tool arguments in fragments through the fine-grained-tool-streaming
    beta header instead.
    """
    return _compat_flag(model, "supportsEagerToolInputStreaming", True)


def supports_strict_tools(model: Model) -> bool:
    """Strict tools only where the model's compat says so: servers differ in the schemas their
    strict mode accepts, and a refused one fails the whole request."""
    return _compat_flag(model, "supportsStrictTools", False)


# Schema keywords Anthropic's strict tool use refuses (the request fails with a 400), and the
# string formats it accepts; ``minItems`` is accepted only as 0 or 1.
STRICT_REFUSED_KEYWORDS = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "minProperties",
        "maxProperties",
    }
)
STRICT_STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)


def strict_refuses(key: str, value: object) -> bool:
    """Whether Anthropic's strict mode refuses ``key: value`` in a schema node."""
    if key in STRICT_REFUSED_KEYWORDS:
        return True
    if key == "minItems":
        return isinstance(value, bool) or value not in (0, 1)
    if key == "format":
        return not isinstance(value, str) or value not in STRICT_STRING_FORMATS
    return False


# --- prompt caching ---------------------------------------------------------------------------


def cache_control_for(model: Model, options: StreamOptions) -> CacheControl | None:
    """The ``cache_control`` marker to place, or ``None`` when caching is off for this request."""
    if options.disable_cache_writes:
        return None
    retention = resolve_cache_retention(options.cache_retention)
    if retention == "none":
        return None
    marker: CacheControl = {"type": "ephemeral"}
    # The one-hour TTL; a compatible server that refuses it says so in the model's compat.
    if retention == "long" and _compat_flag(model, "supportsLongCacheRetention", True):
        marker["ttl"] = "1h"
    return marker


# --- the request body -------------------------------------------------------------------------


def default_max_tokens_raw(model: Model) -> int:
    """``stream`` default output cap when the caller gives none: the model's maximum, as in Pi."""
    return model["maxTokens"]


def thinking_mode(model: Model, options: AnthropicOptions) -> Literal["adaptive", "enabled"] | None:
    if not options.thinking_enabled or not model.get("reasoning"):
        return None
    return "adaptive" if supports_adaptive_thinking(model) else "enabled"


def build_request_body(model: Model, context: Context, options: AnthropicOptions) -> MessagesRequest:
    """The body before ``extra_body`` and the payload hook (``open_event_stream`` applies both)."""
    cache_control = cache_control_for(model, options)
    body: MessagesRequest = {
        "model": model["id"],
        "messages": convert_messages(context.get("messages", []), model, cache_control),
        "max_tokens": options.max_tokens or default_max_tokens_raw(model),
        "stream": True,
    }
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        system_block: TextBlock = {"type": "text", "text": system_prompt}
        if cache_control is not None:
            system_block["cache_control"] = cache_control.copy()
        body["system"] = [system_block]

    mode = thinking_mode(model, options)
    # Anthropic rejects a temperature other than 1 while thinking; Pi leaves it out, and where
    # the model's compat says the server takes none.
    if options.temperature is not None and mode is None and _compat_flag(model, "supportsTemperature", True):
        body["temperature"] = options.temperature

    tools = context.get("tools")
    if tools:
        # The last tool carries a cache breakpoint too, so the tool list is cached with the
        # system prompt (unless the model's compat says the server refuses markers on tools).
        tool_marker = cache_control if _compat_flag(model, "supportsCacheControlOnTools", True) else None
        body["tools"] = convert_tools(
            tools,
            eager=uses_eager_tool_streaming(model),
            strict_supported=supports_strict_tools(model),
            skip_preferred_strict=options.without_preferred_strict_tools,
            cache_control=tool_marker,
        )

    # Thinking is shown summarized: the API default of the older Claude 4 models, which newer
    # ones (Opus 4.7) would otherwise omit.
    if mode == "adaptive":
        body["thinking"] = {"type": "adaptive", "display": THINKING_DISPLAY}
        if options.effort is not None:
            body["output_config"] = {"effort": options.effort}
    elif mode == "enabled":
        body["thinking"] = {
            "type": "enabled",
            "budget_tokens": options.thinking_budget_tokens or 1024,
            "display": THINKING_DISPLAY,
        }

    user_id = (options.metadata or {}).get("user_id")
    if isinstance(user_id, str):
        body["metadata"] = {"user_id": user_id}

    if options.tool_choice is not None:
        choice = options.tool_choice
        body["tool_choice"] = {"type": choice} if isinstance(choice, str) else choice
    return body


def convert_tools(
    tools: list[Tool],
    *,
    eager: bool = False,
    strict_supported: bool = False,
    skip_preferred_strict: bool = False,
    cache_control: CacheControl | None = None,
) -> list[ToolParam]:
    """Tool definitions. ``input_schema`` holds the schema's ``type``, ``properties`` and
    ``required`` only; a strict tool (see ``constrained_sampling``) sends its whole strict schema.
    ``skip_preferred_strict`` sends the tools that merely prefer strict sampling without it."""
    converted: list[ToolParam] = []
    for index, tool in enumerate(tools):
        skip = skip_preferred_strict and is_preferred_strict(tool)
        strict = None if skip else strict_sampling(tool, strict_supported, strict_refuses)
        parameters = tool_parameters(tool, strict) or {}
        shape: JsonObject = {
            "type": "object",
            "properties": parameters.get("properties") or {},
            "required": parameters.get("required") or [],
        }
        entry: dict[str, object] = {"name": tool["name"], "description": tool.get("description", "")}
        if eager:
            entry["eager_input_streaming"] = True
        if strict is True:
            entry["strict"] = True
        entry["input_schema"] = {**parameters, **shape} if strict is True else shape
        if cache_control is not None and index == len(tools) - 1:
            entry["cache_control"] = cache_control.copy()
        converted.append(cast(ToolParam, entry))
    return converted


def has_preferred_strict_tools(tools: list[ToolParam], declared: list[Tool]) -> bool:
    """Some tool went out strict only because it prefers to (it may go again without)."""
    return any(
        param.get("strict") is True and is_preferred_strict(tool) for param, tool in zip(tools, declared, strict=True)
    )


# --- messages ---------------------------------------------------------------------------------


def convert_messages(messages: list[Message], model: Model, cache_control: CacheControl | None) -> list[MessageParam]:
    replay = transform_messages(messages, model, normalize_id_anthropic)
    with_images = accepts_images(model)
    params: list[MessageParam] = []
    i = 0
    while i < len(replay):
        message = replay[i]
        converted: MessageParam | None = None
        if message["role"] == "user":
            converted = _convert_user(message, with_images)
        elif message["role"] == "assistant":
            converted = _convert_assistant(message, _compat_flag(model, "allowEmptySignature", False))
        elif message["role"] == "toolResult":
            # Consecutive results answer one assistant turn: they belong in one user message.
            # Anthropic refuses images in an error result: they follow all the results instead.
            results: list[UserBlock] = []
            moved: list[UserBlock] = []
            while i < len(replay) and (result := replay[i])["role"] == "toolResult":
                if with_images and result.get("isError") and any(b["type"] == "image" for b in result["content"]):
                    moved.append({"type": "text", "text": _moved_images_caption(result)})
                    moved += [_image_block(b) for b in result["content"] if b["type"] == "image"]
                    result = {**result, "content": _images_replaced(result["content"])}
                results.append(_convert_tool_result(result, with_images))
                i += 1
            params.append({"role": "user", "content": [*results, *moved]})
            continue
        if converted is not None:
            params.append(converted)
        i += 1
    if cache_control is not None:
        _mark_last_user_message(params, cache_control)
    return params


# Where an error result's images were: they come after the turn's results.
MOVED_IMAGE_NOTE = "(image attached after the tool results)"


def _moved_images_caption(result: ToolResultMessage) -> str:
    return f"Images from the error result of tool call {result['toolCallId']} ({result['toolName']}):"


def _images_replaced(content: list[UserContent]) -> list[UserContent]:
    """The content with each run of images replaced by one note."""
    out: list[UserContent] = []
    for block in content:
        if block["type"] == "image":
            last = out[-1] if out else None
            if not (last is not None and last["type"] == "text" and last.get("text") == MOVED_IMAGE_NOTE):
                out.append({"type": "text", "text": MOVED_IMAGE_NOTE})
            continue
        out.append(block)
    return out


def _image_block(image: ImageContent) -> ImageBlock:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": image["mimeType"], "data": image["data"]},
    }


def _convert_user(message: UserMessage, accepts_images: bool) -> UserMessageParam | None:
    content = message.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": content} if content.strip() else None
    blocks: list[UserBlock] = []
    for block in content or []:
        if block["type"] == "text":
            text = block.get("text", "")
            if text.strip():
                blocks.append({"type": "text", "text": text})
        elif block["type"] == "image" and accepts_images:
            blocks.append(_image_block(block))
    return {"role": "user", "content": blocks} if blocks else None


def _convert_assistant(message: AssistantMessage, allow_empty_signature: bool = False) -> AssistantMessageParam | None:
    blocks: list[AssistantBlock] = []
    for block in message.get("content", []):
        if block["type"] == "text":
            text = block.get("text", "")
            if text.strip():
                blocks.append({"type": "text", "text": text})
        elif block["type"] == "thinking":
            signature = str(block.get("thinkingSignature") or "")
            thinking = str(block.get("thinking") or "")
            if block.get("redacted"):
                # The transform keeps redacted thinking only for the model that produced it. It
                # goes back even with an empty payload (Pi replays it; the service judges it).
                redacted: RedactedThinkingBlock = {"type": "redacted_thinking"}
                payload = block.get("thinkingSignature")
                if isinstance(payload, str):
                    redacted["data"] = payload
                blocks.append(redacted)
            elif signature.strip():
                blocks.append({"type": "thinking", "thinking": thinking, "signature": signature})
            elif thinking.strip() and allow_empty_signature:
                # Some compatible servers emit and accept thinking without a signature.
                blocks.append({"type": "thinking", "thinking": thinking, "signature": ""})
            elif thinking.strip():
                # Without a signature (e.g. an aborted stream) Anthropic would reject the block;
                # plain text keeps the reasoning visible without inviting tag mimicry.
                blocks.append({"type": "text", "text": thinking})
        elif block["type"] == "toolCall":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.get("id", ""),
                    "name": block.get("name", ""),
                    "input": block.get("arguments") or {},
                }
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def _convert_tool_result(message: ToolResultMessage, accepts_images: bool) -> ToolResultBlock:
    return {
        "type": "tool_result",
        "tool_use_id": message["toolCallId"],
        "content": _tool_result_content(message.get("content", []), accepts_images),
        "is_error": bool(message.get("isError", False)),
    }


def _tool_result_content(content: list[UserContent], accepts_images: bool) -> str | list[TextBlock | ImageBlock]:
    texts = tool_result_texts(content)
    if not accepts_images or not any(block["type"] == "image" for block in content):
        return "\n".join(texts)
    blocks: list[TextBlock | ImageBlock] = []
    for block in content:
        if block["type"] == "text":
            blocks.append({"type": "text", "text": block.get("text", "")})
        elif block["type"] == "image":
            blocks.append(_image_block(block))
    if not texts:
        blocks.insert(0, {"type": "text", "text": IMAGE_ONLY_RESULT_TEXT})
    return blocks


def _mark_last_user_message(params: list[MessageParam], cache_control: CacheControl) -> None:
    """Cache the whole conversation prefix by marking the last block of the last user message."""
    last = params[-1] if params else None
    if last is None or last["role"] != "user":
        return
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"], "cache_control": cache_control.copy()}]
        return
    # Every block a user message holds (text, image, tool_result) accepts a marker.
    if last["content"]:
        last["content"][-1]["cache_control"] = cache_control.copy()
