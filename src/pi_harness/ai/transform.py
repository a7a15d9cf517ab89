"""Cross-provider replay of a conversation: what a model may see of another model's turns.

Before conversion to a wire format every provider runs ``transform_messages``: content that
only the producing model can read is dropped or downgraded, tool-call ids are normalised for
the target API, failed assistant turns are skipped, and tool calls left without a result get a
synthetic ``No result provided`` error result so that providers accept the sequence.

The texts every converter writes in place of content an API cannot carry live here too, so all
providers word them the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from types import FunctionType

from pi_harness.ai.append_memo import AppendMemo, Lineage, issue
from pi_harness.ai.types import AssistantContent, AssistantMessage, ImageContent, Message, Model, ToolCall, UserContent

IdNormalizer = Callable[[str], str]

NO_RESULT_TEXT = "No result provided"
# The text of a tool result that carried only images, so that it is never empty.
IMAGE_ONLY_RESULT_TEXT = "(see attached image)"
# Introduces the images of tool results, sent as a user message where results cannot hold images.
TOOL_RESULT_IMAGES_TEXT = "Attached image(s) from tool result:"
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def is_same_model(message: AssistantMessage, model: Model) -> bool:
    return (
        message.get("provider") == model["provider"]
        and message.get("api") == model["api"]
        and message.get("model") == model["id"]
    )


def accepts_images(model: Model) -> bool:
    """Whether the model takes image input; converters leave images out for the others."""
    return "image" in model.get("input", [])


def image_data_url(image: ImageContent) -> str:
    """The image as a ``data:`` URL, the form the OpenAI APIs take images in."""
    return f"data:{image['mimeType']};base64,{image['data']}"


def tool_result_texts(content: list[UserContent]) -> list[str]:
    """The texts of a tool result's text blocks, in order (converters join them with newlines)."""
    return [block.get("text", "") for block in content if block["type"] == "text"]


def sanitize_tool_call_id(tool_call_id: str, max_length: int = 64) -> str:
    return _UNSAFE_ID_CHARS.sub("_", tool_call_id)[:max_length]


def normalize_id_anthropic(tool_call_id: str) -> str:
    return sanitize_tool_call_id(tool_call_id, 64)


def make_openai_completions_normalizer(model: Model) -> IdNormalizer:
    def normalize(tool_call_id: str) -> str:
        if "|" in tool_call_id:
            return sanitize_tool_call_id(tool_call_id.split("|", 1)[0], 40)
        if model["provider"] == "openai":
            return tool_call_id[:40]
        return tool_call_id

    return normalize


def normalize_id_openai_responses(tool_call_id: str) -> str:
    if "|" not in tool_call_id:
        return tool_call_id
    call_id, item_id = tool_call_id.split("|", 1)
    call_id = sanitize_tool_call_id(call_id, 64).rstrip("_")
    item_id = _UNSAFE_ID_CHARS.sub("_", item_id)
    if not item_id.startswith("fc"):
        item_id = "fc_" + item_id
    item_id = item_id[:64].rstrip("_")
    return f"{call_id}|{item_id}"


def make_google_normalizer(model: Model) -> IdNormalizer | None:
    """Ids go to the Gemini API only for Claude and gpt-oss models and Gemini 3 and later."""
    model_id = model["id"]
    major = re.match(r"gemini(?:-live)?-(\d+)", model_id.lower())
    if model_id.startswith(("claude-", "gpt-oss-")) or (major is not None and int(major.group(1)) >= 3):
        return normalize_id_anthropic
    return None


@dataclass
class _Transformed:
    """The state of the transform after some messages (``AppendMemo``)."""

    renamed: dict[str, str] = field(default_factory=dict)
    out: list[Message] = field(default_factory=list)  # only appended to: issued as ``AppendOnly``
    lineage: Lineage = field(default_factory=Lineage)
    pending: list[ToolCall] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)


_MEMO: AppendMemo[_Transformed] = AppendMemo()


