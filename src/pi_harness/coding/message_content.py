"""Reading messages as they are stored: their content (a string, or a list of blocks) and time.

Stored messages come from session files and extensions, so these readers take any value and
look only at what has the expected shape: a block is a JSON object, a text block has
``"type": "text"``; anything else is passed over.
"""

from __future__ import annotations

from collections.abc import Mapping


def content_blocks(content: object) -> list[dict[str, object]]:
    """The object blocks of a content list; none for string content or anything else."""
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict)]


def text_parts(content: object) -> list[str]:
    """String content as its only part, else the texts of the text blocks ("" for a missing one)."""
    if isinstance(content, str):
        return [content]
    parts: list[str] = []
    for block in content_blocks(content):
        if block.get("type") == "text":
            text = block.get("text")
            parts.append(text if isinstance(text, str) else "")
    return parts


def timestamp_ms(message: Mapping[str, object]) -> int:
    """A message's ``timestamp`` (epoch milliseconds); 0 when it has none."""
    value = message.get("timestamp")
    return int(value) if isinstance(value, int | float) else 0
