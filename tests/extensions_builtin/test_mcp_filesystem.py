"""The MCP client against a third-party server: ``@modelcontextprotocol/server-filesystem`` (Node).

``scripts/test`` installs the package into ``tests/fixtures/npm/node_modules``; the test skips with
a reason when ``node`` or the package is missing.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_harness.extensions_builtin.mcp import create_mcp_extension

PACKAGE = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "npm"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-filesystem"
)


@pytest.fixture
def filesystem_server() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    entry = PACKAGE / "dist" / "index.js"
    if not entry.is_file():
        pytest.skip(f"@modelcontextprotocol/server-filesystem is not installed at {PACKAGE} (run scripts/test)")
    return [node, str(entry)]


async def test_filesystem_server_confined_to_the_session_directory_by_roots(
    tmp_path: Path, agent_dir: Path, harness: Any, filesystem_server: list[str]
) -> None:
    """No directory on the command line: the server asks for ``roots/list`` and may use only the
    session's working directory, which is the one root we offer (as Pi does)."""
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("first line\nsecond line\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    command, script = filesystem_server
    (agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"fs": {"command": command, "args": [script], "exposure": "direct"}}})
    )
    h = await harness(create_mcp_extension(), root)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    tools = h.tools()
    assert {"mcp__fs__read_text_file", "mcp__fs__list_directory", "mcp__fs__write_file"} <= set(tools)
    assert "path" in tools["mcp__fs__read_text_file"].parameters["properties"]

    # The server asks for the roots once initialised, in the background: wait for it to have them.
    for _ in range(200):
        allowed = (await h.call("mcp__fs__list_allowed_directories", {}))["content"][0]["text"]
        if str(root) in allowed:
            break
        await asyncio.sleep(0.05)
    assert allowed.splitlines()[1:] == [str(root)]

    read = await h.call("mcp__fs__read_text_file", {"path": str(root / "notes.txt")})
    assert not read.get("isError")
    assert read["content"][0]["text"] == "first line\nsecond line\n"

    listing = await h.call("mcp__fs__list_directory", {"path": str(root)})
    text = listing["content"][0]["text"]
    assert "[DIR] docs" in text and "[FILE] notes.txt" in text

    outside = await h.call("mcp__fs__read_text_file", {"path": str(tmp_path / "outside.txt")})
    assert outside["isError"] is True
    assert "secret" not in outside["content"][0]["text"]
    await h.shutdown()