def _normalizer_key(normalize: IdNormalizer | None) -> Hashable | None:
    """What identifies a normaliser across calls; None for one with a state of its own (an object
    that numbers the ids it sees), which the transform then never resumes."""
    if normalize is None:
        return "none"
    if isinstance(normalize, FunctionType):
        # A module function, or a closure over the model (which the memo's key names too).
        return (normalize.__module__, normalize.__qualname__)
    return None


def transform_messages(
    messages: list[Message], model: Model, normalize_tool_call_id: IdNormalizer | None = None
) -> list[Message]:
    """Pass 1 (per-message replay rules) then pass 2 (sequence repair); inputs are not mutated.

    Both passes go message by message with a small state, so a request that extends the previous
    one resumes from it (``AppendMemo``) and only its new messages are transformed."""
    normalizer = _normalizer_key(normalize_tool_call_id)
    key = None if normalizer is None else (model["provider"], model["api"], model["id"], normalizer)
    start, state = _MEMO.resume(messages, key) if key is not None else (0, None)
    if state is None:
        start, state = 0, _Transformed()
    renamed = state.renamed
    for message in messages[start:]:
        if message["role"] == "assistant":
            _repair_step(state, _transform_assistant(message, model, normalize_tool_call_id, renamed))
        elif message["role"] == "toolResult":
            new_id = renamed.get(message["toolCallId"])
            _repair_step(state, message if new_id is None else {**message, "toolCallId": new_id})
        else:
            _repair_step(state, message)
    if key is None:
        return list(state.out)
    _MEMO.save(messages, key, state)
    return issue(state.out, state.lineage)


def _transform_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: IdNormalizer | None,
    renamed: dict[str, str],
) -> AssistantMessage:
    same = is_same_model(message, model)
    content: list[AssistantContent] = []
    # The message itself when no block changes (the common case, a turn of this model): the
    # converters' memos recognise a message by its identity.
    changed = "content" not in message
    for block in message.get("content", []):
        if block["type"] == "thinking":
            # Another model's thinking is dropped, as Pi 1.4.0 does: its signatures mean nothing
            # to this model, and as plain text it would read as part of the visible reply.
            if not same:
                changed = True
                continue
            if block.get("redacted") or block.get("thinkingSignature") or block.get("thinking", "").strip():
                content.append(block)
            else:
                changed = True
        elif block["type"] == "toolCall":
            if same:
                content.append(block)
                continue
            call = block.copy()
            call.pop("thoughtSignature", None)
            if normalize is not None:
                new_id = normalize(call["id"])
                if new_id != call["id"]:
                    renamed[call["id"]] = new_id
                    call["id"] = new_id
            content.append(call)
            changed = True
        elif block["type"] == "text":
            if same or "textSignature" not in block:
                content.append(block)
            else:
                content.append({"type": "text", "text": block.get("text", "")})
                changed = True
        else:
            content.append(block)
    return {**message, "content": content} if changed else message


def _repair_step(state: _Transformed, message: Message) -> None:
    """One message through the sequence repair: failed turns skipped, orphaned results dropped,
    calls left without a result answered with an error result before the next turn."""
    out, pending, answered = state.out, state.pending, state.answered
    if message["role"] == "assistant":
        if message.get("stopReason") in ("error", "aborted"):
            return
        _flush(state)
        pending.extend(block for block in message.get("content", []) if block["type"] == "toolCall")
        out.append(message)
    elif message["role"] == "toolResult":
        call_id = message["toolCallId"]
        if not any(call["id"] == call_id for call in pending):
            return  # orphaned (its call was in a skipped turn): providers would reject it
        answered.add(call_id)
        out.append(message)
    else:
        _flush(state)
        out.append(message)


def _flush(state: _Transformed) -> None:
    for call in state.pending:
        if call["id"] not in state.answered:
            state.out.append(
                {
                    "role": "toolResult",
                    "toolCallId": call["id"],
                    "toolName": call["name"],
                    "content": [{"type": "text", "text": NO_RESULT_TEXT}],
                    "isError": True,
                    "timestamp": 0,
                }
            )
    state.pending.clear()
    state.answered.clear()
