"""``pi mcp list``: connect to every configured server once and report, in Pi 1.4.0's format.

Per server: ``<name>: <state> (<exposure>, <scope>)``, then indented lines with the command or
URL, a project override, the tools (with ``[exposure]`` where a tool's differs from the server's),
``offers resources`` and the error. ``--json`` prints the same as one object
(``{servers, errors, note?}``). Exit code 1 when a configuration is invalid or an enabled server
did not connect, else 0. The functions return the text and the code; the CLI prints and exits.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.coding.extensions import MCP_FILE, project_dir
from pi_harness.extensions_builtin.mcp.config import McpConfig, McpServerConfig, load_mcp_config
from pi_harness.extensions_builtin.mcp.log import LOG_FILE, McpLog
from pi_harness.extensions_builtin.mcp.manager import McpManager
from pi_harness.extensions_builtin.mcp.options import McpOptions


def describe_transport(server: McpServerConfig) -> str:
    if server.transport == "http":
        return server.url or ""
    return " ".join([server.command or "", *server.args])


def _report(server: McpServerConfig, manager: McpManager) -> JsonObject:
    report: JsonObject = {"name": server.name, "scope": server.scope, "source": server.source}
    if server.override:
        report["override"] = server.override
    report.update(
        {
            "enabled": server.enabled,
            "exposure": server.exposure,
            "transport": describe_transport(server),
            "state": "disabled",
            "tools": [],
        }
    )
    connection = manager.connections.get(server.name)
    if not server.enabled or connection is None:
        return report
    report["state"] = connection.status
    report["tools"] = list[JsonValue](tool.name for tool in connection.tools)
    different = {t.name: server.exposure_of(t.name) for t in connection.tools}
    overrides: JsonObject = {name: value for name, value in different.items() if value != server.exposure}
    if overrides:
        report["toolExposure"] = overrides
    if connection.has_resources:
        report["resources"] = True
    if connection.status != "connected" and connection.error:
        report["error"] = connection.error
    return report


def _text(reports: list[JsonObject], config: McpConfig, note: str | None, agent_directory: Path) -> str:
    lines: list[str] = []
    if not reports and not config.errors:
        lines.append(f"No MCP servers configured. Add them to {agent_directory / MCP_FILE} or .pi/mcp.json.")
    for report in reports:
        tools = [str(t) for t in report["tools"]] if isinstance(report["tools"], list) else []
        state = str(report["state"])
        if state == "connected":
            state = f"connected, {len(tools)} tool{'' if len(tools) == 1 else 's'}"
        elif state == "needs-auth":
            state = "needs sign-in"
        lines.append(f"{report['name']}: {state} ({report['exposure']}, {report['scope']})")
        lines.append(f"  {report['transport']}")
        if "override" in report:
            lines.append(f"  project override: {report['override']}")
        if report["state"] == "needs-auth":
            lines.append(f"  sign in with: pi mcp login {report['name']}")
        if tools:
            exposures = report.get("toolExposure")
            marks = exposures if isinstance(exposures, dict) else {}
            lines.append("  tools: " + ", ".join(f"{t} [{marks[t]}]" if t in marks else t for t in tools))
        if report.get("resources"):
            lines.append("  offers resources")
        if "error" in report:
            lines.append("  " + str(report["error"]).replace("\n", "\n  "))
    lines.extend(f"config error: {error}" for error in config.errors)
    if note:
        lines.append(note)
    return "\n".join(lines)


async def mcp_list_async(
    cwd: str | os.PathLike[str], options: McpOptions | None = None, *, as_json: bool = False
) -> tuple[str, int]:
    opts = options or McpOptions()
    directory = opts.resolved_agent_dir()
    trusted = opts.is_project_trusted()
    config = load_mcp_config(directory, cwd, project_trusted=trusted)
    manager = McpManager(config, cwd=str(cwd), log=McpLog(directory / LOG_FILE), settings=opts.connection_settings())
    manager.start()
    try:
        await manager.wait_all()
        reports = [_report(server, manager) for server in config.servers.values()]
    finally:
        await manager.close()
    project_file = project_dir(cwd) / MCP_FILE
    note = None
    if not trusted and project_file.is_file():
        note = f"{project_file} is ignored because the project is not trusted. Start pi in the project to trust it."
    failed = bool(config.errors) or any(r["enabled"] and r["state"] != "connected" for r in reports)
    if as_json:
        payload: JsonObject = {"servers": list[JsonValue](reports), "errors": list[JsonValue](config.errors)}
        if note:
            payload["note"] = note
        return json.dumps(payload, indent=2, ensure_ascii=False), int(failed)
    return _text(reports, config, note, directory), int(failed)


def mcp_list(
    cwd: str | os.PathLike[str], options: McpOptions | None = None, *, as_json: bool = False
) -> tuple[str, int]:
    """Synchronous entry for the CLI."""
    return asyncio.run(mcp_list_async(cwd, options, as_json=as_json))
