"""``pi mcp list``: the status table and its exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_harness.extensions_builtin.mcp import McpOptions, mcp_list_async


def write_config(path: Path, servers: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


async def test_connected_and_disabled_servers_exit_0(tmp_path: Path, agent_dir: Path, stdio_entry: Any) -> None:
    write_config(agent_dir / "mcp.json", {"fx": stdio_entry(), "off": {**stdio_entry(), "enabled": False}})
    text, code = await mcp_list_async(tmp_path)
    assert code == 0
    lines = text.splitlines()
    assert lines[0].split() == ["✓", "fx", "stdio", "connected", "4", "tools"]
    assert lines[1].split() == ["-", "off", "stdio", "disabled"]
    assert lines[-1] == "Config: ~/.pi/agent/mcp.json"


async def test_unreachable_enabled_server_exits_1(tmp_path: Path, agent_dir: Path, stdio_entry: Any) -> None:
    write_config(agent_dir / "mcp.json", {"fx": stdio_entry(), "down": {"url": "http://127.0.0.1:9/mcp"}})
    text, code = await mcp_list_async(tmp_path, McpOptions(retry_delays_s=(0.01, 0.01)))
    assert code == 1
    down = next(line for line in text.splitlines() if " down " in line)
    assert down.split()[:4] == ["✗", "down", "http", "failed"]
    assert "cannot connect" in down


async def test_invalid_config_exits_1(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text('{"mcpServers": {"x": {"command": ""}}}')
    text, code = await mcp_list_async(tmp_path)
    assert code == 1
    assert f'error: {agent_dir / "mcp.json"}: server "x": command must be a non-empty string' in text


async def test_no_configuration(tmp_path: Path, agent_dir: Path) -> None:
    assert await mcp_list_async(tmp_path) == ("No MCP servers configured.", 0)


async def test_project_servers_listed_only_when_trusted(tmp_path: Path, agent_dir: Path, stdio_entry: Any) -> None:
    write_config(tmp_path / ".pi" / "mcp.json", {"proj": stdio_entry()})
    untrusted = (await mcp_list_async(tmp_path))[0].splitlines()
    assert untrusted[0] == "No MCP servers configured."
    assert untrusted[1:] == [f"{tmp_path / '.pi' / 'mcp.json'} was not loaded: the project is not trusted "
                             "(trust it when pi asks, or use --approve)"]  # fmt: skip
    text, code = await mcp_list_async(tmp_path, McpOptions(project_trusted=True))
    assert code == 0 and "✓ proj" in text
