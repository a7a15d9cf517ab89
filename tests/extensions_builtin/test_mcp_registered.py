"""builtin:mcp connects the servers extensions register (``pi.register_mcp_server``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI
from pi_harness.extensions_builtin.mcp import create_mcp_extension


async def eventually(predicate: Any, attempts: int = 400) -> bool:
    for _ in range(attempts):
        if predicate():
            return True
        await asyncio.sleep(0.025)
    return False


async def test_registered_servers_connect_at_start_and_later(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    # mcp.json's "shared" wins over the registered server of that name.
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"shared": {**stdio_entry(), "exposure": "direct"}}}))
    apis: list[ExtensionAPI] = []

    def with_registrations(pi: ExtensionAPI) -> None:
        apis.append(pi)
        create_mcp_extension()(pi)
        pi.register_mcp_server("early", {**stdio_entry(), "exposure": "direct"})
        pi.register_mcp_server("shared", {"command": "does-not-exist-anywhere"})
        pi.register_mcp_server("broken", {"command": "x", "timeout": -1})

    h = await harness(with_registrations, tmp_path)
    await h.start()
    assert await eventually(lambda: "mcp__early__echo" in h.tools() and "mcp__shared__echo" in h.tools())
    apis[0].register_mcp_server("late", {**stdio_entry(), "exposure": "direct"})
    assert await eventually(lambda: "mcp__late__echo" in h.tools())
    log = (agent_dir / "mcp.log").read_text()
    assert 'server "broken": timeout must be a positive number of seconds' in log
    assert not any(e.event == "register_mcp_server" for e in h.errors)  # builtin:mcp connects them
    await h.shutdown()
