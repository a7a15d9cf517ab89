"""Context → the Bedrock Converse request body (``messages``, ``system``, ``toolConfig``,
``additionalModelRequestFields``), as Pi sends it through the AWS SDK's JSON protocol.

Rules worth knowing:

* blank text is dropped; a user turn (or tool result) left empty is sent as ``<empty>``;
* consecutive tool results become one user message of ``toolResult`` blocks;
* thinking replays as ``reasoningContent.reasoningText`` (with its signature only for Claude;
  a Claude block without a signature is sent as text), redacted reasoning as
  ``reasoningContent.redactedContent`` (base64 on the wire);
* Claude models that support prompt caching get a ``cachePoint`` after the system prompt and on
  the last user message (``ttl: "1h"`` for long retention), unless retention is ``none``;
* images are ``{"image": {"format", "source": {"bytes": <base64>}}}``.
"""

from __future__ import annotations

import os
import re

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.ai.options import DEFAULT_THINKING_BUDGETS
from pi_harness.ai.transform import normalize_id_anthropic, transform_messages
from pi_harness.ai.types import (
    AssistantMessage,
    CacheRetention,
    Context,
    ImageContent,
    Message,
    Model,
    Tool,
    ToolResultMessage,
    UserMessage,
)

EMPTY_TEXT = "<empty>"
ERROR_IMAGE_NOTE = "(image attached after the tool results)"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"
_IMAGE_FORMATS = {
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
}
_SEPARATORS = re.compile(r"[\s_.:]+")
_ADAPTIVE = ("opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "haiku-5", "fable-5")
_NATIVE_XHIGH = ("opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5")
_GPT_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"}
_GPT_OSS_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}
_CLAUDE_BUDGETS = {**DEFAULT_THINKING_BUDGETS, "xhigh": 16384, "max": 16384}


def match_candidates(model: Model) -> list[str]:
    """Model id and name, lower-cased, as they are and with separators turned into dashes."""
    values = [model["id"], model.get("name") or ""]
    out: list[str] = []
    for value in values:
        if value:
            lower = value.lower()
            out.extend((lower, _SEPARATORS.sub("-", lower)))
    return out


def _any(model: Model, needles: tuple[str, ...]) -> bool:
    return any(needle in candidate for candidate in match_candidates(model) for needle in needles)


def is_claude(model: Model) -> bool:
    model_id = model["id"].lower()
    name = (model.get("name") or "").lower()
    return "anthropic.claude" in model_id or "anthropic/claude" in model_id or "claude" in name


def supports_adaptive_thinking(model: Model) -> bool:
    return _any(model, _ADAPTIVE)


def supports_prompt_caching(model: Model) -> bool:
    if not _any(model, ("claude",)):
        return os.environ.get("AWS_BEDROCK_FORCE_CACHE") == "1"
    return _any(model, ("fable-5", "opus-5", "sonnet-5", "haiku-5", "-4-", "claude-3-7-sonnet", "claude-3-5-haiku"))


def cache_point(retention: CacheRetention) -> JsonObject:
    point: JsonObject = {"type": "default"}
    if retention == "long":
        point["ttl"] = "1h"
    return {"cachePoint": point}


def image_block(image: ImageContent) -> JsonObject:
    image_format = _IMAGE_FORMATS.get(image["mimeType"])
    if image_format is None:
        raise ValueError(f"Unknown image type: {image['mimeType']}")
    return {"image": {"format": image_format, "source": {"bytes": image["data"]}}}


def _text_block(text: str) -> JsonObject | None:
    return {"text": text} if text.strip() else None


def _document(value: JsonValue) -> JsonValue:
    """Bedrock documents may not have empty keys."""
    if isinstance(value, list):
        return [_document(item) for item in value]
    if isinstance(value, dict):
        return {key: _document(item) for key, item in value.items() if key}
    return value


def _user(message: UserMessage) -> JsonObject:
    content = message["content"]
    blocks: list[JsonValue] = []
    if isinstance(content, str):
        blocks.append(_text_block(content) or {"text": EMPTY_TEXT})
    else:
        for block in content:
            if block["type"] == "text":
                text = _text_block(block["text"])
                if text is not None:
                    blocks.append(text)
            elif block["type"] == "image":
                blocks.append(image_block(block))
        if not blocks:
            blocks.append({"text": EMPTY_TEXT})
    return {"role": "user", "content": blocks}


def _assistant(message: AssistantMessage, model: Model) -> JsonObject | None:
    blocks: list[JsonValue] = []
    for block in message["content"]:
        if block["type"] == "text":
            text = _text_block(block["text"])
            if text is not None:
                blocks.append(text)
        elif block["type"] == "toolCall":
            tool_use: JsonObject = {
                "toolUseId": block["id"],
                "name": block["name"],
                "input": _document(block["arguments"]),
            }
            blocks.append({"toolUse": tool_use})
        elif block["type"] == "thinking":
            signature = block.get("thinkingSignature") or ""
            if block.get("redacted"):
                if signature:
                    blocks.append({"reasoningContent": {"redactedContent": signature}})
                continue
            thinking = block["thinking"]
            if not thinking.strip():
                continue
            if not is_claude(model):
                blocks.append({"reasoningContent": {"reasoningText": {"text": thinking}}})
            elif not signature.strip():
                blocks.append({"text": thinking})
            else:
                blocks.append({"reasoningContent": {"reasoningText": {"text": thinking, "signature": signature}}})
    return {"role": "assistant", "content": blocks} if blocks else None


