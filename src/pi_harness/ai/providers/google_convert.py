"""Request building for the Gemini API (``google-generative-ai``): contents, tools, thinking.

Facts this module encodes:

* Roles are ``user`` and ``model``; tool results travel as ``functionResponse`` parts of a
  ``user`` content, consecutive results merged into one content so that they answer the
  preceding ``model`` turn's ``functionCall`` parts together.
* Tool-call ids are sent for ``claude-``/``gpt-oss-`` models served through this API and for
  Gemini 3 and later; older Gemini models pair calls and results by position and name.
* Images of a tool result go inside its ``functionResponse`` for Gemini 3 and later (and models
  that are not Gemini); older Gemini models get them in a user turn right after the result.
* Thought signatures are replayed only to the same provider+model and only when they are valid
  base64; a part whose text is empty is still sent when it carries one.
* Tool parameters go out as ``parametersJsonSchema`` (full JSON Schema, so ``additionalProperties``,
  ``$ref``/``$defs`` and ``anyOf`` are accepted). Two adjustments are made: the ``$schema`` keyword
  is dropped, and an ``anyOf`` whose branches are all ``const`` strings is rewritten to
  ``{"type": "string", "enum": [...]}``, the enum form Gemini handles reliably.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TypeGuard

from pi_harness.ai.json_values import JsonValue
from pi_harness.ai.jsonutil import sanitize_surrogates
from pi_harness.ai.providers.constrained_sampling import strict_sampling, tool_parameters
from pi_harness.ai.providers.google_wire import (
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateContentRequest,
    GenerationConfig,
    Part,
    ThinkingConfig,
    ToolDeclarations,
)
from pi_harness.ai.transform import (
    IMAGE_ONLY_RESULT_TEXT,
    accepts_images,
    is_same_model,
    tool_result_texts,
)
from pi_harness.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    Tool,
    ToolResultMessage,
    UserMessage,
)

# The text of the user turn that carries a tool result's images to older Gemini models.
TOOL_RESULT_IMAGE_TEXT = "Tool result image:"

_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_GEMINI_VERSION = re.compile(r"gemini(?:-live)?-(\d+)")


# --- model families ---------------------------------------------------------------------------


def gemini_major_version(model_id: str) -> int | None:
    match = _GEMINI_VERSION.match(model_id.lower())
    return int(match.group(1)) if match else None


def supports_strict_tools(model_id: str) -> bool:
    """Gemini 3 and later enforce a tool's schema in the ``VALIDATED`` function-calling mode."""
    major = gemini_major_version(model_id)
    return major is not None and major >= 3


def requires_tool_call_id(model_id: str) -> bool:
    """Claude and gpt-oss models behind the Gemini API, and Gemini 3 and later, pair tool results
    with their calls by id."""
    major = gemini_major_version(model_id)
    return model_id.startswith(("claude-", "gpt-oss-")) or (major is not None and major >= 3)


def takes_images_in_function_responses(model_id: str) -> bool:
    """Gemini 3 and later (and models that are not Gemini) accept images inside a
    ``functionResponse``; older Gemini models get them in a user turn after it."""
    major = gemini_major_version(model_id)
    return major is None or major >= 3


def is_valid_signature(signature: object) -> TypeGuard[str]:
    if not isinstance(signature, str) or not signature or len(signature) % 4 != 0:
        return False
    if not _BASE64.match(signature):
        return False
    try:
        base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


# --- tools ------------------------------------------------------------------------------------


def clean_schema(schema: JsonValue) -> JsonValue:
    """Copy of a JSON Schema adjusted for Gemini (see the module docstring)."""
    if isinstance(schema, list):
        return [clean_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    branches = schema.get("anyOf")
    if isinstance(branches, list) and branches and all(_is_string_const(b) for b in branches):
        rest = {k: clean_schema(v) for k, v in schema.items() if k not in ("anyOf", "$schema")}
        consts: list[JsonValue] = [b["const"] for b in branches if isinstance(b, dict)]
        return {**rest, "type": "string", "enum": consts}
    return {key: clean_schema(value) for key, value in schema.items() if key != "$schema"}


def _is_string_const(branch: object) -> bool:
    return isinstance(branch, dict) and isinstance(branch.get("const"), str)


def convert_tools(tools: list[Tool], strict_supported: bool = False) -> list[ToolDeclarations]:
    """Function declarations; a strict tool (see ``constrained_sampling``) sends the strict form
    of its schema, which the ``VALIDATED`` mode then enforces."""
    declarations: list[FunctionDeclaration] = []
    for tool in tools:
        strict = strict_sampling(tool, strict_supported)
        parameters = tool_parameters(tool, strict) if tool.get("parameters") else None
        declarations.append(
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parametersJsonSchema": clean_schema(parameters or {"type": "object", "properties": {}}),
            }
        )
    return [{"functionDeclarations": declarations}]


