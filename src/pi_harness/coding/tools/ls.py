"""The ``ls`` tool: a directory's entries, sorted, directories marked ``/``."""

from __future__ import annotations

import os

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.coding.tools.declarations import DEFAULT_LS_LIMIT, LS
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.operations import LocalLsOperations, LsOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.results import ToolError, raise_if_aborted, text_result
from pi_harness.coding.tools.truncate import ListingNotices


async def _ls(call: ToolCall[LsOperations]) -> AgentToolResult:
    operations, signal = call.operations, call.signal
    directory = call.directory()
    limit = call.limit(DEFAULT_LS_LIMIT)
    if not await operations.exists(directory):
        raise ToolError(f"Path not found: {directory}")
    if not (await operations.stat(directory)).is_directory:
        raise ToolError(f"Not a directory: {directory}")
    try:
        names = await operations.readdir(directory)
    except OSError as exc:
        raise ToolError(f"Cannot read directory: {exc.strerror or exc}") from None
    except Exception as exc:
        raise ToolError(f"Cannot read directory: {exc}") from None
    names.sort(key=lambda name: (name.lower(), name))
    entries: list[str] = []
    limit_reached = False
    for name in names:
        if len(entries) >= limit:
            limit_reached = True
            break
        raise_if_aborted(signal)
        try:
            is_directory = (await operations.stat(os.path.join(directory, name))).is_directory
        except Exception:
            continue  # vanished or unreadable entries are skipped
        entries.append(f"{name}/" if is_directory else name)
    if not entries:
        return text_result("(empty directory)")
    listing = ListingNotices("\n".join(entries))
    if limit_reached:
        listing.add_limit(limit, "entries", "entryLimitReached", refine=False)
    return listing.result()


LS_TOOL: BuiltinTool[LsOperations] = BuiltinTool.declared(
    LS,
    operations=lambda options: options.ls_operations or LocalLsOperations(),
    run=_ls,
)


def create_ls_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return LS_TOOL.create(cwd, options)
