"""builtin:mcp across a session: readiness of the first prompt, direct tools, trust, bad config."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_harness.extensions_builtin.mcp import McpOptions, create_mcp_extension
from pi_harness.extensions_builtin.mcp.slash_command import USAGE


def write_config(path: Path, servers: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


async def eventually(predicate: Any, attempts: int = 400) -> bool:
    for _ in range(attempts):
        if predicate():
            return True
        await asyncio.sleep(0.025)
    return False


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before or while it was read
        return True


async def test_first_prompt_waits_only_up_to_the_cap(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    write_config(agent_dir / "mcp.json", {"late": stdio_entry("--startup-delay", "1")})
    h = await harness(create_mcp_extension(McpOptions(first_prompt_wait_s=0.05)), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "first", "systemPrompt": ""})
    assert h.tools() == {}  # the prompt went ahead without the slow server
    assert await eventually(lambda: "mcp__late__echo" in h.tools())
    assert "mcp__late__echo" in h.host.get_active_tools()  # registered later, active all the same
    log = (agent_dir / "mcp.log").read_text()
    assert "first prompt sent before these servers were ready: late" in log
    await h.shutdown()


async def test_first_prompt_does_not_wait_for_servers_without_direct_tools(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    entry = stdio_entry("--startup-delay", "1")
    entry["exposure"] = "deferred"
    fast = {**stdio_entry(), "exposure": "codemode", "toolExposure": {"echo": "direct"}}
    write_config(agent_dir / "mcp.json", {"lazy": entry, "fast": fast})
    h = await harness(create_mcp_extension(McpOptions(first_prompt_wait_s=60)), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "first", "systemPrompt": ""})
    tools = h.tools()
    assert "mcp__fast__echo" in tools  # waited for the server with a direct tool
    assert not any(name.startswith("mcp__lazy__") for name in tools)  # did not wait for this one
    assert await eventually(lambda: "mcp__lazy__echo" in h.tools())
    active = h.host.get_active_tools()
    assert "mcp__fast__echo" in active and "mcp__fast__slow" not in active
    assert not any(name.startswith("mcp__lazy__") for name in active)
    await h.shutdown()


async def test_invalid_config_does_not_stop_the_valid_servers(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any, recording_ui: Any
) -> None:
    write_config(agent_dir / "mcp.json", {"good": stdio_entry(), "bad": {"command": 42}})
    h = await harness(create_mcp_extension(), tmp_path, ui=recording_ui)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    assert "mcp__good__echo" in h.tools()
    assert h.errors == []
    problem = f'{agent_dir / "mcp.json"}: server "bad" needs either "command" (stdio) or "url" (streamable HTTP)'
    report = f"MCP servers need attention:\n  config: {problem}\nRun /mcp to fix."
    assert await eventually(lambda: ("warning", report) in recording_ui.notifications)
    assert "config error: " + problem in (agent_dir / "mcp.log").read_text()
    await h.runner.run_command("mcp", "")
    status = recording_ui.notifications[-1][1].splitlines()
    assert status == ["good: connected, 4 tools (direct)", "config error: " + problem]
    await h.shutdown()


async def test_failed_server_is_reported_and_has_no_tools(
    tmp_path: Path, agent_dir: Path, harness: Any, recording_ui: Any
) -> None:
    write_config(agent_dir / "mcp.json", {"ghost": {"command": str(tmp_path / "no-such-binary"), "exposure": "direct"}})
    h = await harness(create_mcp_extension(), tmp_path, ui=recording_ui)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    assert h.tools() == {}
    report = f"MCP servers need attention:\n  ghost: failed: command not found: {tmp_path / 'no-such-binary'}"
    assert await eventually(lambda: ("warning", report + "\nRun /mcp to fix.") in recording_ui.notifications)
    await h.shutdown()


async def test_disabled_server_is_never_started(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    pid_file = tmp_path / "pid"
    write_config(agent_dir / "mcp.json", {"off": {**stdio_entry("--pid-file", str(pid_file)), "enabled": False}})
    h = await harness(create_mcp_extension(McpOptions(first_prompt_wait_s=1)), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    await asyncio.sleep(0.2)
    assert not pid_file.exists()
    assert h.tools() == {}
    await h.shutdown()


async def test_project_config_is_read_only_when_trusted(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    project = tmp_path / "project"
    write_config(project / ".pi" / "mcp.json", {"proj": stdio_entry()})
    untrusted = await harness(create_mcp_extension(McpOptions(project_trusted=False)), project)
    await untrusted.start()
    await untrusted.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    assert untrusted.tools() == {}
    await untrusted.shutdown()

    trusted = await harness(create_mcp_extension(McpOptions(project_trusted=lambda: True)), project)
    await trusted.start()
    await trusted.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    assert "mcp__proj__echo" in trusted.tools()
    await trusted.shutdown()


async def test_shutdown_while_connecting_leaves_no_process(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    pid_file = tmp_path / "pid"
    write_config(agent_dir / "mcp.json", {"slow": stdio_entry("--pid-file", str(pid_file), "--startup-delay", "30")})
    h = await harness(create_mcp_extension(), tmp_path)
    await h.start()
    assert await eventually(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    pid = int(pid_file.read_text())
    await asyncio.gather(h.shutdown(), h.shutdown())  # concurrent shutdowns share one
    assert await eventually(lambda: gone(pid))
    assert os.path.exists(agent_dir / "mcp.log")


def test_sdk_is_not_imported_without_configured_servers(tmp_path: Path, agent_dir: Path) -> None:
    """Startup cost: a session without MCP servers never imports the ``mcp`` SDK."""
    script = """
