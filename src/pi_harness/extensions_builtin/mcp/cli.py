"""``pi mcp list``: connect to every configured server once and print a status table.

Exit code 1 when a configuration is invalid or an enabled server could not be connected, else 0
(docs/extensions.md, "MCP servers"). The function returns the text and the code; the CLI prints
and exits.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pi_harness.extensions_builtin.mcp.config import load_mcp_config
from pi_harness.extensions_builtin.mcp.extension import McpOptions
from pi_harness.extensions_builtin.mcp.log import LOG_FILE, McpLog
from pi_harness.extensions_builtin.mcp.manager import McpManager, format_statuses


async def mcp_list_async(cwd: str | os.PathLike[str], options: McpOptions | None = None) -> tuple[str, int]:
    opts = options or McpOptions()
    directory = opts.resolved_agent_dir()
    config = load_mcp_config(directory, cwd, project_trusted=opts.is_project_trusted())
    log = McpLog(directory / LOG_FILE)
    manager = McpManager(config, cwd=str(cwd), log=log, settings=opts.connection_settings())
    manager.start()
    try:
        await manager.wait_all()
        statuses = manager.statuses()
    finally:
        await manager.close()
    text = format_statuses(config, statuses)
    if config.files:
        text += "\n\nConfig: " + ", ".join(_display(p) for p in config.files)
    failed = any(s.status != "connected" for s in statuses if s.status != "disabled")
    return text, 1 if config.errors or failed else 0


def mcp_list(cwd: str | os.PathLike[str], options: McpOptions | None = None) -> tuple[str, int]:
    """Synchronous entry for the CLI."""
    return asyncio.run(mcp_list_async(cwd, options))


def _display(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text