def function_calling_mode(tools: list[Tool], tool_choice: str | None, strict_supported: bool) -> str | None:
    """``toolConfig.functionCallingConfig.mode``: ``NONE``/``ANY`` when asked for; else
    ``VALIDATED`` when some tool goes out strict; else the choice asked for (``AUTO``), or none."""
    choice = tool_choice.lower() if tool_choice else None
    if choice in ("none", "any"):
        return choice.upper()
    if any(strict_sampling(tool, strict_supported) is True for tool in tools):
        return "VALIDATED"
    return "AUTO" if choice else None


# --- messages ---------------------------------------------------------------------------------


def _image_part(image: ImageContent) -> Part:
    return {"inlineData": {"mimeType": image["mimeType"], "data": image["data"]}}


def _user_parts(message: UserMessage, model: Model) -> list[Part]:
    content = message["content"]
    if isinstance(content, str):
        return [{"text": sanitize_surrogates(content)}]
    parts: list[Part] = []
    for block in content:
        if block["type"] == "text":
            parts.append({"text": sanitize_surrogates(block["text"])})
        elif block["type"] == "image" and accepts_images(model):
            parts.append(_image_part(block))
    return parts


def _model_parts(message: AssistantMessage, model: Model) -> list[Part]:
    same = is_same_model(message, model)

    def signature(value: object) -> str | None:
        return value if same and is_valid_signature(value) else None

    parts: list[Part] = []
    for block in message["content"]:
        if block["type"] == "text":
            sig = signature(block.get("textSignature"))
            # An empty part is kept when it carries a signature: Gemini wants it echoed back.
            if not block["text"].strip() and not sig:
                continue
            part: Part = {"text": sanitize_surrogates(block["text"])}
            if sig:
                part["thoughtSignature"] = sig
            parts.append(part)
        elif block["type"] == "thinking":
            if block.get("redacted"):
                continue
            sig = signature(block.get("thinkingSignature"))
            if not block["thinking"].strip() and not sig:
                continue
            if same:
                part = {"thought": True, "text": sanitize_surrogates(block["thinking"])}
                if sig:
                    part["thoughtSignature"] = sig
            else:
                part = {"text": sanitize_surrogates(block["thinking"])}
            parts.append(part)
        elif block["type"] == "toolCall":
            call: FunctionCall = {"name": block["name"], "args": block.get("arguments") or {}}
            if requires_tool_call_id(model["id"]):
                call["id"] = block["id"]
            part = {"functionCall": call}
            if sig := signature(block.get("thoughtSignature")):
                part["thoughtSignature"] = sig
            parts.append(part)
    return parts


def _function_response(result: ToolResultMessage, model: Model) -> tuple[Part, list[Part]]:
    """The ``functionResponse`` part and the image parts that must travel beside it."""
    texts = tool_result_texts(result["content"])
    images = [_image_part(b) for b in result["content"] if b["type"] == "image"] if accepts_images(model) else []
    value = sanitize_surrogates("\n".join(texts)) if texts else (IMAGE_ONLY_RESULT_TEXT if images else "")
    response: FunctionResponse = {
        "name": result["toolName"],
        "response": {"error": value} if result.get("isError") else {"output": value},
    }
    inline_images = bool(images) and takes_images_in_function_responses(model["id"])
    if inline_images:
        response["parts"] = images
    if requires_tool_call_id(model["id"]):
        response["id"] = result["toolCallId"]
    return {"functionResponse": response}, ([] if inline_images else images)


def convert_messages(messages: list[Message], model: Model) -> list[Content]:
    """Already transformed messages (``transform_messages``) → Gemini ``contents``."""
    contents: list[Content] = []
    for message in messages:
        if message["role"] == "toolResult":
            part, images = _function_response(message, model)
            last = contents[-1] if contents else None
            if last is not None and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
                last["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            if images:
                # Right after its result (as Pi sends them); the next result starts a new turn.
                contents.append({"role": "user", "parts": [{"text": TOOL_RESULT_IMAGE_TEXT}, *images]})
            continue
        if message["role"] == "user":
            parts = _user_parts(message, model)
            if parts:
                contents.append({"role": "user", "parts": parts})
        elif message["role"] == "assistant":
            parts = _model_parts(message, model)
            if parts:
                contents.append({"role": "model", "parts": parts})
    return contents


def build_request(
    model: Model,
    context: Context,
    messages: list[Message],
    *,
    temperature: float | None,
    max_tokens: int | None,
    thinking_config: ThinkingConfig | None,
    tool_choice: str | None,
) -> GenerateContentRequest:
    """The ``GenerateContentRequest`` body (REST field names)."""
    body: GenerateContentRequest = {"contents": convert_messages(messages, model)}
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        body["systemInstruction"] = {"role": "user", "parts": [{"text": sanitize_surrogates(system_prompt)}]}
    tools = context.get("tools") or []
    if tools:
        strict_supported = supports_strict_tools(model["id"])
        body["tools"] = convert_tools(tools, strict_supported)
        mode = function_calling_mode(tools, tool_choice, strict_supported)
        if mode is not None:
            body["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    generation: GenerationConfig = {}
    if temperature is not None:
        generation["temperature"] = temperature
    if max_tokens is not None:
        generation["maxOutputTokens"] = max_tokens
    if thinking_config is not None:
        generation["thinkingConfig"] = thinking_config
    if generation:
        body["generationConfig"] = generation
    return body
