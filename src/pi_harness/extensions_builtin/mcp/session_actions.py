"""The ``/mcp`` actions of a running session that involve OAuth or exposure.

``sign_in``: the browser flow of ``signin.sign_in`` for a server of this session; the URL is shown
with ``notify`` (and opened in a graphical browser when there is one), then the session's own
connection reconnects with the stored tokens. ``sign_out``: delete the stored credentials and
reconnect, which leaves the server waiting for a sign-in. ``set_exposure``: save ``exposure`` to
the file that defines the server (its project override when there is one) and register its tools
again under the new exposure. The texts are Pi 1.4.0's.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pi_harness.extensions_builtin.mcp.auth_store import McpAuthFile
from pi_harness.extensions_builtin.mcp.config import McpConfig
from pi_harness.extensions_builtin.mcp.edit import update_server
from pi_harness.extensions_builtin.mcp.exposure import Exposure
from pi_harness.extensions_builtin.mcp.manager import McpManager
from pi_harness.extensions_builtin.mcp.oauth import BrowserStep

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.connection import ServerConnection

SIGN_IN_TIMEOUT_S = 300.0
EXPOSURES = {
    "codemode": "called from codemode scripts, which find them with searchTools()",
    "deferred": "loaded by tool_search when the model looks for them, then called directly",
    "direct": "declared to the model like the built-in tools",
}


def open_browser(url: str) -> None:
    """A graphical browser only: on Linux without a display, ``webbrowser`` would start a text
    browser inside pi's own terminal."""
    import webbrowser

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return
    try:
        webbrowser.open(url)
    except Exception:  # the URL is shown; a missing browser is not an error
        pass


async def sign_in(
    name: str,
    manager: McpManager,
    agent_directory: Path,
    notify: Callable[[str], None],
    open_url: Callable[[str], object] = open_browser,
    timeout_s: float = SIGN_IN_TIMEOUT_S,
) -> tuple[str, str]:
    from pi_harness.extensions_builtin.mcp.signin import SignInCancelled, SignInFailed
    from pi_harness.extensions_builtin.mcp.signin import sign_in as run_sign_in

    connection = manager.connections.get(name)
    server = manager.config.servers.get(name)
    if server is None:
        return f'No MCP server named "{name}".', "error"
    if connection is None or not server.uses_oauth:
        return f'MCP server "{name}" does not use OAuth.', "error"
    loop = asyncio.get_running_loop()

    def show(url: str) -> None:
        notify(f'Sign in to MCP server "{name}" in your browser:\n{url}')
        loop.run_in_executor(None, open_url, url)

    def connect(browser: BrowserStep) -> ServerConnection:
        return manager.sign_in_connection(server, browser)

    try:
        signed = await run_sign_in(server, agent_directory, connect, show, timeout_s)
    except SignInCancelled:
        return "Sign-in cancelled.", "info"
    except (SignInFailed, OSError) as exc:
        return f"Sign-in failed: {exc}", "error"
    failed = signed.status != "connected"
    await signed.close()
    if failed:
        return f"Sign-in failed: {signed.error or 'the server still asks for a sign-in'}", "error"
    await connection.reconnect()
    if connection.status != "connected":
        return f"Signed in, but {connection.error or 'the server did not connect'}", "error"
    return f'Signed in to MCP server "{name}" ({len(connection.tools)} tools).', "info"


async def sign_out(name: str, manager: McpManager, agent_directory: Path) -> tuple[str, str]:
    server = manager.config.servers.get(name)
    if server is None:
        return f'No MCP server named "{name}".', "error"
    if not server.uses_oauth or server.url is None:
        return f'MCP server "{name}" does not use OAuth.', "error"
    removed = McpAuthFile(agent_directory).remove(name, server.url)
    connection = manager.connections.get(name)
    if connection is not None:
        await connection.reconnect()
    if removed:
        return f'Signed out of MCP server "{name}".', "info"
    return f'No stored credentials for MCP server "{name}".', "info"


async def set_exposure(
    name: str,
    exposure: str,
    config: McpConfig,
    manager: McpManager,
    tools_changed: Callable[[str, bool], None],
) -> tuple[str, str]:
    server = config.servers.get(name)
    if server is None:
        return f'No MCP server named "{name}".', "error"
    if exposure not in (*EXPOSURES, "hidden"):
        return f'Exposure must be one of codemode, deferred, direct or hidden, not "{exposure}".', "error"
    path = Path(server.override or server.source)
    try:
        update_server(path, name, {"exposure": exposure}, override=server.override is not None)
    except (OSError, ValueError) as exc:
        return f"Could not update {path}: {exc}", "error"
    changed = replace(server, exposure=cast(Exposure, exposure))  # one of the names checked above
    config.servers[name] = changed
    manager.config.servers[name] = changed
    connection = manager.connections.get(name)
    if connection is not None:
        connection.config = changed
        tools_changed(name, True)
    return f'Exposure of MCP server "{name}" set to {exposure} (saved to {path}).', "info"
