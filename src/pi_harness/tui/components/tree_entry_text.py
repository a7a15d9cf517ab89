"""What a ``/tree`` row says about its entry, in Pi 1.4.0's words and colours.

Each kind of entry has its own shape: ``user: …`` and ``assistant: …`` with the message's text
(its first 200 characters on one line), a tool result as the call that produced it
(``[read: ~/app.py:10-29]``, ``[bash: make test]``), ``[bash]: …`` for a ``!`` command,
``[compaction: 50k tokens]``, ``[branch summary]: …``, ``[model: …]``, ``[thinking: …]``,
``[label: …]``, ``[title: …]``, ``[<role>]`` for any other message (``[system]``). The text is
built as coloured parts so the plain form (for search and tests) and the drawn form agree.

Search matches every whitespace-separated word of the query, case-insensitively, against the
entry's searchable text (its label, role or kind, and content), as Pi's tree does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pi_harness.coding.session_store.tree import SessionTreeNode
from pi_harness.tui.components.base import shorten_path
from pi_harness.tui.components.content import blocks, mapping
from pi_harness.tui.theme import Theme, bold, italic

MAX_CONTENT = 200  # characters of a message's text in its row
MAX_ERROR = 80
MAX_COMMAND = 50
MAX_ARGUMENTS = 40

ToolCalls = Mapping[str, tuple[str, Mapping[str, object]]]  # tool call id -> (name, arguments)


@dataclass(frozen=True)
class Part:
    token: str | None  # theme colour, None: the default
    text: str
    slanted: bool = False


def tool_call_index(roots: Iterable[SessionTreeNode]) -> dict[str, tuple[str, Mapping[str, object]]]:
    """Every tool call of the tree's assistant messages, by id (tool results are named by it)."""
    calls: dict[str, tuple[str, Mapping[str, object]]] = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        entry = node.entry
        message = mapping(entry.get("message")) if entry.get("type") == "message" else {}
        if message.get("role") != "assistant":
            continue
        for block in blocks(message.get("content")):
            if block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                calls[str(block["id"])] = (str(block.get("name")), mapping(block.get("arguments")))
    return calls


def _normalize(text: str) -> str:
    return text.replace("\n", " ").replace("\t", " ").strip()


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(block.get("text") or "") for block in blocks(content) if block.get("type") == "text")


def _line_range(offset: object, limit: object) -> str:
    """Pi's ``:start-end`` of a read (``:start`` without a limit, nothing when malformed)."""

    def number(value: object) -> float | None:
        if isinstance(value, str) and value.strip():
            try:
                value = float(value)
            except ValueError:
                return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        return value

    if offset is None and limit is None:
        return ""
    start = 1.0 if offset is None else number(offset)
    if start is None:
        return ""
    if limit is None:
        return f":{_js_number(start)}"
    count = number(limit)
    if count is None:
        return ""
    end = start + count - 1
    return f":{_js_number(start)}" + (f"-{_js_number(end)}" if end else "")


def _js_number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def format_tool_call(name: str, arguments: Mapping[str, object], home: str | None = None) -> str:
    """A tool call in a few words, as Pi's tree shows a tool result."""
    file = shorten_path(str(arguments.get("path") or arguments.get("file_path") or ""), home)
    where = shorten_path(str(arguments.get("path") or "."), home)
    if name == "read":
        return f"[read: {file}{_line_range(arguments.get('offset'), arguments.get('limit'))}]"
    if name in ("write", "edit"):
        return f"[{name}: {file}]"
    if name == "bash":
        command = str(arguments.get("command") or "")
        shown = _normalize(command)[:MAX_COMMAND]
        return f"[bash: {shown}{'...' if len(command) > MAX_COMMAND else ''}]"
    if name == "grep":
        return f"[grep: /{arguments.get('pattern') or ''}/ in {where}]"
    if name == "find":
        return f"[find: {arguments.get('pattern') or ''} in {where}]"
    if name == "ls":
        return f"[ls: {where}]"
    dumped = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return f"[{name}: {dumped[:MAX_ARGUMENTS]}{'...' if len(dumped) > MAX_ARGUMENTS else ''}]"


