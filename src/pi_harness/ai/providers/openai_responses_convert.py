"""Context → OpenAI Responses request pieces: ``input`` items, tools, and the replay signatures.

Replay metadata (the signatures Pi keeps on content blocks) only survives for the same model (``transform_messages``
drops or downgrades it otherwise):

* a text block's ``textSignature`` names its output message item: a JSON string
  ``{"v":1,"id":…,"phase"?:…}`` or, in older sessions, the bare item id;
* a thinking block's ``thinkingSignature`` is the whole reasoning item (id, summary,
  encrypted content) as JSON, sent back verbatim;
* a tool call's id is ``call_id|item_id``; the item id is only sent back to the model that
  produced it, because OpenAI pairs ``fc_`` items with the reasoning item before them.
"""

from __future__ import annotations

import hashlib

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.providers.constrained_sampling import strict_sampling, tool_parameters
from pi_harness.ai.providers.openai_responses_wire import (
    FunctionCallItem,
    FunctionCallOutputItem,
    FunctionTool,
    InputContent,
    InputImage,
    InputItem,
    InputMessage,
    InstructionMessage,
    OutputMessageItem,
    TextSignature,
)
from pi_harness.ai.transform import (
    IMAGE_ONLY_RESULT_TEXT,
    accepts_images,
    image_data_url,
    is_same_model,
    normalize_id_openai_responses,
    tool_result_texts,
    transform_messages,
)
from pi_harness.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)

_MAX_ITEM_ID = 64


def encode_text_signature(item_id: str, phase: str | None = None) -> str:
    signature: TextSignature = {"v": 1, "id": item_id}
    if phase:
        signature["phase"] = phase
    return dumps_str(signature)


def decode_text_signature(signature: str) -> tuple[str, str | None]:
    """``(item id, phase)`` from either signature form."""
    if signature.startswith("{"):
        try:
            data = loads(signature)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            phase = data.get("phase")
            return data["id"], phase if isinstance(phase, str) else None
    return signature, None


def _item_id(candidate: str | None, fallback: str) -> str:
    item_id = candidate or fallback
    if len(item_id) > _MAX_ITEM_ID:  # OpenAI rejects longer ids
        item_id = "msg_" + hashlib.sha256(item_id.encode("utf-8")).hexdigest()[:32]
    return item_id


def _image_part(image: ImageContent) -> InputImage:
    return {"type": "input_image", "detail": "auto", "image_url": image_data_url(image)}


def _user_item(message: UserMessage, model: Model) -> InputMessage | None:
    content = message["content"]
    if isinstance(content, str):
        parts: list[InputContent] = [{"type": "input_text", "text": content}]
    else:
        with_images = accepts_images(model)
        parts = []
        for block in content:
            if block["type"] == "text":
                parts.append({"type": "input_text", "text": block["text"]})
            elif block["type"] == "image" and with_images:
                parts.append(_image_part(block))
    if not parts:
        return None
    return {"role": "user", "content": parts}


def _assistant_items(message: AssistantMessage, model: Model, message_index: int) -> list[InputItem]:
    same_model = is_same_model(message, model)
    items: list[InputItem] = []
    for block_index, block in enumerate(message["content"]):
        if block["type"] == "thinking":
            reasoning = _reasoning_item(block.get("thinkingSignature"))
            if reasoning is not None:
                items.append(reasoning)
        elif block["type"] == "text":
            text_block: TextContent = block
            if not text_block["text"]:
                continue
            signature = text_block.get("textSignature")
            item_id, phase = decode_text_signature(signature) if signature else (None, None)
            item: OutputMessageItem = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text_block["text"], "annotations": []}],
                "status": "completed",
                "id": _item_id(item_id, f"msg_{message_index}_{block_index}"),
            }
            if phase:
                item["phase"] = phase
            items.append(item)
        elif block["type"] == "toolCall":
            call_id, _, fc_id = block["id"].partition("|")
            # Keys in Pi's order; the item id goes back only to the model that made it, and only
            # when it is a function-call id (a foreign call's id would fail the pairing check).
            name, arguments = block["name"], dumps_str(block["arguments"])
            call: FunctionCallItem
            if same_model and fc_id.startswith("fc_"):
                call = {"type": "function_call", "id": fc_id, "call_id": call_id, "name": name, "arguments": arguments}
            else:
                call = {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
            items.append(call)
    return items


def _reasoning_item(signature: str | None) -> JsonObject | None:
    if not signature:
        return None
    try:
        item = loads(signature)
    except ValueError:
        return None
    if isinstance(item, dict) and item.get("type") == "reasoning":
        return item
    return None


def _tool_result_item(message: ToolResultMessage, model: Model) -> FunctionCallOutputItem:
    text = "\n".join(tool_result_texts(message["content"]))
    images = [_image_part(block) for block in message["content"] if block["type"] == "image"]
    output: str | list[InputContent]
    if images and accepts_images(model):
        parts: list[InputContent] = [{"type": "input_text", "text": text}] if text else []
        parts.extend(images)
        output = parts
    else:
        output = text if text else (IMAGE_ONLY_RESULT_TEXT if images else "")
    return {
        "type": "function_call_output",
        "call_id": message["toolCallId"].partition("|")[0],
        "output": output,
    }


def build_input(model: Model, context: Context) -> list[InputItem]:
    """The ``input`` array: system prompt, then the replayable conversation."""
    items: list[InputItem] = []
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        system: InstructionMessage = {
            "role": "developer" if model.get("reasoning") else "system",
            "content": system_prompt,
        }
        items.append(system)
    messages = transform_messages(context.get("messages", []), model, normalize_id_openai_responses)
    for index, message in enumerate(messages):
        if message["role"] == "user":
            user_item = _user_item(message, model)
            if user_item is not None:
                items.append(user_item)
        elif message["role"] == "assistant":
            items.extend(_assistant_items(message, model, index))
        elif message["role"] == "toolResult":
            items.append(_tool_result_item(message, model))
    return items


def convert_tools(tools: list[Tool], *, supports_strict: bool = True) -> list[FunctionTool]:
    """Function tools; with ``supports_strict`` each carries ``strict`` (``true`` for a tool that
    asks for strict sampling and has a strict form of its schema, which is then sent), without
    it none does. OpenAI's own Responses API takes ``strict``; compatible servers may not."""
    converted: list[FunctionTool] = []
    for tool in tools:
        strict = strict_sampling(tool, supports_strict)
        function: FunctionTool = {
            "type": "function",
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool_parameters(tool, strict),
        }
        if supports_strict:
            function["strict"] = strict is True
        converted.append(function)
    return converted
