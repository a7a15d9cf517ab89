"""Tool names the model sees for MCP tools: ``mcp__<server>__<tool>``, as in Pi 1.4.0.

Every character of the whole name other than ``[A-Za-z0-9_]`` becomes ``_`` (so ``-`` does too,
and the name is also a valid identifier). A name longer than 64 characters, or one another MCP
tool already holds, is cut to 55 characters and ends in ``_`` plus the first eight hex digits of
SHA-256 over ``<server>\\0<tool>``, which keeps it the same from one session to the next.

``names_for_server`` gives every tool of one server its name: tools whose plain names collide
(``a-b`` and ``a_b``) all get the hash suffix, so which one keeps the plain name never depends on
the order the server listed them in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

MAX_TOOL_NAME = 64
PREFIX = "mcp__"
_INVALID = re.compile(r"[^A-Za-z0-9_]")
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def namespace(server: str) -> str:
    """``mcp__<server>`` with ``-`` as ``_``: two servers with the same namespace clash."""
    return f"{PREFIX}{server.replace('-', '_')}"


def tool_name(server: str, tool: str, is_taken: Callable[[str], bool] = lambda _name: False) -> str:
    name = _INVALID.sub("_", f"{PREFIX}{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME and not is_taken(name):
        return name
    import hashlib  # here: it loads OpenSSL's libcrypto (MiBs), which startup does not need

    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - len(digest) - 1]}_{digest}"


def names_for_server(server: str, tools: Iterable[str], owners: dict[str, str]) -> dict[str, str]:
    """Tool name → model-facing name for one server's tools, recording owners in ``owners``.

    ``owners`` maps model-facing names to ``<server>\\0<tool>`` across every server of the session
    (kept between refreshes of the tool list), so a name stays with the tool that first got it."""
    unique = list(dict.fromkeys(tools))
    plain = Counter(tool_name(server, tool) for tool in unique)
    assigned: dict[str, str] = {}
    current: set[str] = set()
    for tool in unique:
        owner = f"{server}\0{tool}"

        def taken(candidate: str, owner: str = owner) -> bool:
            held = owners.get(candidate)
            return (held is not None and held != owner) or candidate in current or plain[candidate] > 1

        name = tool_name(server, tool, taken)
        owners[name] = owner
        current.add(name)
        assigned[tool] = name
    return assigned
