"""The ``mcp_servers`` system prompt section: servers whose tools are not declared to the model.

Pi 1.4.0 lists every enabled server with ``codemode`` or ``deferred`` tools as
``- mcp__<server> (codemode|tool_search): <summary>``, sorted by name, where the summary is the
first line of the configured ``description`` or, once connected, of the server instructions. One
summary is at most 250 characters and the whole section at most 4096: summaries shrink to fit,
and servers that still do not fit are counted in a last line. The first line (our own words)
says how such tools are reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi_harness.extensions_builtin.mcp.names import namespace

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection

MCP_SERVERS_SECTION = "mcp_servers"
REACHING_TOOLS = frozenset({"codemode", "tool_search"})
MAX_SUMMARY = 250
MAX_SECTION = 4096


def _summary(connection: ServerConnection) -> str:
    text = (connection.config.description or "").strip() or connection.instructions or ""
    return text.split("\n", 1)[0].strip()


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return "" if limit <= 1 else text[: limit - 1].rstrip() + "…"


def servers_section(connections: Sequence[ServerConnection]) -> str | None:
    listed = sorted((c for c in connections if c.config.enabled and c.config.has_indirect_tools), key=lambda c: c.name)
    if not listed:
        return None
    reaches = ["codemode" if "codemode" in c.config.configured_exposures else "tool_search" for c in listed]
    intro = "These MCP servers' tools are not declared to you."
    if "codemode" in reaches:
        intro += " Call the tools of `codemode` servers from codemode scripts."
    if "tool_search" in reaches:
        intro += " Find and load the tools of `tool_search` servers with `tool_search`."
    heads = [f"- {namespace(c.name)} ({reach})" for c, reach in zip(listed, reaches, strict=True)]

    def tail(left_out: int) -> list[str]:
        if left_out <= 0:
            return []
        return [f"- … {left_out} more server{'s' if left_out != 1 else ''} not listed"]

    def size(kept: int) -> int:
        return len("\n".join([intro, *heads[:kept], *tail(len(listed) - kept)]))

    kept = len(listed)
    while kept > 0 and size(kept) > MAX_SECTION:
        kept -= 1
    room = 0 if kept == 0 else min(MAX_SUMMARY, (MAX_SECTION - size(kept)) // kept - 2)
    lines = []
    for connection, head in zip(listed[:kept], heads, strict=False):
        summary = _cut(_summary(connection), room) if room > 0 else ""
        lines.append(f"{head}: {summary}" if summary else head)
    return "\n".join([intro, *lines, *tail(len(listed) - kept)])
