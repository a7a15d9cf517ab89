"""Request bodies for ``openai-completions``: Chat Completions as OpenAI-compatible servers take it.

A ``Context`` becomes ``{"model", "messages", "stream": true, ...}``: the history is first run
through the cross-provider transform (with this API's tool-call id normaliser), then each message
is written the way OpenAI-compatible servers accept it, bent by the model's compat flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, cast

from pi_harness.ai.append_memo import AppendMemo, Lineage, issue
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.options import StreamOptions, resolve_cache_retention
from pi_harness.ai.providers.constrained_sampling import strict_sampling, tool_parameters
from pi_harness.ai.providers.conversion_memo import ConversionMemo
from pi_harness.ai.providers.openai_completions_compat import OpenAICompletionsCompat, Routing
from pi_harness.ai.providers.openai_completions_dialects import EXTRA_FORMATS, dialect_fields
from pi_harness.ai.providers.openai_completions_wire import (
    AssistantMessageParam,
    CacheControl,
    ChatCompletionsRequest,
    ChatMessage,
    FunctionDefinition,
    ImagePart,
    ReasoningField,
    SystemMessageParam,
    TextPart,
    ToolDefinition,
    ToolMessageParam,
    UserMessageParam,
)
from pi_harness.ai.transform import (
    IMAGE_ONLY_RESULT_TEXT,
    TOOL_RESULT_IMAGES_TEXT,
    accepts_images,
    image_data_url,
    make_openai_completions_normalizer,
    tool_result_texts,
    transform_messages,
)
from pi_harness.ai.types import (
    AssistantMessage,
    CacheRetention,
    Context,
    ImageContent,
    Message,
    Model,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

# The reasoning fields in the order a streamed delta is searched for them.
REASONING_FIELDS: tuple[ReasoningField, ...] = ("reasoning_content", "reasoning", "reasoning_text")

ASSISTANT_AFTER_TOOL_RESULT = "I have processed the tool results."


def build_request_body(
    model: Model,
    context: Context,
    options: StreamOptions,
    compat: OpenAICompletionsCompat,
    *,
    reasoning_effort: str | None = None,
    tool_choice: str | Mapping[str, object] | None = None,
) -> ChatCompletionsRequest:
    """The body of ``POST {baseUrl}/chat/completions`` before ``extra_body`` and the payload hook
    (``open_event_stream`` applies both)."""
    messages = transform_messages(context["messages"], model, make_openai_completions_normalizer(model))
    body: ChatCompletionsRequest = {
        "model": model["id"],
        "messages": convert_messages(model, context.get("systemPrompt"), messages, compat),
        "stream": True,
    }
    if compat["supportsUsageInStreaming"]:
        body["stream_options"] = {"include_usage": True}
    if compat["supportsStore"]:
        body["store"] = False
    if options.max_tokens:
        body[compat["maxTokensField"]] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools")
    if tools:
        body["tools"] = convert_tools(tools, compat)
        if compat["zaiToolStream"]:
            body["tool_stream"] = True
    elif _has_tool_history(messages):
        # Some proxies reject tool calls in the history of a request that declares no tools.
        body["tools"] = []
    if tool_choice is not None:
        body["tool_choice"] = tool_choice
    apply_reasoning(body, model, compat, reasoning_effort)
    extra = dialect_fields(
        model, compat, reasoning_effort, options.max_tokens, getattr(options, "thinking_budgets", None)
    )
    # Fields the typed body does not declare (their values are checked where they are made).
    cast(dict[str, object], body).update(extra)
    _apply_routing(body, model, compat)
    _apply_caching(body, model, compat, options)
    return body


# --- messages ---------------------------------------------------------------------------------


def convert_messages(
    model: Model, system_prompt: str | None, messages: list[Message], compat: OpenAICompletionsCompat
) -> list[ChatMessage]:
    """Transformed Pi messages → Chat Completions ``messages``.

    A request that extends the previous one resumes where it ended (``AppendMemo``: the output
    so far and the images waiting for the end of a run of tool results); each message's own
    conversion is remembered too (``ConversionMemo``), for requests that do not."""
    with_images = accepts_images(model)
    after_tool = compat["requiresAssistantAfterToolResult"]
    # What each converter reads besides the message: part of the memo's key.
    result_key = ("toolResult", compat["requiresToolResultName"])
    user_key = ("user", with_images)
    assistant_key = (
        "assistant",
        compat["requiresThinkingAsText"],
        after_tool,
        compat["requiresReasoningContentOnAssistantMessages"],
    )
    role: Literal["system", "developer"] = (
        "developer" if model.get("reasoning") and compat["supportsDeveloperRole"] else "system"
    )
    key = (model["provider"], model["id"], role, system_prompt, result_key, user_key, assistant_key)
    start, state = _RESUME.resume(messages, key)
    if state is None:
        start, state = 0, ([], [], Lineage())
        if system_prompt:
            system: SystemMessageParam = {"role": role, "content": system_prompt}
            state[0].append(system)
    out, pending_images, lineage = state
    memo = _MEMO.get
    for message in messages[start:]:
        if message["role"] == "toolResult":
            _emit(out, memo(message, result_key, _tool_result, compat), after_tool)
            if with_images:
                pending_images.extend(
                    _image_part(block) for block in message.get("content", []) if block["type"] == "image"
                )
            continue
        _flush_images(out, pending_images, after_tool)
        converted: ChatMessage | None = None
        if message["role"] == "user":
            converted = memo(message, user_key, _user, with_images)
        elif message["role"] == "assistant":
            converted = memo(message, assistant_key, _assistant, compat)
        if converted is not None:
            _emit(out, converted, after_tool)
    _RESUME.save(messages, key, state)
    if not pending_images:
        return issue(out, lineage)  # ``out`` is only appended to
    result = list(out)
    _flush_images(result, list(pending_images), after_tool)  # the end of this request only
    return result


def _emit(out: list[ChatMessage], message: ChatMessage, after_tool: bool) -> None:
    if message["role"] == "user" and after_tool and out and out[-1]["role"] == "tool":
        filler: AssistantMessageParam = {"role": "assistant", "content": ASSISTANT_AFTER_TOOL_RESULT}
        out.append(filler)
    out.append(message)


def _flush_images(out: list[ChatMessage], pending_images: list[ImagePart], after_tool: bool) -> None:
    # Images cannot go into ``tool`` messages; they follow the run of tool results as one user
    # message so the tool-call/tool-result sequence stays unbroken.
    if pending_images:
        images: UserMessageParam = {
            "role": "user",
            "content": [{"type": "text", "text": TOOL_RESULT_IMAGES_TEXT}, *pending_images],
        }
        _emit(out, images, after_tool)
        pending_images.clear()


_RESUME: AppendMemo[tuple[list[ChatMessage], list[ImagePart], Lineage]] = AppendMemo()
# The converted messages of earlier requests (``conversion_memo.py``): shared, never changed.
_MEMO = ConversionMemo()


def _image_part(block: ImageContent) -> ImagePart:
    return {"type": "image_url", "image_url": {"url": image_data_url(block)}}


def _user(message: UserMessage, accepts_images: bool) -> UserMessageParam | None:
    content = message.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts: list[TextPart | ImagePart] = []
    for block in content or []:
        if block["type"] == "text":
            parts.append({"type": "text", "text": block["text"]})
        elif block["type"] == "image" and accepts_images:
            parts.append(_image_part(block))
    if not parts:
        return None  # only images, sent to a text-only model
    return {"role": "user", "content": parts}


def _assistant(message: AssistantMessage, compat: OpenAICompletionsCompat) -> AssistantMessageParam | None:
    texts: list[str] = []
    thinking: list[ThinkingContent] = []
    calls: list[ToolCall] = []
    for block in message.get("content", []):
        if block["type"] == "text":
            if block["text"].strip():
                texts.append(block["text"])
        elif block["type"] == "thinking":
            if block["thinking"].strip():
                thinking.append(block)
        elif block["type"] == "toolCall":
            calls.append(block)
    text = "\n\n".join(texts)  # blocks split by thinking or tool calls read as paragraphs
    reasoning_field: ReasoningField | None = None
    if thinking and compat["requiresThinkingAsText"]:
        thinking_text = "\n\n".join(block["thinking"] for block in thinking)
        text = f"{thinking_text}\n\n{text}" if text else thinking_text
    elif thinking:
        signature = thinking[0].get("thinkingSignature")
        if signature in REASONING_FIELDS:
            reasoning_field = signature
    if not text and not calls:
        return None  # nothing a server would accept (empty or reasoning-only turn)
    converted: AssistantMessageParam = {
        "role": "assistant",
        "content": text or ("" if compat["requiresAssistantAfterToolResult"] else None),
    }
    if reasoning_field is not None:
        converted[reasoning_field] = "\n".join(block["thinking"] for block in thinking)
    if compat["requiresReasoningContentOnAssistantMessages"] and "reasoning_content" not in converted:
        converted["reasoning_content"] = ""
    if calls:
        converted["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": dumps_str(call.get("arguments") or {})},
            }
            for call in calls
        ]
        details = _reasoning_details(calls)
        if details:
            converted["reasoning_details"] = details
    return converted


def _reasoning_details(calls: list[ToolCall]) -> list[JsonObject]:
    """Encrypted reasoning items (OpenRouter ``reasoning_details``) kept on same-model tool calls."""
    details: list[JsonObject] = []
    for call in calls:
        signature = call.get("thoughtSignature")
        if not signature:
            continue
        try:
            detail = loads(signature)
        except ValueError:
            continue
        if isinstance(detail, dict) and detail.get("type") == "reasoning.encrypted":
            details.append(detail)
    return details


def _tool_result(message: ToolResultMessage, compat: OpenAICompletionsCompat) -> ToolMessageParam:
    blocks = message.get("content", [])
    text = "\n".join(tool_result_texts(blocks))
    if not text and any(block["type"] == "image" for block in blocks):
        text = IMAGE_ONLY_RESULT_TEXT
    converted: ToolMessageParam = {"role": "tool", "tool_call_id": message["toolCallId"], "content": text}
    if compat["requiresToolResultName"] and message.get("toolName"):
        converted["name"] = message["toolName"]
    return converted


def _has_tool_history(messages: list[Message]) -> bool:
    for message in messages:
        if message["role"] == "toolResult":
            return True
        if message["role"] == "assistant" and any(block["type"] == "toolCall" for block in message.get("content", [])):
            return True
    return False


# --- tools ------------------------------------------------------------------------------------


def convert_tools(tools: list[Tool], compat: OpenAICompletionsCompat) -> list[ToolDefinition]:
    """Function tools. ``strict`` is sent only to servers whose compat says they take it (an
    unknown key fails the request on some); it is ``true`` for a tool that asks for strict
    sampling and has a strict form of its schema, which is then the schema sent."""
    supports_strict = compat["supportsStrictMode"] is True
    return [_converted_tool(tool, supports_strict) for tool in tools]


# The last wire form of each tool, by name and strictness, with what it was made from: a session
# declares the same tools (the same description and schema objects) on every request, and a body
# whose tools are the very objects of the previous one is not encoded again (``body_encoding``).
_TOOLS: dict[tuple[str, bool], tuple[object, object, object, ToolDefinition]] = {}


def _converted_tool(tool: Tool, supports_strict: bool) -> ToolDefinition:
    key = (tool["name"], supports_strict)
    description, parameters = tool.get("description", ""), tool.get("parameters")
    sampling = tool.get("constrainedSampling")
    known = _TOOLS.get(key)
    if known is not None and known[0] is description and known[1] is parameters and known[2] == sampling:
        return known[3]
    converted = _convert_tool(tool, supports_strict)
    if len(_TOOLS) >= 256:
        _TOOLS.clear()
    _TOOLS[key] = (description, parameters, sampling, converted)
    return converted


def _convert_tool(tool: Tool, supports_strict: bool) -> ToolDefinition:
    strict = strict_sampling(tool, supports_strict)
    parameters = tool_parameters(tool, strict) if tool.get("parameters") else None
    function: FunctionDefinition = {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "parameters": parameters or {"type": "object", "properties": {}},
    }
    if supports_strict:
        function["strict"] = strict is True
    return {"type": "function", "function": function}


# --- reasoning --------------------------------------------------------------------------------


def reasoning_effort_value(model: Model, compat: OpenAICompletionsCompat, level: str) -> str:
    """What a thinking level is called on the wire: models.json ``thinkingLevelMap`` first, then
    the compat ``reasoningEffortMap``, else the level itself."""
    level_map = model.get("thinkingLevelMap") or {}
    mapped = level_map.get(level)
    if mapped is not None:
        return mapped
    return compat["reasoningEffortMap"].get(level, level)


def apply_reasoning(
    body: ChatCompletionsRequest, model: Model, compat: OpenAICompletionsCompat, level: str | None
) -> None:
    """Switch thinking on or off in the dialect of ``compat.thinkingFormat`` (reasoning models only).

    "Off" is said explicitly where the dialect has a word for it, unless the model's
    ``thinkingLevelMap`` marks ``off`` unsupported (``null``); where a map names an ``off`` value,
    that value is sent.
    """
    if not model.get("reasoning"):
        return
    effort = reasoning_effort_value(model, compat, level) if level and level != "off" else None
    enabled = effort is not None
    level_map = model.get("thinkingLevelMap") or {}
    off_supported = not ("off" in level_map and level_map["off"] is None)
    off_value = level_map.get("off")
    takes_effort = compat["supportsReasoningEffort"]
    fmt = compat["thinkingFormat"]
    if fmt == "zai":
        body["thinking"] = {"type": "enabled", "clear_thinking": False} if enabled else {"type": "disabled"}
        if enabled and takes_effort:
            body["reasoning_effort"] = cast(str, effort)
    elif fmt == "qwen":
        body["enable_thinking"] = enabled
        if enabled and takes_effort:
            body["reasoning_effort"] = cast(str, effort)
    elif fmt == "qwen-chat-template":
        body["chat_template_kwargs"] = {"enable_thinking": enabled, "preserve_thinking": True}
    elif fmt == "deepseek":
        if enabled or off_supported:
            body["thinking"] = {"type": "enabled" if enabled else "disabled"}
        if enabled and takes_effort:
            body["reasoning_effort"] = cast(str, effort)
    elif fmt == "together":
        body["reasoning"] = {"enabled": enabled}
        if enabled and takes_effort:
            body["reasoning_effort"] = cast(str, effort)
    elif fmt == "openrouter":
        if enabled:
            body["reasoning"] = {"effort": cast(str, effort)}
        elif off_supported:
            body["reasoning"] = {"effort": off_value if isinstance(off_value, str) else "none"}
    elif fmt in EXTRA_FORMATS:
        return  # written by ``dialect_fields``
    elif takes_effort and enabled:
        body["reasoning_effort"] = cast(str, effort)
    elif takes_effort and isinstance(off_value, str):
        body["reasoning_effort"] = off_value


# --- gateways and caching ---------------------------------------------------------------------


def _apply_routing(body: ChatCompletionsRequest, model: Model, compat: OpenAICompletionsCompat) -> None:
    base_url = model.get("baseUrl", "")
    # Sent whenever the model declares it, whatever the host (a proxy in front of OpenRouter);
    # an empty object is still declared, so it is sent too (as Pi 1.4.0 does).
    declared = (model.get("compat") or {}).get("openRouterRouting")
    if isinstance(declared, dict):
        body["provider"] = cast(Routing, dict(declared))
    if "ai-gateway.vercel.sh" in base_url:
        routing = compat["vercelGatewayRouting"]
        gateway: Routing = {}
        for key in routing:  # in the order the compat object names them
            if key == "only" and routing["only"]:
                gateway["only"] = routing["only"]
            elif key == "order" and routing["order"]:
                gateway["order"] = routing["order"]
        if gateway:
            body["providerOptions"] = {"gateway": gateway}


def cache_retention(options: StreamOptions) -> CacheRetention:
    return resolve_cache_retention(options.cache_retention)


# OpenAI's limit on ``prompt_cache_key`` (characters).
PROMPT_CACHE_KEY_MAX = 64


def _apply_caching(
    body: ChatCompletionsRequest, model: Model, compat: OpenAICompletionsCompat, options: StreamOptions
) -> None:
    """``prompt_cache_key``/``prompt_cache_retention`` (OpenAI, or long retention where the server
    keeps caches long), and Anthropic-style markers for gateways in front of Claude."""
    retention = cache_retention(options)
    if retention == "none" or options.disable_cache_writes:
        return
    long_kept = retention == "long" and compat.get("supportsLongCacheRetention", True) is not False
    if options.session_id and ("api.openai.com" in model.get("baseUrl", "") or long_kept):
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_MAX]
    if long_kept:
        body["prompt_cache_retention"] = "24h"
    if compat.get("cacheControlFormat") != "anthropic":
        return
    marker: CacheControl = {"type": "ephemeral"}
    if long_kept:
        marker["ttl"] = "1h"
    messages = body["messages"]
    # Markers go on copies of the messages they mark (see ``_mark_last_text``).
    first_instruction = next((i for i, m in enumerate(messages) if m["role"] in ("system", "developer")), None)
    if first_instruction is not None:
        copy = cast(ChatMessage, dict(messages[first_instruction]))
        if _mark_last_text(copy, marker):
            messages[first_instruction] = copy
    tools = body.get("tools")
    if tools:
        # On a copy: the tools' wire forms are shared with later requests (``_converted_tool``).
        tools[-1] = {**tools[-1], "cache_control": marker.copy()}
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] not in ("user", "assistant", "tool"):
            continue
        copy = cast(ChatMessage, dict(messages[index]))
        if _mark_last_text(copy, marker):
            messages[index] = copy
            break


def _mark_last_text(message: ChatMessage, marker: CacheControl) -> bool:
    """Put ``marker`` on the message's last text (a string content becomes one text part).

    The content is replaced, not changed in place: the message may be the memo's (shared with
    later requests, which mark another message)."""
    content = message.get("content")
    target = cast(dict[str, object], message)
    if isinstance(content, str):
        if not content:
            return False
        target["content"] = [{"type": "text", "text": content, "cache_control": marker.copy()}]
        return True
    if isinstance(content, list):
        for index in range(len(content) - 1, -1, -1):
            part = content[index]
            if isinstance(part, dict) and part.get("type") == "text":
                marked = list(content)
                marked[index] = cast(TextPart, {**part, "cache_control": marker.copy()})
                target["content"] = marked
                return True
    return False
