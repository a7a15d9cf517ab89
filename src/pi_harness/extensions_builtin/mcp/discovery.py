"""Switching ``tool_search`` on for servers with ``deferred`` tools, as Pi 1.4.0 does.

Deferred tools are registered inactive; the model reaches them only through a tool named
``tool_search`` that says it reaches other tools (``reaches_tools``, reported as
``reachesTools`` by ``get_all_tools``). When an enabled server's configuration gives some of its
tools ``deferred`` exposure, that tool is activated at session start, before the servers connect,
so the first request already declares it. A tool of that name without ``reachesTools`` (another
extension's) is left alone.
"""

from __future__ import annotations

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


def waits_for_servers(pi: ExtensionAPI, tool_name: object, arguments: object) -> bool:
    """Whether a call of ``tool_name`` may reach MCP tools, so it should wait for every server.

    True for a tool that reaches ``"all"`` tools (``tool_search``), or words of which one names an
    MCP namespace (``mcp__…``)."""
    for tool in pi.get_all_tools():
        reach = tool.get("reachesTools")
        if tool.get("name") != tool_name or not callable(reach):
            continue
        try:
            words = reach(arguments if isinstance(arguments, dict) else {})
        except Exception:
            return True
        return words == "all" or any(isinstance(word, str) and "mcp__" in word for word in words)
    return False
