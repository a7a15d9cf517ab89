"""The ``find`` tool: paths matching a glob, relative to the search directory."""

from __future__ import annotations

import os
from typing import Any

from pi_harness.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools.operations import FindOperations, LocalFindOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.paths import resolve_to_cwd, to_posix
from pi_harness.coding.tools.results import ToolError, as_int, raise_if_aborted, text_result
from pi_harness.coding.tools.truncate import DEFAULT_MAX_BYTES, ListingNotices

DEFAULT_FIND_LIMIT = 1000
# What a custom glob implementation should skip (the local one honours .gitignore instead).
DEFAULT_FIND_IGNORE = ("**/node_modules/**", "**/.git/**")

FIND_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Glob the paths must match, for example '*.ts', '**/*.json' or 'src/**/*.spec.ts'.",
        },
        "path": {"type": "string", "description": "Directory to search in (defaults to the working directory)."},
        "limit": {
            "type": "number",
            "description": f"Maximum number of paths to return (default: {DEFAULT_FIND_LIMIT}).",
        },
    },
    "required": ["pattern"],
}

FIND_DESCRIPTION = (
    "Find files by glob pattern and return their paths relative to the search directory. Files ignored "
    f"by .gitignore are skipped. Output stops after {DEFAULT_FIND_LIMIT} results or "
    f"{DEFAULT_MAX_BYTES // 1024}KB, whichever comes first."
)


def _relative(path: str, search_path: str) -> str:
    is_dir = path.endswith("/")
    if os.path.isabs(path):
        path = os.path.relpath(path, search_path)
    path = to_posix(path).rstrip("/")
    return path + "/" if is_dir else path


def create_find_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    opts = options or ToolOptions()
    operations: FindOperations = opts.find_operations or LocalFindOperations(
        use_ripgrep=opts.use_ripgrep, agent_directory=opts.agent_dir
    )

    async def execute(
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        raise_if_aborted(signal)
        search_path = resolve_to_cwd(str(params.get("path") or "."), cwd)
        limit = max(1, as_int(params.get("limit"), DEFAULT_FIND_LIMIT))
        if not await operations.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        found = await operations.glob(
            str(params["pattern"]), search_path, ignore=DEFAULT_FIND_IGNORE, limit=limit, signal=signal
        )
        raise_if_aborted(signal)
        if not found:
            return text_result("No files found matching pattern")
        paths = [_relative(path, search_path) for path in found[:limit]]
        listing = ListingNotices("\n".join(paths))
        if len(paths) >= limit:
            notice = f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
            listing.add(notice, "resultLimitReached", limit)
        return text_result(listing.text(), listing.details or None)

    return AgentTool(
        name="find",
        label="find",
        description=FIND_DESCRIPTION,
        parameters=FIND_PARAMETERS,
        execute=execute,
        prompt_snippet="Find files whose paths match a glob pattern (respects .gitignore)",
    )
