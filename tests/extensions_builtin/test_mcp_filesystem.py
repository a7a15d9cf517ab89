"""The MCP client against a third-party server: ``@modelcontextprotocol/server-filesystem`` (Node).

``scripts/test`` installs the package into ``tests/fixtures/npm/node_modules``; the test skips with
a reason when ``node`` or the package is missing.
"""

from __future__ import annotations

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


async def test_filesystem_server_lists_and_reads(
    tmp_path: Path, agent_dir: Path, harness: Any, filesystem_server: list[str]
) -> None:
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "notes.txt").write_text("first line\nsecond line\n")
    command, script = filesystem_server
    (agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"fs": {"command": command, "args": [script, str(root)]}}})
    )
    h = await harness(create_mcp_extension(), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    tools = h.tools()
    assert {"fs__read_text_file", "fs__list_directory", "fs__write_file"} <= set(tools)
    assert "path" in tools["fs__read_text_file"].parameters["properties"]

    read = await h.call("fs__read_text_file", {"path": str(root / "notes.txt")})
    assert not read.get("isError")
    assert read["content"][0]["text"] == "first line\nsecond line\n"

    listing = await h.call("fs__list_directory", {"path": str(root)})
    text = listing["content"][0]["text"]
    assert "[DIR] docs" in text and "[FILE] notes.txt" in text

    outside = await h.call("fs__read_text_file", {"path": "/etc/hostname"})
    assert outside["isError"] is True
    await h.shutdown()