def _message_parts(message: Mapping[str, object], calls: ToolCalls, home: str | None) -> list[Part]:
    role = message.get("role")
    if role == "user":
        return [Part("accent", "user: "), Part(None, _normalize(_text_of(message.get("content"))[:MAX_CONTENT]))]
    if role == "assistant":
        text = _normalize(_text_of(message.get("content"))[:MAX_CONTENT])
        if text:
            body = Part(None, text)
        elif message.get("stopReason") == "aborted":
            body = Part("muted", "(aborted)")
        elif message.get("errorMessage"):
            body = Part("error", _normalize(str(message.get("errorMessage")))[:MAX_ERROR])
        else:
            body = Part("muted", "(no content)")
        return [Part("success", "assistant: "), body]
    if role == "toolResult":
        call = calls.get(str(message.get("toolCallId") or ""))
        if call is not None:
            return [Part("muted", format_tool_call(call[0], call[1], home))]
        return [Part("muted", f"[{message.get('toolName') or 'tool'}]")]
    if role == "bashExecution":
        return [Part("dim", f"[bash]: {_normalize(str(message.get('command') or ''))}")]
    return [Part("dim", f"[{role}]")]


def entry_parts(entry: Mapping[str, object], calls: ToolCalls, home: str | None = None) -> list[Part]:
    kind = entry.get("type")
    if kind == "message":
        return _message_parts(mapping(entry.get("message")), calls, home)
    if kind == "custom_message":
        text = _normalize(_text_of(entry.get("content")))
        return [Part("customMessageLabel", f"[{entry.get('customType')}]: "), Part(None, text)]
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        thousands = math.floor(tokens / 1000 + 0.5) if isinstance(tokens, int | float) else 0
        return [Part("borderAccent", f"[compaction: {thousands}k tokens]")]
    if kind == "branch_summary":
        return [Part("warning", "[branch summary]: "), Part(None, _normalize(str(entry.get("summary") or "")))]
    if kind == "model_change":
        return [Part("dim", f"[model: {entry.get('modelId')}]")]
    if kind == "thinking_level_change":
        return [Part("dim", f"[thinking: {entry.get('thinkingLevel')}]")]
    if kind == "custom":
        return [Part("dim", f"[custom: {entry.get('customType')}]")]
    if kind == "context_edit":
        action = "omit" if entry.get("replacement") is None else "replace"
        return [Part("dim", f"[context {action}: {entry.get('targetId')}]")]
    if kind == "label":
        return [Part("dim", f"[label: {entry.get('label') or '(cleared)'}]")]
    if kind == "session_info":
        name = entry.get("name")
        middle = Part("dim", str(name)) if name else Part("dim", "empty", slanted=True)
        return [Part("dim", "[title: "), middle, Part("dim", "]")]
    return []


def plain_text(parts: Iterable[Part]) -> str:
    return "".join(part.text for part in parts)


def styled_text(parts: Iterable[Part], theme: Theme, *, selected: bool = False) -> str:
    out = []
    for part in parts:
        text = theme.fg(part.token, part.text) if part.token else part.text
        out.append(italic(text) if part.slanted else text)
    joined = "".join(out)
    return bold(joined) if selected else joined


def searchable_text(node: SessionTreeNode) -> str:
    """What a search looks in: the label, then the role or kind and the content (Pi's words)."""
    entry = node.entry
    parts: list[str] = [node.label] if node.label else []
    kind = entry.get("type")
    if kind == "message":
        message = mapping(entry.get("message"))
        parts.append(str(message.get("role")))
        if message.get("content"):
            parts.append(_text_of(message.get("content"))[:MAX_CONTENT])
        if message.get("role") == "bashExecution" and message.get("command"):
            parts.append(str(message.get("command")))
    elif kind == "custom_message":
        content = entry.get("content")
        parts += [
            str(entry.get("customType")),
            content if isinstance(content, str) else _text_of(content)[:MAX_CONTENT],
        ]
    elif kind == "compaction":
        parts.append("compaction")
    elif kind == "branch_summary":
        parts += ["branch summary", str(entry.get("summary") or "")]
    elif kind == "session_info":
        parts.append("title")
        if entry.get("name"):
            parts.append(str(entry.get("name")))
    elif kind == "model_change":
        parts += ["model", str(entry.get("modelId"))]
    elif kind == "thinking_level_change":
        parts += ["thinking", str(entry.get("thinkingLevel"))]
    elif kind == "custom":
        parts += ["custom", str(entry.get("customType"))]
    elif kind == "context_edit":
        parts += ["context edit", "omit" if entry.get("replacement") is None else "replace", str(entry.get("targetId"))]
    elif kind == "label":
        parts += ["label", str(entry.get("label") or "")]
    return " ".join(parts)


def matches_search(query: str, node: SessionTreeNode) -> bool:
    words = query.lower().split()
    if not words:
        return True
    text = searchable_text(node).lower()
    return all(word in text for word in words)
