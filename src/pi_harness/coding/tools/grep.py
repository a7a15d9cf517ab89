"""The ``grep`` tool: matching lines with paths and line numbers.

The search (ripgrep, or the Python walker without it) yields file/line pairs in path order; the
lines themselves, and any context lines, are re-read from the files for formatting.
"""

from __future__ import annotations

import os

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.coding.tools.declarations import DEFAULT_GREP_LIMIT, GREP
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.operations import GrepOperations, LocalGrepOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.results import ToolError, as_int, raise_if_aborted, text_result
from pi_harness.coding.tools.search_types import GrepQuery
from pi_harness.coding.tools.truncate import (
    GREP_MAX_LINE_LENGTH,
    ListingNotices,
    truncate_line,
)


async def _file_lines(operations: GrepOperations, path: str) -> list[str] | None:
    try:
        text = (await operations.read_file(path)).decode("utf-8", "replace")
    except Exception:
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


async def _grep(call: ToolCall[GrepOperations]) -> AgentToolResult:
    operations, params, signal = call.operations, call.params, call.signal
    search_path = call.directory()
    limit = call.limit(DEFAULT_GREP_LIMIT)
    context = max(0, as_int(params.get("context"), 0))
    try:
        is_directory = await operations.is_directory(search_path)
    except FileNotFoundError:
        raise ToolError(f"Path not found: {search_path}") from None
    query = GrepQuery(
        pattern=call.text("pattern"),
        path=search_path,
        is_directory=is_directory,
        glob=str(params["glob"]) if params.get("glob") else None,
        ignore_case=bool(params.get("ignoreCase")),
        literal=bool(params.get("literal")),
        limit=limit,
    )
    result = await operations.search(query, signal)
    raise_if_aborted(signal)
    if not result.hits:
        return text_result("No matches found")
    cache: dict[str, list[str] | None] = {}
    out: list[str] = []
    lines_truncated = False
    for hit in result.hits:
        if hit.rel_path not in cache:
            target = os.path.join(search_path, hit.rel_path) if is_directory else search_path
            cache[hit.rel_path] = await _file_lines(operations, target)
        lines = cache[hit.rel_path]
        if lines is None or hit.line_number > len(lines):
            out.append(f"{hit.rel_path}:{hit.line_number}: (unable to read file)")
            continue
        first = max(1, hit.line_number - context)
        last = min(len(lines), hit.line_number + context)
        for number in range(first, last + 1):
            text, cut = truncate_line(lines[number - 1])
            lines_truncated = lines_truncated or cut
            if number == hit.line_number:
                out.append(f"{hit.rel_path}:{number}: {text}")
            else:
                out.append(f"{hit.rel_path}-{number}- {text}")
    listing = ListingNotices("\n".join(out))
    if result.limit_reached:
        listing.add_limit(limit, "matches", "matchLimitReached")
    listing.add_truncation()
    if lines_truncated:
        notice = f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        listing.add(notice, "linesTruncated", True)
    return listing.result()


GREP_TOOL: BuiltinTool[GrepOperations] = BuiltinTool.declared(
    GREP,
    operations=lambda options: (
        options.grep_operations
        or LocalGrepOperations(use_ripgrep=options.use_ripgrep, agent_directory=options.agent_dir)
    ),
    run=_grep,
)


def create_grep_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return GREP_TOOL.create(cwd, options)
