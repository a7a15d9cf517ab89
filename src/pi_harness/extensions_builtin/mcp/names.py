"""Tool names the model sees for MCP tools: ``<server>__<tool>``.

Every provider accepts ``[A-Za-z0-9_-]{1,64}``, so other characters become ``_``. A name that is
too long, or that collides with one already taken (two names that differ only in replaced
characters), is cut and ends in ``_`` plus eight hex digits of a hash of the original pair, which
keeps it stable across sessions.
"""

from __future__ import annotations

import hashlib
import re

MAX_TOOL_NAME = 64
SEPARATOR = "__"
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(part: str) -> str:
    return _INVALID.sub("_", part) or "_"


def tool_name(server: str, tool: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    name = f"{sanitize(server)}{SEPARATOR}{sanitize(tool)}"
    if len(name) <= MAX_TOOL_NAME and name not in taken:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"
