"""Reading message content (a string or a list of text/image blocks) for display."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_harness.tui.ansi import sanitize


def content_text(content: str | Sequence[Mapping[str, Any]] | None, *, images: bool = True) -> str:
    """The text of a message's content; images become ``[image: <mime>]`` lines when ``images``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "image" and images:
            parts.append(f"[image: {block.get('mimeType', 'image')}]")
    return "\n".join(parts)


def output_text(content: str | Sequence[Mapping[str, Any]] | None) -> str:
    """Tool or command output made safe to print (escapes and control characters removed)."""
    return sanitize(content_text(content)).rstrip("\n")


def first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0]
    return line[:limit]
