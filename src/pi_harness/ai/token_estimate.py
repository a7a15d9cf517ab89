"""A cheap estimate of how many tokens a request context occupies, the way Pi 1.4.0 counts.

Used to keep the requested output cap inside the context window (``output_cap``). The figure is
deliberately rough: 3.5 characters a token, a fixed allowance per image, and, once an assistant
reply reported usage, that usage plus an estimate of what came after it. Lengths are counted in
UTF-16 code units because that is what Pi's JavaScript ``length`` measures, so both programs
arrive at the same number for the same conversation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import orjson

from pi_harness.ai.append_memo import AppendMemo
from pi_harness.ai.types import Context, Message, Tool, Usage

CHARS_PER_TOKEN = 3.5
IMAGE_CHARS = 4800


def js_length(text: str) -> int:
    """``text.length`` in JavaScript: characters outside the BMP count twice."""
    if text.isascii():
        return len(text)
    # UTF-16 code units; ``surrogatepass`` keeps a lone surrogate one unit, as in JavaScript.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _json_length(value: object) -> int:
    try:
        return js_length(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode())
    except TypeError:
        return len("[unserializable]")


def _tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _content_chars(content: object) -> int:
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            chars += js_length(str(block.get("text", "")))
        else:
            chars += IMAGE_CHARS
    return chars


def estimate_message_tokens(message: Message) -> int:
    if message["role"] != "assistant":
        return _tokens(_content_chars(message.get("content", "")))
    chars = 0
    for block in message["content"]:
        kind = block.get("type")
        if kind == "text":
            chars += js_length(str(block.get("text", "")))
        elif kind == "thinking":
            chars += js_length(str(block.get("thinking", "")))
        else:
            chars += js_length(str(block.get("name", ""))) + _json_length(block.get("arguments"))
    return _tokens(chars)


def _leading_tokens(system_prompt: str, tools: Sequence[Tool]) -> int:
    """The system prompt and tool list, which Pi folds into one leading system message."""
    tokens = _tokens(js_length(system_prompt))
    if tools:
        tokens += _tokens(_json_length(list(tools)))
    return tokens


def usage_tokens(usage: Usage) -> int:
    counts = [usage.get(key) for key in ("totalTokens", "input", "output", "cacheRead", "cacheWrite")]
    total, *parts = (int(count) if isinstance(count, int | float) else 0 for count in counts)
    return total or sum(parts)


def _last_usage_index(messages: Sequence[Message], start_timestamp: float) -> int | None:
    """The last assistant reply whose usage still describes the messages before it.

    A message inserted later with an older position but a newer timestamp (a compaction summary,
    say) means the reply's usage counted a different prefix, so it is not used.
    """
    # One pass with a small state (the newest timestamp so far, the last reply found), resumed
    # where the previous request's messages ended when these extend them (``AppendMemo``).
    start, state = _USAGE_MEMO.resume(messages, start_timestamp)
    newest, found = state if state is not None else (start_timestamp, None)
    for index in range(start, len(messages)):
        message = messages[index]
        stamp = message.get("timestamp")
        timestamp = float(stamp) if isinstance(stamp, int | float) else 0.0
        if (
            message["role"] == "assistant"
            and timestamp >= newest
            and message.get("stopReason") not in ("aborted", "error")
            and usage_tokens(message["usage"]) > 0
        ):
            found = index
        newest = max(newest, timestamp)
    _USAGE_MEMO.save(messages, start_timestamp, (newest, found))
    return found


_USAGE_MEMO: AppendMemo[tuple[float, int | None]] = AppendMemo()


def estimate_context_tokens(context: Context) -> int:
    messages = context.get("messages") or []
    system_prompt = context.get("systemPrompt") or ""
    tools = context.get("tools") or []
    has_leading = bool(system_prompt) or bool(tools)
    # The folded system message carries timestamp 0.
    index = _last_usage_index(messages, 0.0 if has_leading else -math.inf)
    if index is not None:
        reply = messages[index]
        assert reply["role"] == "assistant"
        return usage_tokens(reply["usage"]) + sum(estimate_message_tokens(m) for m in messages[index + 1 :])
    leading = _leading_tokens(system_prompt, tools) if has_leading else 0
    return leading + sum(estimate_message_tokens(m) for m in messages)
