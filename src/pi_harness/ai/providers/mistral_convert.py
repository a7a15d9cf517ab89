"""Context → the body of Mistral's chat completions endpoint, as Pi builds it.

Mistral's own message format is close to OpenAI's with these differences: assistant messages
carry ``prefix: false`` and content as a list of parts, thinking replays as a ``thinking`` part
(``{"type": "thinking", "thinking": [{"type": "text", "text": …}]}``); images are
``{"type": "image_url", "image_url": "data:…"}``; a tool result is a ``tool`` message with its
name and text/image parts; tool-call ids are exactly 9 letters and digits, so ids from other
providers are shortened by a hash (``mistral_tool_call_id``).

Keys are written in Pi's wire order: the names Pi renames from camelCase end up last in their
object (``tool_calls`` after ``content``, ``tool_call_id`` after ``content``).
"""

from __future__ import annotations

import re

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.transform import accepts_images, image_data_url, transform_messages
from pi_harness.ai.types import AssistantMessage, Context, Model, Tool, ToolResultMessage, UserMessage

TOOL_CALL_ID_LENGTH = 9
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")
IMAGE_OMITTED = "(image omitted: model does not support images)"
_M32 = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    """32-bit multiplication as JavaScript's ``Math.imul`` (result as unsigned)."""
    return (a * b) & _M32


def short_hash(text: str) -> str:
    """Pi's short deterministic string hash (two 32-bit lanes in base 36), over UTF-16 units."""
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        ch = units[i] | (units[i + 1] << 8)
        h1 = _imul(h1 ^ ch, 2654435761)
        h2 = _imul(h2 ^ ch, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & _M32) + _base36(h1 & _M32)


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if value == 0:
        return "0"
    out = []
    while value:
        value, rest = divmod(value, 36)
        out.append(digits[rest])
    return "".join(reversed(out))


def derive_tool_call_id(tool_call_id: str, attempt: int = 0) -> str:
    normalized = _NOT_ALNUM.sub("", tool_call_id)
    if attempt == 0 and len(normalized) == TOOL_CALL_ID_LENGTH:
        return normalized
    seed_base = normalized or tool_call_id
    seed = seed_base if attempt == 0 else f"{seed_base}:{attempt}"
    return _NOT_ALNUM.sub("", short_hash(seed))[:TOOL_CALL_ID_LENGTH]


class ToolCallIdNormalizer:
    """Maps foreign ids to 9-character ones, never giving two ids the same result."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self._owners: dict[str, str] = {}

    def __call__(self, tool_call_id: str) -> str:
        known = self._ids.get(tool_call_id)
        if known is not None:
            return known
        attempt = 0
        while True:
            candidate = derive_tool_call_id(tool_call_id, attempt)
            owner = self._owners.get(candidate)
            if owner is None or owner == tool_call_id:
                self._ids[tool_call_id] = candidate
                self._owners[candidate] = tool_call_id
                return candidate
            attempt += 1


def _user_message(message: UserMessage, with_images: bool) -> JsonObject | None:
    content = message["content"]
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts: list[JsonValue] = []
    had_images = False
    for block in content:
        if block["type"] == "text":
            parts.append({"type": "text", "text": block["text"]})
        elif block["type"] == "image":
            had_images = True
            if with_images:
                parts.append({"type": "image_url", "image_url": image_data_url(block)})
    if parts:
        return {"role": "user", "content": parts}
    if had_images:
        return {"role": "user", "content": IMAGE_OMITTED}
    return None


def _assistant_message(message: AssistantMessage) -> JsonObject | None:
    parts: list[JsonValue] = []
    calls: list[JsonValue] = []
    for block in message["content"]:
        if block["type"] == "text":
            if block["text"].strip():
                parts.append({"type": "text", "text": block["text"]})
        elif block["type"] == "thinking":
            if block["thinking"].strip():
                parts.append({"type": "thinking", "thinking": [{"type": "text", "text": block["thinking"]}]})
        else:
            calls.append(
                {
                    "id": block["id"],
                    "type": "function",
                    "function": {"name": block["name"], "arguments": dumps_str(block["arguments"] or {})},
                    "index": 0,
                }
            )
    if not parts and not calls:
        return None
    out: JsonObject = {"role": "assistant", "prefix": False}
    if parts:
        out["content"] = parts
    if calls:
        out["tool_calls"] = calls
    return out


def tool_result_text(text: str, has_images: bool, with_images: bool, is_error: bool) -> str:
    trimmed = text.strip()
    prefix = "[tool error] " if is_error else ""
    if trimmed:
        suffix = "\n[tool image omitted: model does not support images]" if has_images and not with_images else ""
        return f"{prefix}{trimmed}{suffix}"
    if has_images:
        return f"{prefix}(see attached image)" if with_images else f"{prefix}{IMAGE_OMITTED}"
    return f"{prefix}(no tool output)"


def _tool_message(message: ToolResultMessage, with_images: bool) -> JsonObject:
    text = "\n".join(block["text"] for block in message["content"] if block["type"] == "text")
    images = [block for block in message["content"] if block["type"] == "image"]
    parts: list[JsonValue] = [
        {"type": "text", "text": tool_result_text(text, bool(images), with_images, bool(message.get("isError")))}
    ]
    if with_images:
        parts.extend({"type": "image_url", "image_url": image_data_url(image)} for image in images)
    return {"role": "tool", "name": message["toolName"], "content": parts, "tool_call_id": message["toolCallId"]}


def build_messages(model: Model, context: Context) -> list[JsonValue]:
    with_images = accepts_images(model)
    out: list[JsonValue] = []
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        out.append({"role": "system", "content": system_prompt})
    for message in transform_messages(context.get("messages", []), model, ToolCallIdNormalizer()):
        converted: JsonObject | None
        if message["role"] == "user":
            converted = _user_message(message, with_images)
        elif message["role"] == "assistant":
            converted = _assistant_message(message)
        else:
            converted = _tool_message(message, with_images)
        if converted is not None:
            out.append(converted)
    return out


def convert_tools(tools: list[Tool]) -> list[JsonValue]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool["description"],
                "parameters": tool["parameters"],
                "strict": False,
            },
        }
        for tool in tools
    ]
