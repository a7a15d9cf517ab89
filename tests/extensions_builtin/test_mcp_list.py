"""``pi mcp list``: the report (Pi 1.4.0's format, and ``--json``) and its exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_harness.extensions_builtin.mcp import McpOptions, mcp_list_async

FAST_RETRY = McpOptions(retry_delays_s=(0.01, 0.01))


def write_config(path: Path, servers: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


async def test_connected_and_disabled_servers_exit_0(tmp_path: Path, agent_dir: Path, stdio_entry: Any) -> None:
    fx = {**stdio_entry(), "exposure": "codemode", "toolExposure": {"echo": "direct"}}
    write_config(agent_dir / "mcp.json", {"fx": fx, "off": {**stdio_entry(), "enabled": False}})
    text, code = await mcp_list_async(tmp_path)
    assert code == 0
    command = " ".join([fx["command"], *fx["args"]])
    assert text.splitlines() == [
        "fx: connected, 4 tools (codemode, global)",
        f"  {command}",
        "  tools: echo [direct], fail, slow, picture",
        "  offers resources",
        "off: disabled (direct, global)",
        f"  {command}",
    ]
    report, code = await mcp_list_async(tmp_path, as_json=True)
    data = json.loads(report)
    assert code == 0 and data["errors"] == []
    assert data["servers"][0] == {
        "name": "fx",
        "scope": "global",
        "source": str(agent_dir / "mcp.json"),
        "enabled": True,
        "exposure": "codemode",
        "transport": command,
        "state": "connected",
        "tools": ["echo", "fail", "slow", "picture"],
        "toolExposure": {"echo": "direct"},
        "resources": True,
    }
    assert data["servers"][1]["state"] == "disabled" and data["servers"][1]["tools"] == []


async def test_unreachable_enabled_server_exits_1(tmp_path: Path, agent_dir: Path, stdio_entry: Any) -> None:
    write_config(agent_dir / "mcp.json", {"fx": stdio_entry(), "down": {"url": "http://127.0.0.1:9/mcp"}})
    text, code = await mcp_list_async(tmp_path, FAST_RETRY)
    assert code == 1
    lines = text.splitlines()
    at = lines.index("down: failed (codemode, global)")
    assert lines[at + 1] == "  http://127.0.0.1:9/mcp"
    assert "cannot connect" in lines[at + 2]


async def test_invalid_config_exits_1(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text('{"mcpServers": {"x": {"command": ""}}}')
    text, code = await mcp_list_async(tmp_path)
    assert code == 1
    assert text == f'config error: {agent_dir / "mcp.json"}: server "x": command must be a non-empty string'


async def test_no_configuration(tmp_path: Path, agent_dir: Path) -> None:
    expected = f"No MCP servers configured. Add them to {agent_dir / 'mcp.json'} or .pi/mcp.json."
    assert await mcp_list_async(tmp_path) == (expected, 0)


async def test_project_servers_listed_only_when_trusted(tmp_path: Path, agent_dir: Path, stdio_entry: Any) -> None:
    project_file = tmp_path / ".pi" / "mcp.json"
    write_config(project_file, {"proj": stdio_entry()})
    untrusted = (await mcp_list_async(tmp_path))[0].splitlines()
    assert (
        untrusted[-1]
        == f"{project_file} is ignored because the project is not trusted. Start pi in the project to trust it."
    )
    assert not any(line.startswith("proj:") for line in untrusted)
    text, code = await mcp_list_async(tmp_path, McpOptions(project_trusted=True))
    assert code == 0 and "proj: connected, 4 tools (direct, project)" in text.splitlines()
