"""``/mcp``: the server report, and the manager's actions as words (no menu yet).

``/mcp`` waits for the servers still connecting and prints the report (``manager.format_statuses``);
in the interactive mode it offers the servers (those that need attention first), then what can be
done with the chosen one: its tools, reconnect, enable or disable (also for this project alone).
``/mcp reconnect [server]`` connects a server again (without a name: the one failed or dropped
server, if there is exactly one). ``/mcp enable <server>`` and ``/mcp disable <server>`` connect or
disconnect it and save ``enabled`` to the mcp.json that defines it (to the project's override when
there is one); add ``--project`` to write a project override of a global server instead, as
Pi's "Enable/Disable in this project" does. ``/mcp login <server>`` signs in to an OAuth server
(the browser flow, then a reconnect), ``/mcp logout <server>`` deletes its stored credentials, and
``/mcp exposure <server> <mode>`` saves a new exposure (``session_actions``). The menu shows a
server's transport, source, override and state, and offers the same actions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_harness.coding.extensions import ExtensionUI
from pi_harness.extensions_builtin.mcp.config import McpConfig, McpServerConfig
from pi_harness.extensions_builtin.mcp.edit import update_server
from pi_harness.extensions_builtin.mcp.manager import McpManager, ServerStatus, format_statuses
from pi_harness.extensions_builtin.mcp.session_actions import EXPOSURES, set_exposure

USAGE = (
    "Usage: /mcp, /mcp reconnect [server], /mcp login|logout <server>, /mcp enable|disable <server> [--project], "
    "/mcp exposure <server> <codemode|deferred|direct|hidden>"
)


async def run_mcp_command(
    args: str,
    *,
    config: McpConfig,
    manager: McpManager,
    agent_directory: Path,
    tools_changed: Callable[[str, bool], None],
    notify: Callable[[str], None] | None = None,
    open_url: Callable[[str], object] | None = None,
) -> tuple[str, str]:
    """The message and its kind (``info``, ``warning``, ``error``)."""
    from pi_harness.extensions_builtin.mcp import session_actions

    words = args.split()
    if not words:
        await manager.wait_all()
        return format_statuses(config, manager.statuses(), agent_directory), "info"
    action, rest = words[0], words[1:]
    if action == "login" and len(rest) == 1:
        return await session_actions.sign_in(
            rest[0], manager, agent_directory, notify or (lambda _line: None), open_url or session_actions.open_browser
        )
    if action == "logout" and len(rest) == 1:
        return await session_actions.sign_out(rest[0], manager, agent_directory)
    if action == "exposure" and len(rest) == 2:
        return await session_actions.set_exposure(rest[0], rest[1], config, manager, tools_changed)
    if action == "reconnect" and len(rest) <= 1:
        return await _reconnect(rest[0] if rest else None, manager)
    project = "--project" in rest
    names = [word for word in rest if word != "--project"]
    if action in ("enable", "disable") and len(names) == 1:
        return await _set_enabled(names[0], action == "enable", project, config, manager, tools_changed)
    return USAGE, "warning"


_RANK = {"needs-auth": 0, "failed": 1, "pending": 2, "connecting": 2, "connected": 3, "closed": 4}


async def manage(
    ui: ExtensionUI,
    *,
    config: McpConfig,
    manager: McpManager,
    agent_directory: Path,
    tools_changed: Callable[[str, bool], None],
    notify: Callable[[str], None] | None = None,
    open_url: Callable[[str], object] | None = None,
) -> tuple[str, str] | None:
    """The interactive menu: a server, then an action; the outcome to show (None: cancelled)."""
    statuses = {s.name: s for s in manager.statuses()}
    if not statuses:
        return format_statuses(config, [], agent_directory), "info"

    def rank(name: str) -> tuple[int, str]:
        status = statuses[name]
        return (5 if status.status == "disabled" else _RANK.get(status.status, 2), name)

    labels = {}
    for name in sorted(statuses, key=rank):
        status, server = statuses[name], config.servers[name]
        state = f"{status.status} · {status.tool_count} tools" if status.status == "connected" else status.status
        state = "needs sign-in" if status.status == "needs-auth" else state
        labels[f"{name} — {state} · {server.exposure}"] = name
    chosen = await ui.select("MCP servers", list(labels))
    if chosen is None or chosen not in labels:
        return None
    name = labels[chosen]
    server, status = config.servers[name], statuses[name]
    in_project = server.scope == "global" and server.override is None and config.project_file is not None
    actions: dict[str, str] = {}
    if server.enabled:
        if status.status == "needs-auth":
            actions["Sign in"] = "login"
        if status.status == "connected":
            actions["Tools"] = "tools"
        actions["Reconnect"] = "reconnect"
        if status.status == "connected" and server.uses_oauth:
            actions["Sign out"] = "logout"
        actions[f"Exposure ({server.exposure})"] = "exposure"
        actions["Disable"] = "disable"
        if in_project:
            actions["Disable in this project"] = "disable --project"
    else:
        actions["Enable"] = "enable"
        if in_project:
            actions["Enable in this project"] = "enable --project"
    action = await ui.select(_details(name, server, status), list(actions))
    if action is None or action not in actions:
        return None
    if actions[action] == "exposure":
        mark = {mode: "✓ " if mode == server.exposure else "  " for mode in EXPOSURES}
        options = {f"{mark[mode]}{mode} — {text}": mode for mode, text in EXPOSURES.items()}
        choice = await ui.select(f"Exposure of {name} (saved to {server.override or server.source})", list(options))
        if choice is None or choice not in options or options[choice] == server.exposure:
            return None
        return await set_exposure(name, options[choice], config, manager, tools_changed)
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
        notify=notify,
        open_url=open_url,
    )


def _details(name: str, server: McpServerConfig, status: ServerStatus) -> str:
    """The menu title: what the server is, where it is defined, and its state."""
    target = server.url or "" if server.transport == "http" else " ".join([server.command or "", *server.args])
    lines = [f"MCP server {name}", target, f"{server.scope}: {server.source}"]
    if server.override:
        lines.append(f"project override: {server.override}")
    state = "needs sign-in" if status.status == "needs-auth" else status.status
    if status.status == "connected":
        state = f"connected · {status.tool_count} tool{'' if status.tool_count == 1 else 's'}"
    lines.append(f"State: {state}")
    if status.error and status.status != "connected":
        lines.append(status.error)
    return "\n".join(lines)


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


ACTIONS = ("reconnect", "login", "logout", "enable", "disable", "exposure")


def completions(prefix: str, servers: list[str]) -> list[dict[str, str]] | None:
    """Completions of ``/mcp <action> <server>``."""
    words = prefix.lstrip().split(" ")
    if len(words) == 1:
        return [{"value": f"{a} ", "label": a} for a in ACTIONS if a.startswith(words[0])] or None
    if len(words) == 2 and words[0] in ACTIONS:
        return [{"value": f"{words[0]} {s}", "label": s} for s in servers if s.startswith(words[1])] or None
    return None
