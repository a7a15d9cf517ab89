"""What the page embeds: the session header, every entry of every branch, the leaf, and context.

The browser receives plain data and builds every element with text nodes, so nothing here is
HTML. Two things are cleaned on the way: images keep their bytes only when they are a known
image type in valid base64 (anything else becomes a placeholder naming its type), and terminal
escape sequences are removed from tool and shell output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pi_harness.tui.ansi import sanitize

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64_RE = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
# Roles whose text comes from programs (tool output, shell output) and may carry escape codes.
_PROGRAM_OUTPUT_ROLES = frozenset({"toolResult", "bashExecution"})


@dataclass(frozen=True)
class SessionPage:
    """A session as the viewer shows it. ``entries`` are in file order, all branches included."""

    entries: Sequence[Mapping[str, Any]]
    leaf_id: str | None
    header: Mapping[str, Any] | None = None
    title: str = "Session"
    system_prompt: str | None = None
    tools: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    generator: str = "pi-harness"
    exported_at: datetime | None = None


def _image(block: Mapping[str, Any]) -> dict[str, Any]:
    mime = str(block.get("mimeType", ""))
    data = "".join(str(block.get("data", "")).split())
    if mime in IMAGE_TYPES and data and _BASE64_RE.match(data):
        return {"type": "image", "mimeType": mime, "data": data}
    return {"type": "image", "mimeType": mime, "omitted": True}


def _blocks(content: Any, *, program_output: bool) -> Any:
    if isinstance(content, str):
        return sanitize(content) if program_output else content
    if not isinstance(content, list):
        return content
    cleaned: list[Any] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "image":
            cleaned.append(_image(block))
        elif program_output and isinstance(block, Mapping) and isinstance(block.get("text"), str):
            cleaned.append({**block, "text": sanitize(block["text"])})
        else:
            cleaned.append(block)
    return cleaned


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    program = message.get("role") in _PROGRAM_OUTPUT_ROLES
    cleaned = dict(message)
    if "content" in cleaned:
        cleaned["content"] = _blocks(cleaned["content"], program_output=program)
    if program and isinstance(cleaned.get("output"), str):
        cleaned["output"] = sanitize(cleaned["output"])
    return cleaned


def _entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    cleaned = dict(entry)
    message = cleaned.get("message")
    if isinstance(message, Mapping):
        cleaned["message"] = _message(message)
    elif cleaned.get("type") == "custom_message" and "content" in cleaned:
        cleaned["content"] = _blocks(cleaned["content"], program_output=False)
    return cleaned


def _tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": str(tool.get("name", "")), "description": str(tool.get("description", "")),
            "parameters": tool.get("parameters")}  # fmt: skip


def page_data(page: SessionPage) -> dict[str, Any]:
    """The JSON object the page's script reads (see ``assets/model.js``)."""
    moment = page.exported_at or datetime.now(UTC)
    return {
        "header": dict(page.header) if page.header is not None else None,
        "entries": [_entry(entry) for entry in page.entries],
        "leafId": page.leaf_id,
        "title": page.title,
        "systemPrompt": page.system_prompt,
        "tools": [_tool(tool) for tool in page.tools],
        "generator": page.generator,
        "exportedAt": moment.isoformat().replace("+00:00", "Z"),
    }


def session_from_messages(messages: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """Bare messages as one branch of message entries (ids ``m1``, ``m2``...) and its leaf."""
    entries: list[dict[str, Any]] = []
    parent: str | None = None
    for number, message in enumerate(messages, 1):
        entry_id = f"m{number}"
        stamp = message.get("timestamp")
        when = (
            datetime.fromtimestamp(stamp / 1000, UTC).isoformat().replace("+00:00", "Z")
            if isinstance(stamp, int | float) and stamp > 10**11
            else ""
        )
        entries.append({"type": "message", "id": entry_id, "parentId": parent, "timestamp": when,
                        "message": dict(message)})  # fmt: skip
        parent = entry_id
    return entries, parent
