"""The built-in MCP client (``builtin:mcp``): mcp.json servers as tools, ``pi mcp list``.

The ``mcp`` SDK is imported only once a server is configured (``connection.py``), and the client
itself only once a session has something to connect (``front.py``): the names below are
imported on first use, so loading the factory does not load the client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.extensions_builtin.mcp.cli import mcp_list, mcp_list_async
    from pi_harness.extensions_builtin.mcp.config import McpConfig, McpServerConfig, config_paths, load_mcp_config
    from pi_harness.extensions_builtin.mcp.front import create_mcp_extension
    from pi_harness.extensions_builtin.mcp.manager import McpManager, ServerStatus, format_statuses
    from pi_harness.extensions_builtin.mcp.names import tool_name
    from pi_harness.extensions_builtin.mcp.options import EXTENSION_NAME, McpOptions

_EXPORTS = {
    "EXTENSION_NAME": "options",
    "McpOptions": "options",
    "create_mcp_extension": "front",
    "McpConfig": "config",
    "McpServerConfig": "config",
    "config_paths": "config",
    "load_mcp_config": "config",
    "McpManager": "manager",
    "ServerStatus": "manager",
    "format_statuses": "manager",
    "mcp_list": "cli",
    "mcp_list_async": "cli",
    "tool_name": "names",
}


def __getattr__(name: str) -> object:
    if name == "mcp_extension":  # the factory with the default options
        from pi_harness.extensions_builtin.mcp.front import create_mcp_extension

        return create_mcp_extension()
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "EXTENSION_NAME",
    "McpConfig",
    "McpManager",
    "McpOptions",
    "McpServerConfig",
    "ServerStatus",
    "config_paths",
    "create_mcp_extension",
    "format_statuses",
    "load_mcp_config",
    "mcp_extension",
    "mcp_list",
    "mcp_list_async",
    "tool_name",
]
