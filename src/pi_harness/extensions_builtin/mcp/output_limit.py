"""The size limit of MCP text the model sees (Pi 1.4.0's rule, in our words).

All text blocks of a result together may take 20 KB. Longer text becomes one text block that keeps
the first and the last 10 KB with ``…N chars truncated…`` between them, says how long the whole was,
and names a file (``$TMPDIR/pi-mcp-<16 hex>.txt``, mode 600) that holds the complete text; images
follow it. Binary resources that are neither text nor images are saved the same way
(``save_output``).
"""

from __future__ import annotations

import math
import os
import tempfile

from pi_harness.ai.types import UserContent

MAX_BYTES = 20 * 1024


def save_output(data: bytes, extension: str) -> str:
    """A new private file in the temp directory (never an existing path or link)."""
    import secrets  # here: it loads OpenSSL's libcrypto (MiBs), which startup does not need

    path = os.path.join(tempfile.gettempdir(), f"pi-mcp-{secrets.token_hex(8)}{extension}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


def _count_lines(text: str) -> int:
    if not text:
        return 0
    return len(text.split("\n")) - (1 if text.endswith("\n") else 0)


def cut_middle(text: str, max_bytes: int = MAX_BYTES) -> str | None:
    """The text with its middle replaced by the marker, or None when it fits."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return None

    def boundary(index: int) -> bool:
        return index >= len(data) or (data[index] & 0xC0) != 0x80

    head_end = max_bytes // 2
    while head_end > 0 and not boundary(head_end):
        head_end -= 1
    tail_start = len(data) - (max_bytes - max_bytes // 2)
    while tail_start < len(data) and not boundary(tail_start):
        tail_start += 1
    removed = len(data[head_end:tail_start].decode("utf-8", errors="replace"))
    head = data[:head_end].decode("utf-8", errors="replace")
    tail = data[tail_start:].decode("utf-8", errors="replace")
    return f"{head}…{removed} chars truncated…{tail}"


def limit_content(content: list[UserContent]) -> tuple[list[UserContent], str | None, bool]:
    """The content within the limit, the path of the complete text (if saved) and whether it was cut."""
    combined = "\n".join(block["text"] for block in content if block["type"] == "text")
    middle = cut_middle(combined)
    if middle is None:
        return content, None, False
    path: str | None = None
    try:
        path = save_output(combined.encode("utf-8"), ".txt")
        where = f"[The complete output is in {path}; read it in parts with offset and limit.]"
    except OSError as exc:
        where = f"[The complete output could not be saved: {exc}]"
    size = len(combined.encode("utf-8"))
    header = (
        f"[Output cut in the middle: {_count_lines(combined)} lines, {size} bytes "
        f"(about {math.ceil(size / 4)} tokens) in all.]"
    )
    text: UserContent = {"type": "text", "text": f"{header}\n\n{middle}\n\n{where}"}
    return [text, *(block for block in content if block["type"] == "image")], path, True
