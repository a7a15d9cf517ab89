"""Switching ``tool_search`` on for servers with ``deferred`` tools, as Pi 1.4.0 does.

Deferred tools are registered inactive; the model reaches them only through a tool named
``tool_search`` that says it reaches other tools (``reaches_tools``, reported as
``reachesTools`` by ``get_all_tools``). When an enabled server's configuration gives some of its
tools ``deferred`` exposure, that tool is activated at session start, before the servers connect,
so the first request already declares it. A tool of that name without ``reachesTools`` (another
extension's) is left alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_harness.coding.extensions import ExtensionAPI
from pi_harness.extensions_builtin.mcp.config import McpConfig
from pi_harness.extensions_builtin.mcp.prompt_section import REACHING_TOOLS

TOOL_SEARCH = "tool_search"


def needs_tool_search(config: McpConfig) -> bool:
    return any("deferred" in server.configured_exposures for server in config.enabled)


def has_reaching_tool(pi: ExtensionAPI, name: str) -> bool:
    return any(tool.get("name") == name and tool.get("reachesTools") for tool in pi.get_all_tools())


def active_reaching_tools(pi: ExtensionAPI) -> set[str]:
    """The active ``codemode``/``tool_search`` tools: with none, indirect tools cannot be reached."""
    try:
        return set(pi.get_active_tools()) & REACHING_TOOLS
    except Exception:  # not bound to a session
        return set()


def activate_tool_search(pi: ExtensionAPI, config: McpConfig) -> bool:
    """Activate ``tool_search`` when the configuration needs it; True when it is active then."""
    try:
        if not needs_tool_search(config) or not has_reaching_tool(pi, TOOL_SEARCH):
            return False
        active = pi.get_active_tools()
        if TOOL_SEARCH not in active:
            pi.set_active_tools([*active, TOOL_SEARCH])
        return True
    except Exception:  # not bound to a session
        return False


def reached_servers(
    tools: Sequence[Mapping[str, object]], tool_name: object, arguments: object, servers: list[str]
) -> list[str]:
    """The MCP servers a call of ``tool_name`` may reach, so it waits for them to connect: every
    server when the tool reaches ``"all"`` tools (``tool_search``, a codemode script that searches)
    or fails to say; else those whose namespace (``mcp__<server>``, ``-`` as ``_``) is part of one of
    the words it reports (a script naming ``tools.mcp__fs__read``). Tools without ``reachesTools``
    reach none."""
    for tool in tools:
        reach = tool.get("reachesTools")
        if tool.get("name") != tool_name or not callable(reach):
            continue
        try:
            words = reach(arguments if isinstance(arguments, dict) else {})
        except Exception:
            return list(servers)
        if words == "all":
            return list(servers)
        named = [word for word in words if isinstance(word, str)] if isinstance(words, list) else []
        return [server for server in servers if any(namespace(server) in word for word in named)]
    return []


def namespace(server: str) -> str:
    return f"mcp__{server.replace('-', '_')}"
