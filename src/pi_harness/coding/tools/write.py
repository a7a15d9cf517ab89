"""The ``write`` tool: create or replace a whole file.

Parent directories are created; the content is written atomically (temp file + rename in the same
directory) and an existing file keeps its permission bits. The abort signal is checked between
the steps, never in the middle of one, so the per-file mutation lock is held until the current
file system operation is over. With ``tools.staleWriteCheck`` a file that changed on disk since
the model read it is refused (``file_freshness``).
"""

from __future__ import annotations

import os

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.coding.tools.declarations import WRITE
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.file_freshness import current_bytes
from pi_harness.coding.tools.mutation_queue import with_file_mutation_queue
from pi_harness.coding.tools.operations import LocalWriteOperations, WriteOperations
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.paths import resolve_to_cwd
from pi_harness.coding.tools.results import raise_if_aborted, text_result


async def _write(call: ToolCall[WriteOperations]) -> AgentToolResult:
    operations, signal = call.operations, call.signal
    shown = call.text("path")
    absolute = resolve_to_cwd(shown, call.cwd)
    data = call.text("content").encode("utf-8", "replace")

    options = call.options

    async def mutate() -> AgentToolResult:
        raise_if_aborted(signal)
        if options.stale_write_check and options.file_views.get(absolute) is not None:
            current = await _existing_content(operations, absolute)
            if current is not None:
                options.file_views.check(absolute, current, shown, "write")
        await operations.mkdir(os.path.dirname(absolute))
        raise_if_aborted(signal)
        await operations.write_file(absolute, data)
        if options.tracks_reads():
            options.file_views.saw(absolute, data)
        return text_result(f"Successfully wrote {len(data)} bytes to {shown}")

    return await with_file_mutation_queue(absolute, mutate)


async def _existing_content(operations: WriteOperations, path: str) -> bytes | None:
    """What the file holds now, where the operations can tell (``None``: no file, or unknown)."""
    if isinstance(operations, LocalWriteOperations):
        return await current_bytes(path)
    read_file = getattr(operations, "read_file", None)  # custom operations that can also read
    if read_file is None:
        return None
    try:
        data = await read_file(path)
    except FileNotFoundError:
        return None
    return data if isinstance(data, bytes) else None


WRITE_TOOL: BuiltinTool[WriteOperations] = BuiltinTool.declared(
    WRITE,
    operations=lambda options: options.write_operations or LocalWriteOperations(),
    run=_write,
)


def create_write_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return WRITE_TOOL.create(cwd, options)
