"""Tool calls that a model wrote as text (beyond Pi).

Small local models often answer a tool request with the call spelled out in the message text
instead of the API's ``tool_calls``: bare JSON ``{"name": …, "arguments": …}``, the same in a
fenced ```` ```json ```` block, Hermes/Qwen ``<tool_call>…</tool_call>`` tags, Qwen3-Coder's
``<function=name><parameter=key>…`` markup, Llama's ``<|python_tag|>`` or ``<function=name>{…}``,
or Mistral's ``[TOOL_CALLS][…]``. ``parse_text_tool_calls`` reads such a text as calls only when
the WHOLE text is calls (whitespace aside) and every name is one of the offered tools; prose
around a call, a call cut short, or an unknown name leave the message as it is.

``recover_text_tool_calls`` wraps a provider's event stream: while the text so far could still
become a call, its text events are held back; a text that turns out to be a call ends as
``toolcall_*`` events and a ``done`` with ``stopReason: "toolUse"``, so consumers and the session
see exactly what a native call produces. Anything else is released unchanged, in order.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import cast

from pi_harness.ai.events import AssistantMessageEvent
from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantContent, AssistantMessage, Context, ToolCall

# Openings a whole-message call can start with (compared on the stripped text).
_OPENINGS = ("{", "[", "```", "<tool_call>", "<function=", "<|python_tag|>", "[TOOL_CALLS]")
_FENCE = re.compile(r"^```[ \t]*(?:json|tool_call|tool_code)?[ \t]*\n(?P<body>.*)\n[ \t]*```$", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>(?P<body>.*?)(?:</tool_call>|$)", re.DOTALL)
_XML_FUNCTION = re.compile(r"^<function=(?P<name>[^>\s]+)>(?P<body>.*?)</function>$", re.DOTALL)
_XML_PARAMETER = re.compile(r"<parameter=(?P<key>[^>\s]+)>\n?(?P<value>.*?)\n?</parameter>", re.DOTALL)
_ID_ALPHABET = string.ascii_letters + string.digits


@dataclass(frozen=True)
class TextCall:
    name: str
    arguments: JsonObject


def could_become_call(text: str) -> bool:
    """Whether a text that is still growing may turn out to be a whole-message call."""
    stripped = text.lstrip()
    if not stripped:
        return True
    return any(stripped.startswith(o) or o.startswith(stripped) for o in _OPENINGS)


def parse_text_tool_calls(
    text: str, tool_names: Collection[str], schemas: Mapping[str, JsonObject] | None = None
) -> list[TextCall] | None:
    """The calls the whole ``text`` consists of, or None when it is anything else."""
    body = text.strip()
    if not body or not tool_names:
        return None
    calls = _parse(body, schemas or {})
    if not calls or any(call.name not in tool_names for call in calls):
        return None
    return calls


def _parse(body: str, schemas: Mapping[str, JsonObject]) -> list[TextCall] | None:
    fence = _FENCE.match(body)
    if fence:
        return _parse(fence.group("body").strip(), schemas)
    if body.startswith("[TOOL_CALLS]"):
        return _json_calls(body[len("[TOOL_CALLS]") :].strip())
    if body.startswith("<|python_tag|>"):
        return _json_calls(body[len("<|python_tag|>") :].strip())
    if body.startswith("<tool_call>"):
        return _tagged_calls(body, schemas)
    if body.startswith("<function="):
        return _function_markup(body, schemas)
    return _json_calls(body)


def _tagged_calls(body: str, schemas: Mapping[str, JsonObject]) -> list[TextCall] | None:
    calls: list[TextCall] = []
    position = 0
    for match in _TAGGED.finditer(body):
        if body[position : match.start()].strip():
            return None  # text between the tags: a mixed message
        position = match.end()
        inner = match.group("body").strip()
        found = _function_markup(inner, schemas) if inner.startswith("<function=") else _json_calls(inner)
        if not found:
            return None
        calls.extend(found)
    return calls if calls and not body[position:].strip() else None


def _function_markup(body: str, schemas: Mapping[str, JsonObject]) -> list[TextCall] | None:
    match = _XML_FUNCTION.match(body.strip())
    if not match:
        return None
    name, inner = match.group("name"), match.group("body").strip()
    if inner.startswith("{"):
        # Llama 3.1's ``<function=name>{"arg": …}</function>``
        arguments = _loads(inner)
        return [TextCall(name, arguments)] if isinstance(arguments, dict) else None
    properties = _properties(schemas.get(name))
    args: JsonObject = {}
    position = 0
    for parameter in _XML_PARAMETER.finditer(inner):
        if inner[position : parameter.start()].strip():
            return None
        position = parameter.end()
        key, value = parameter.group("key"), parameter.group("value")
        args[key] = _typed_value(value, properties.get(key))
    return [TextCall(name, args)] if not inner[position:].strip() else None


def _properties(schema: JsonObject | None) -> Mapping[str, object]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return properties if isinstance(properties, Mapping) else {}


def _typed_value(value: str, schema: object) -> JsonValue:
    """A markup parameter is text; non-string parameters are read as JSON when they parse."""
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if kind == "string":
        return value
    parsed = _loads(value.strip())
    return value if parsed is _INVALID else cast(JsonValue, parsed)


_INVALID = object()


def _loads(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return _INVALID


def _json_calls(body: str) -> list[TextCall] | None:
    data = _loads(body)
    items = data if isinstance(data, list) else [data]
    calls: list[TextCall] = []
    for item in items:
        call = _json_call(item)
        if call is None:
            return None
        calls.append(call)
    return calls or None


def _json_call(item: object) -> TextCall | None:
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict) and "name" in function:
        item = function  # ``{"type": "function", "function": {"name", "arguments"}}``
    name = item.get("name")
    keys = set(item) - {"name", "type", "id"}
    if not isinstance(name, str) or len(keys) != 1 or not keys <= {"arguments", "parameters"}:
        return None
    arguments = item[keys.pop()]
    if isinstance(arguments, str):
        arguments = _loads(arguments)
    return TextCall(name, arguments) if isinstance(arguments, dict) else None


# --- the stream wrapper ------------------------------------------------------------------------


def offered_tools(context: Context) -> dict[str, JsonObject]:
    """Name -> parameter schema of the tools offered in ``context``."""
    tools = context.get("tools") or []
    return {tool["name"]: tool.get("parameters", {}) for tool in tools}


def new_call_id() -> str:
    import secrets  # here: it loads OpenSSL's libcrypto (MiBs), which startup does not need

    return "call_" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(24))


def recover_text_tool_calls(inner: AssistantMessageEventStream, context: Context) -> AssistantMessageEventStream:
    """A stream that forwards ``inner``, turning a whole-message text call into a tool call."""
    tools = offered_tools(context)
    if not tools:
        return inner
    outer = AssistantMessageEventStream()
    inner.relay_to(_Recovery(outer, tools))
    return outer


class _Recovery:
    """Forwards the events of a stream as they are pushed (``AssistantMessageEventStream.relay_to``),
    holding back the text events while the text could still be a whole-message call."""

    __slots__ = ("_held", "_holding", "_outer", "_stopped", "_tools")

    def __init__(self, outer: AssistantMessageEventStream, tools: Mapping[str, JsonObject]) -> None:
        self._outer = outer
        self._tools = tools
        self._held: list[AssistantMessageEvent] = []
        self._holding = True  # still possible that the message is one text call
        self._stopped = False

    def event(self, event: AssistantMessageEvent) -> None:
        if self._stopped:
            return
        try:
            self._event(event)
        except Exception:
            # Whatever went wrong here, the outer stream goes on with everything, as it came.
            self._stopped = True
            _release(self._outer, self._held)
            self._outer.push(event)

    def _event(self, event: AssistantMessageEvent) -> None:
        outer, held = self._outer, self._held
        kind = event["type"]
        if self._holding and kind in ("text_start", "text_delta", "text_end"):
            held.append(event)
            if event["type"] == "text_delta" and not could_become_call(_text_of(event["partial"])):
                self._holding = False
                _release(outer, held)
            return
        if event["type"] == "done" and self._holding:
            recovered = _recovered(event["message"], self._tools) if event["reason"] == "stop" else None
            if recovered is not None:
                held.clear()
                self._stopped = True
                _emit_calls(outer, event["message"], recovered)
                return
        if held and kind not in ("start", "done", "error"):
            # Another block after the text (a native call, thinking): not a whole-message call.
            self._holding = False
        _release(outer, held)
        outer.push(event)

    def ended(self, result: AssistantMessage | None) -> None:
        """The inner stream ended: so does the outer one, with everything that was held."""
        if not self._outer.closed:
            _release(self._outer, self._held)
            self._outer.end(result)


def _release(outer: AssistantMessageEventStream, held: list[AssistantMessageEvent]) -> None:
    for event in held:
        outer.push(event)
    held.clear()


def _text_of(message: AssistantMessage) -> str:
    return "".join(block["text"] for block in message["content"] if block["type"] == "text")


def _recovered(message: AssistantMessage, tools: Mapping[str, JsonObject]) -> list[TextCall] | None:
    texts = [block for block in message["content"] if block["type"] == "text"]
    others = [block for block in message["content"] if block["type"] not in ("text", "thinking")]
    # One text block, last (thinking may come before it, its events were forwarded already).
    if len(texts) != 1 or others or message["content"][-1] is not texts[0]:
        return None
    return parse_text_tool_calls(texts[0]["text"], tools.keys(), tools)


def _emit_calls(outer: AssistantMessageEventStream, message: AssistantMessage, calls: list[TextCall]) -> None:
    """The message again with its text block replaced by tool-call blocks, ended as a tool use."""
    content: list[AssistantContent] = [block for block in message["content"] if block["type"] != "text"]
    partial: AssistantMessage = {**message, "content": content, "stopReason": "toolUse"}
    for call in calls:
        block: ToolCall = {"type": "toolCall", "id": new_call_id(), "name": call.name, "arguments": {}}
        content.append(block)
        index = len(content) - 1
        outer.push({"type": "toolcall_start", "contentIndex": index, "partial": partial})
        block["arguments"] = call.arguments
        delta = json.dumps(call.arguments, ensure_ascii=False)
        outer.push({"type": "toolcall_delta", "contentIndex": index, "delta": delta, "partial": partial})
        outer.push({"type": "toolcall_end", "contentIndex": index, "toolCall": block, "partial": partial})
    outer.push({"type": "done", "reason": "toolUse", "message": partial})