import asyncio, sys
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.extensions_builtin import BUILTIN_EXTENSIONS

class Host:
    cwd = sys.argv[1]

async def main():
    runner = ExtensionRunner(builtin_factories=BUILTIN_EXTENSIONS)
    await runner.load_paths(["builtin:mcp"])
    runner.bind(Host())
    await runner.emit("session_start", {})
    await runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    await runner.emit("session_shutdown", {})
    print("mcp" in sys.modules, "httpx2" in sys.modules)

asyncio.run(main())
"""
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"off": {"command": "x", "enabled": False}}}))
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


async def test_mcp_command_reports_reconnects_and_enables(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any, recording_ui: Any
) -> None:
    pid_file = tmp_path / "pid"
    write_config(
        agent_dir / "mcp.json",
        {"fx": stdio_entry("--pid-file", str(pid_file)), "off": {"command": "x", "enabled": False}},
    )
    h = await harness(create_mcp_extension(), tmp_path, ui=recording_ui)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    await h.runner.run_command("mcp", "")
    assert recording_ui.notifications[-1] == ("info", "fx: connected, 4 tools (direct)\noff: disabled (codemode)")

    # A server that went away is reconnected by the next call.
    first_pid = int(pid_file.read_text())
    os.kill(first_pid, 9)
    assert await eventually(lambda: gone(first_pid))
    for _ in range(2):
        try:
            result = await h.call("mcp__fx__echo", {"text": "back"})
            break
        except RuntimeError as exc:  # the call that finds the connection closed
            assert "Connection closed" in str(exc)
    assert result["content"][0]["text"] == "echo: back"
    assert int(pid_file.read_text()) != first_pid

    await h.runner.run_command("mcp", "reconnect fx")
    assert recording_ui.notifications[-1] == ("info", 'Reconnected to MCP server "fx" (connected · 4 tools).')

    await h.runner.run_command("mcp", "disable fx")
    assert recording_ui.notifications[-1][1].startswith('MCP server "fx" disabled (saved to ')
    assert json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["fx"]["enabled"] is False
    assert "mcp__fx__echo" not in h.host.get_active_tools()
    with pytest.raises(RuntimeError, match='The MCP server "fx" is disabled'):
        await h.call("mcp__fx__echo", {"text": "x"})

    await h.runner.run_command("mcp", "enable fx")
    assert "enabled" not in json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["fx"]
    assert "mcp__fx__echo" in h.host.get_active_tools()
    assert (await h.call("mcp__fx__echo", {"text": "again"}))["content"][0]["text"] == "echo: again"
    command = h.runner.find_command("mcp")
    assert command is not None and command[0].get_argument_completions is not None
    assert command[0].get_argument_completions("dis") == [{"value": "disable ", "label": "disable"}]
    assert command[0].get_argument_completions("enable o") == [{"value": "enable off", "label": "off"}]
    await h.runner.run_command("mcp", "frob")
    assert recording_ui.notifications[-1] == (
        "warning",
        USAGE,
    )
    await h.shutdown()


async def test_interactive_mcp_menu_disables_in_this_project(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any, recording_ui: Any
) -> None:
    """``/mcp`` in the interactive mode: pick a server, then "Disable in this project"."""
    answers: list[str] = []
    asked: list[tuple[str, list[str]]] = []

    async def select(title: str, options: list[str], **_kwargs: Any) -> str | None:
        asked.append((title, options))
        wanted = answers.pop(0)
        return next(option for option in options if option.startswith(wanted))

    recording_ui.select = select
    project = tmp_path / "project"
    project.mkdir()
    write_config(
        agent_dir / "mcp.json", {"fx": stdio_entry(), "broken": {**stdio_entry(), "command": str(tmp_path / "nope")}}
    )
    h = await harness(create_mcp_extension(McpOptions(project_trusted=True)), project, ui=recording_ui)
    h.host.mode = "tui"
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    answers[:] = ["fx — ", "Disable in this project"]
    await h.runner.run_command("mcp", "")
    assert asked[0] == ("MCP servers", ["broken — failed · direct", "fx — connected · 4 tools · direct"])
    title, actions = asked[1]
    assert actions == ["Tools", "Reconnect", "Exposure (direct)", "Disable", "Disable in this project"]
    # The server's details head the menu, as Pi's inspect view does.
    assert title.splitlines()[0] == "MCP server fx"
    assert title.splitlines()[2:] == [f"global: {agent_dir / 'mcp.json'}", "State: connected · 4 tools"]
    override = project / ".pi" / "mcp.json"
    assert recording_ui.notifications[-1] == ("info", f'MCP server "fx" disabled (saved to {override}).')
    assert json.loads(override.read_text()) == {"mcpServers": {"fx": {"enabled": False}}}
    assert "enabled" not in json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["fx"]
    assert "mcp__fx__echo" not in h.host.get_active_tools()
    await h.shutdown()
