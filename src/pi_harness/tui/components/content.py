"""Reading messages and their content (a string or a list of text/image blocks) for display.

Messages, events and entries reach the components as read-only JSON (``Mapping[str, object]``):
these helpers read the nested parts and skip what does not have the expected shape.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_harness.tui.ansi import sanitize
from pi_harness.tui.terminal_image import image_fallback, image_size

EMPTY: Mapping[str, object] = {}


def mapping(value: object) -> Mapping[str, object]:
    """``value`` when it is a JSON object, otherwise an empty one."""
    return value if isinstance(value, Mapping) else EMPTY


def blocks(content: object) -> list[Mapping[str, object]]:
    """The blocks of a content list (none for a plain string or a missing content)."""
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, Mapping)]


def _placeholder(block: Mapping[str, object]) -> str:
    mime = str(block.get("mimeType") or "image/unknown")
    data = block.get("data")
    return image_fallback(mime, image_size(data, mime) if isinstance(data, str) and data else None)


def content_text(content: object, *, images: bool = True) -> str:
    """The text of a message's content; images become ``[Image: [<mime>] WxH]`` lines when ``images``."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in blocks(content):
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "image" and images:
            parts.append(_placeholder(block))
    return "\n".join(parts)


def output_text(content: object) -> str:
    """Tool or command output made safe to print (escapes and control characters removed)."""
    return sanitize(content_text(content)).rstrip("\n")


def first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0]
    return line[:limit]
