"""``/mcp``: the server report, and the manager's actions as words (no menu yet).

``/mcp`` waits for the servers still connecting and prints the report (``manager.format_statuses``);
in the interactive mode it offers the servers (those that need attention first), then what can be
done with the chosen one: its tools, reconnect, enable or disable (also for this project alone).
``/mcp reconnect [server]`` connects a server again (without a name: the one failed or dropped
server, if there is exactly one). ``/mcp enable <server>`` and ``/mcp disable <server>`` connect or
disconnect it and save ``enabled`` to the mcp.json that defines it (to the project's override when
there is one); add ``--project`` to write a project override of a global server instead, as
Pi's "Enable/Disable in this project" does. ``login`` and ``logout`` (OAuth) are not implemented.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_harness.coding.extensions import ExtensionUI
from pi_harness.extensions_builtin.mcp.config import McpConfig
from pi_harness.extensions_builtin.mcp.edit import update_server
from pi_harness.extensions_builtin.mcp.manager import McpManager, format_statuses

USAGE = "Usage: /mcp, /mcp reconnect [server], /mcp enable|disable <server> [--project]"


async def run_mcp_command(
    args: str,
    *,
    config: McpConfig,
    manager: McpManager,
    agent_directory: Path,
    tools_changed: Callable[[str, bool], None],
) -> tuple[str, str]:
    """The message and its kind (``info``, ``warning``, ``error``)."""
    words = args.split()
    if not words:
        await manager.wait_all()
        return format_statuses(config, manager.statuses(), agent_directory), "info"
    action, rest = words[0], words[1:]
    if action in ("login", "logout"):
        return "Signing in to MCP servers (OAuth) is not implemented yet.", "warning"
    if action == "reconnect" and len(rest) <= 1:
        return await _reconnect(rest[0] if rest else None, manager)
    project = "--project" in rest
    names = [word for word in rest if word != "--project"]
    if action in ("enable", "disable") and len(names) == 1:
        return await _set_enabled(names[0], action == "enable", project, config, manager, tools_changed)
    return USAGE, "warning"


_RANK = {"failed": 0, "pending": 1, "connecting": 1, "connected": 2, "closed": 3}


async def manage(
    ui: ExtensionUI,
    *,
    config: McpConfig,
    manager: McpManager,
    agent_directory: Path,
    tools_changed: Callable[[str, bool], None],
) -> tuple[str, str] | None:
    """The interactive menu: a server, then an action; the outcome to show (None: cancelled)."""
    statuses = {s.name: s for s in manager.statuses()}
    if not statuses:
        return format_statuses(config, [], agent_directory), "info"

    def rank(name: str) -> tuple[int, str]:
        status = statuses[name]
        return (4 if status.status == "disabled" else _RANK.get(status.status, 1), name)

    labels = {}
    for name in sorted(statuses, key=rank):
        status, server = statuses[name], config.servers[name]
        state = f"{status.status} · {status.tool_count} tools" if status.status == "connected" else status.status
        labels[f"{name} — {state} · {server.exposure}"] = name
    chosen = await ui.select("MCP servers", list(labels))
    if chosen is None or chosen not in labels:
        return None
    name = labels[chosen]
    server, status = config.servers[name], statuses[name]
    in_project = server.scope == "global" and server.override is None and config.project_file is not None
    actions: dict[str, str] = {}
    if server.enabled:
        if status.status == "connected":
            actions["Tools"] = "tools"
        actions["Reconnect"] = "reconnect"
        actions["Disable"] = "disable"
        if in_project:
            actions["Disable in this project"] = "disable --project"
    else:
        actions["Enable"] = "enable"
        if in_project:
            actions["Enable in this project"] = "enable --project"
    action = await ui.select(f"MCP server {name}", list(actions))
    if action is None or action not in actions:
        return None
    if actions[action] == "tools":
        connection = manager.connections[name]
        lines = [
            f"{t.name}" + (f" [{server.exposure_of(t.name)}]" if server.exposure_of(t.name) != server.exposure else "")
            for t in connection.tools
        ]
        return f"Tools of {name} (exposure {server.exposure}):\n" + "\n".join(f"  {line}" for line in lines), "info"
    verb, *flags = actions[action].split(" ")
    return await run_mcp_command(
        " ".join([verb, name, *flags]),
        config=config,
        manager=manager,
        agent_directory=agent_directory,
        tools_changed=tools_changed,
    )


async def _reconnect(name: str | None, manager: McpManager) -> tuple[str, str]:
    connections = manager.connections
    if name is None:
        broken = [c for c in connections.values() if c.status == "failed"]
        candidates = broken if len(broken) == 1 else list(connections.values())
        if len(candidates) != 1:
            return "Name the MCP server to reconnect: /mcp reconnect <server>", "warning"
        name = candidates[0].name
    connection = connections.get(name)
    if connection is None:
        known = name in manager.config.servers
        return (f'MCP server "{name}" is disabled.' if known else f'No MCP server named "{name}".'), "error"
    await connection.reconnect()
    if connection.status != "connected":
        return f'MCP server "{name}" failed to connect: {connection.error}', "error"
    return f'Reconnected to MCP server "{name}" (connected · {len(connection.tools)} tools).', "info"


async def _set_enabled(
    name: str,
    enabled: bool,
    project: bool,
    config: McpConfig,
    manager: McpManager,
    tools_changed: Callable[[str, bool], None],
) -> tuple[str, str]:
    server = config.servers.get(name)
    if server is None:
        return f'No MCP server named "{name}".', "error"
    if project and (server.scope != "global" or config.project_file is None):
        return "--project applies to a global server in a trusted project.", "error"
    target = config.project_file if project else None
    override = target is not None or server.override is not None
    path = Path(target or server.override or server.source)
    try:
        update_server(path, name, {"enabled": enabled}, override=override)
    except (OSError, ValueError) as exc:
        return f"Could not update {path}: {exc}", "error"
    if override and server.override is None:
        from dataclasses import replace

        config.servers[name] = replace(server, override=str(path))
    if not enabled:
        tools_changed(name, False)
    await manager.set_enabled(name, enabled)
    state = "enabled" if enabled else "disabled"
    return f'MCP server "{name}" {state} (saved to {path}).', "info"


ACTIONS = ("reconnect", "enable", "disable")


def completions(prefix: str, servers: list[str]) -> list[dict[str, str]] | None:
    """Completions of ``/mcp <action> <server>``."""
    words = prefix.lstrip().split(" ")
    if len(words) == 1:
        return [{"value": f"{a} ", "label": a} for a in ACTIONS if a.startswith(words[0])] or None
    if len(words) == 2 and words[0] in ACTIONS:
        return [{"value": f"{words[0]} {s}", "label": s} for s in servers if s.startswith(words[1])] or None
    return None
