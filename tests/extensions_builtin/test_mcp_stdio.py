"""The MCP client against a real stdio server (the SDK fixture server, spawned for real)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_harness.ai.abort import AbortController
from pi_harness.extensions_builtin.mcp import McpOptions, create_mcp_extension


def write_config(path: Path, servers: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is gone for our purposes once reaped or defunct.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before or while it was read
        return False


async def wait_gone(pid: int) -> bool:
    for _ in range(200):
        if not pid_alive(pid):
            return True
        await asyncio.sleep(0.025)
    return False


async def test_tools_are_registered_called_and_shutdown_stops_the_server(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    pid_file = tmp_path / "server.pid"
    write_config(
        agent_dir / "mcp.json", {"fx": stdio_entry("--pid-file", str(pid_file), "--stderr", "hello on stderr")}
    )
    h = await harness(create_mcp_extension(), tmp_path, path="builtin:mcp")
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "hi", "systemPrompt": ""})

    tools = h.tools()
    assert sorted(n for n in tools if n.startswith("mcp__")) == [
        "mcp__fx__echo",
        "mcp__fx__fail",
        "mcp__fx__picture",
        "mcp__fx__slow",
    ]
    echo = tools["mcp__fx__echo"]
    assert echo.parameters["properties"]["text"]["type"] == "string"
    assert echo.parameters["required"] == ["text"]
    assert echo.output_schema is not None
    assert "mcp__fx__echo" in h.host.get_active_tools()

    result = await h.call("mcp__fx__echo", {"text": "hello"})
    assert result["content"] == [{"type": "text", "text": "echo: hello"}]
    assert result["structuredContent"] == {"result": "echo: hello"}
    assert not result.get("isError")

    failed = await h.call("mcp__fx__fail", {"reason": "nope"})
    assert failed["isError"] is True
    assert "nope" in failed["content"][0]["text"]

    picture = await h.call("mcp__fx__picture", {})
    assert picture["content"][0]["type"] == "image"
    assert picture["content"][0]["mimeType"] == "image/png"
    assert picture["content"][1] == {"type": "text", "text": "a pixel"}
    assert picture["structuredContent"] == {"width": 1, "height": 1}

    pid = int(pid_file.read_text())
    assert pid_alive(pid)
    await h.shutdown()
    assert await wait_gone(pid)
    await h.shutdown()  # idempotent
    assert h.errors == []
    log = (agent_dir / "mcp.log").read_text()
    assert "[fx] connected to fixture-stdio" in log
    assert "[fx] stderr: hello on stderr" in log
    assert "[fx] closed" in log


async def test_progress_updates_and_timeout_reset_by_progress(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    # Six steps of 150 ms last longer than the 0.5 s timeout: only progress keeps the call alive.
    write_config(agent_dir / "mcp.json", {"fx": {**stdio_entry(), "timeout": 0.5}})
    h = await harness(create_mcp_extension(McpOptions(connect_timeout_s=30)), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    updates: list[dict[str, Any]] = []
    result = await h.call("mcp__fx__slow", {"steps": 6, "delay_ms": 150}, on_update=updates.append)
    assert result["content"][0]["text"] == "done after 6 steps"
    assert [u["details"]["progress"] for u in updates] == [0, 1, 2, 3, 4, 5]
    assert updates[0]["content"][0]["text"] == "step 0"  # the server's message, as Pi shows it
    assert "[fx] log info: slow started with 6 steps" in (agent_dir / "mcp.log").read_text()
    await h.shutdown()


async def test_request_without_progress_times_out(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    entry = stdio_entry()
    entry["timeout"] = 0.05  # seconds
    write_config(agent_dir / "mcp.json", {"fx": entry})
    h = await harness(create_mcp_extension(McpOptions(connect_timeout_s=30)), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    # One step of 400 ms: the single progress notice comes first, then nothing for 400 ms.
    with pytest.raises(Exception, match=r"timed out after 0\.05 s without progress"):
        await h.call("mcp__fx__slow", {"steps": 1, "delay_ms": 400})
    # The connection is still usable afterwards.
    assert (await h.call("mcp__fx__echo", {"text": "x"}))["content"][0]["text"] == "echo: x"
    await h.shutdown()


async def test_abort_cancels_the_request(tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any) -> None:
    write_config(agent_dir / "mcp.json", {"fx": stdio_entry()})
    h = await harness(create_mcp_extension(), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    controller = AbortController()
    updates: list[Any] = []

    def on_update(partial: Any) -> None:
        updates.append(partial)
        controller.abort()

    with pytest.raises(Exception, match="aborted"):
        await h.call("mcp__fx__slow", {"steps": 50, "delay_ms": 100}, signal=controller.signal, on_update=on_update)
    assert len(updates) == 1
    assert (await h.call("mcp__fx__echo", {"text": "after"}))["content"][0]["text"] == "echo: after"
    await h.shutdown()
