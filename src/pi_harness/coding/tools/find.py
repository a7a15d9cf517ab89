"""The ``find`` tool: paths matching a glob, relative to the search directory."""

from __future__ import annotations

import os

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.coding.tools.declarations import DEFAULT_FIND_LIMIT, FIND
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.operations import FindOperations, LocalFindOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.paths import to_posix
from pi_harness.coding.tools.results import ToolError, raise_if_aborted, text_result
from pi_harness.coding.tools.truncate import ListingNotices

# What a custom glob implementation should skip (the local one honours .gitignore instead).
DEFAULT_FIND_IGNORE = ("**/node_modules/**", "**/.git/**")


def _relative(path: str, search_path: str) -> str:
    is_dir = path.endswith("/")
    if os.path.isabs(path):
        path = os.path.relpath(path, search_path)
    path = to_posix(path).rstrip("/")
    return path + "/" if is_dir else path


async def _find(call: ToolCall[FindOperations]) -> AgentToolResult:
    operations, signal = call.operations, call.signal
    search_path = call.directory()
    limit = call.limit(DEFAULT_FIND_LIMIT)
    if not await operations.exists(search_path):
        raise ToolError(f"Path not found: {search_path}")
    found = await operations.glob(
        call.text("pattern"), search_path, ignore=DEFAULT_FIND_IGNORE, limit=limit, signal=signal
    )
    raise_if_aborted(signal)
    if not found:
        return text_result("No files found matching pattern")
    paths = [_relative(path, search_path) for path in found[:limit]]
    listing = ListingNotices("\n".join(paths))
    if len(paths) >= limit:
        listing.add_limit(limit, "results", "resultLimitReached")
    return listing.result()


FIND_TOOL: BuiltinTool[FindOperations] = BuiltinTool.declared(
    FIND,
    operations=lambda options: (
        options.find_operations
        or LocalFindOperations(use_ripgrep=options.use_ripgrep, agent_directory=options.agent_dir)
    ),
    run=_find,
)


def create_find_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return FIND_TOOL.create(cwd, options)