def _tool_result(message: ToolResultMessage, images_after: list[JsonValue] | None = None) -> JsonObject:
    """One ``toolResult`` block. With ``images_after`` (Claude, which refuses images in error
    results) an error result's images are replaced by a note and appended there instead."""
    content: list[JsonValue] = []
    split = images_after is not None and bool(message.get("isError"))
    moved: list[JsonValue] = []
    for block in message["content"]:
        if block["type"] == "image" and split:
            if not content or content[-1] != {"text": ERROR_IMAGE_NOTE}:
                content.append({"text": ERROR_IMAGE_NOTE})
            moved.append(image_block(block))
        elif block["type"] == "image":
            content.append(image_block(block))
        else:
            text = _text_block(block["text"])
            if text is not None:
                content.append(text)
    if not content:
        content.append({"text": EMPTY_TEXT})
    if moved and images_after is not None:
        caption = f"Images from the error result of tool call {message['toolCallId']} ({message['toolName']}):"
        images_after.extend([{"text": caption}, *moved])
    status = "error" if message.get("isError") else "success"
    return {"toolResult": {"toolUseId": message["toolCallId"], "content": content, "status": status}}


def build_messages(model: Model, context: Context, retention: CacheRetention) -> list[JsonObject]:
    messages: list[Message] = transform_messages(context.get("messages", []), model, normalize_id_anthropic)
    out: list[JsonObject] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        if message["role"] == "user":
            out.append(_user(message))
        elif message["role"] == "assistant":
            if message["content"]:
                converted = _assistant(message, model)
                if converted is not None:
                    out.append(converted)
        else:
            results: list[JsonValue] = []
            images_after: list[JsonValue] | None = [] if is_claude(model) else None
            while index < len(messages):
                current = messages[index]
                if current["role"] != "toolResult":
                    break
                results.append(_tool_result(current, images_after))
                index += 1
            out.append({"role": "user", "content": [*results, *(images_after or [])]})
            continue
        index += 1
    if retention != "none" and supports_prompt_caching(model) and out and out[-1]["role"] == "user":
        last = out[-1]["content"]
        if isinstance(last, list):
            last.append(cache_point(retention))
    return out


def build_system(model: Model, system_prompt: str | None, retention: CacheRetention) -> list[JsonValue] | None:
    if not system_prompt:
        return None
    blocks: list[JsonValue] = [{"text": system_prompt}]
    if retention != "none" and supports_prompt_caching(model):
        blocks.append(cache_point(retention))
    return blocks


def build_tool_config(tools: list[Tool] | None, tool_choice: str | JsonObject | None) -> JsonObject | None:
    if not tools or tool_choice == "none":
        return None
    specs: list[JsonValue] = [
        {"toolSpec": {"name": t["name"], "description": t["description"], "inputSchema": {"json": t["parameters"]}}}
        for t in tools
    ]
    config: JsonObject = {"tools": specs}
    if tool_choice == "auto":
        config["toolChoice"] = {"auto": {}}
    elif tool_choice == "any":
        config["toolChoice"] = {"any": {}}
    elif isinstance(tool_choice, dict) and tool_choice.get("type") == "tool":
        config["toolChoice"] = {"tool": {"name": tool_choice.get("name")}}
    return config


def _effort(model: Model, level: str) -> str:
    if level == "xhigh" and _any(model, _NATIVE_XHIGH):
        return "xhigh"
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def additional_fields(
    model: Model, level: str | None, budgets: dict[str, int] | None, *, gov_cloud: bool
) -> JsonObject | None:
    """``additionalModelRequestFields`` for thinking at ``level`` (``None``: none are sent)."""
    if not level or not model.get("reasoning"):
        return None
    if is_claude(model):
        display: JsonObject = {} if gov_cloud else {"display": "summarized"}
        binding = not gov_cloud and _any(model, _NATIVE_XHIGH)
        if supports_adaptive_thinking(model):
            thinking: JsonObject = {"type": "adaptive", **display}
            if binding:
                thinking["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
            fields: JsonObject = {"thinking": thinking, "output_config": {"effort": _effort(model, level)}}
            if binding:
                fields["anthropic_beta"] = [THINKING_BINDING_BETA]
            return fields
        budget_level = "high" if level in ("xhigh", "max") else level
        budget = (budgets or {}).get(budget_level, _CLAUDE_BUDGETS.get(level, _CLAUDE_BUDGETS["high"]))
        return {
            "thinking": {"type": "enabled", "budget_tokens": budget, **display},
            "anthropic_beta": [INTERLEAVED_THINKING_BETA],
        }
    if _any(model, ("gpt-oss",)):
        return {"reasoning_effort": _GPT_OSS_EFFORT.get(level, "high")}
    if _any(model, ("gpt-",)):
        mapped = (model.get("thinkingLevelMap") or {}).get(level)
        return {"reasoning": {"effort": mapped if isinstance(mapped, str) else _GPT_EFFORT.get(level, "high")}}
    return None
