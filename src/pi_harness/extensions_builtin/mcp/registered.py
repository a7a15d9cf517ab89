"""MCP servers that extensions register (``pi.register_mcp_server``), next to mcp.json's.

A server of mcp.json wins over a registered server of the same name. Registered entries are
checked as mcp.json entries are; a bad one is a config error (in the log and ``/mcp``), not a
crash. Servers registered while extensions load are merged into the configuration at
``session_start``; later registrations and removals (``mcp_servers_change``) connect or
disconnect them in the running session.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pi_harness.extensions_builtin.mcp.config import InvalidServer, McpConfig, parse_server
from pi_harness.extensions_builtin.mcp.manager import McpManager


def merge_registered(config: McpConfig, servers: Iterable[Mapping[str, object]]) -> set[str]:
    """Add the registered servers mcp.json does not name; returns the names added."""
    added: set[str] = set()
    for server in servers:
        name = str(server.get("name"))
        if name in config.servers and name not in added:
            continue  # mcp.json's server of that name wins
        try:
            config.servers[name] = parse_server(name, server.get("config"), str(server.get("extensionPath")))
        except InvalidServer as problem:
            config.errors.append(f"{server.get('extensionPath')}: {problem}")
            continue
        added.add(name)
    return added


async def apply_change(manager: McpManager, servers: Iterable[Mapping[str, object]], known: set[str]) -> set[str]:
    """Connect registered servers that are new, disconnect those that were removed; returns the
    registered names now in the configuration."""
    config = manager.config
    listed = list(servers)
    current = {str(s.get("name")) for s in listed}
    for name in sorted(known - current):
        if name in manager.connections:
            await manager.set_enabled(name, False)
        config.servers.pop(name, None)
    fresh = McpConfig(servers={n: s for n, s in config.servers.items() if n not in known})
    added = merge_registered(fresh, [s for s in listed if str(s.get("name")) not in known])
    for name in sorted(added):
        config.servers[name] = fresh.servers[name]
        if fresh.servers[name].enabled:
            await manager.set_enabled(name, True)
    config.errors.extend(fresh.errors)
    return (known & current) | added
