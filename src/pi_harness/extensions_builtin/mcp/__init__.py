"""The built-in MCP client (``builtin:mcp``): mcp.json servers as tools, ``pi mcp list``.

The ``mcp`` SDK is imported only once a server is configured (``connection.py``).
"""

from pi_harness.extensions_builtin.mcp.cli import mcp_list, mcp_list_async
from pi_harness.extensions_builtin.mcp.config import McpConfig, McpServerConfig, config_paths, load_mcp_config
from pi_harness.extensions_builtin.mcp.extension import EXTENSION_NAME, McpOptions, create_mcp_extension, mcp_extension
from pi_harness.extensions_builtin.mcp.manager import McpManager, ServerStatus, format_statuses
from pi_harness.extensions_builtin.mcp.names import tool_name

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
