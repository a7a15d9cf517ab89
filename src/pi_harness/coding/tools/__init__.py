"""Built-in tools of the coding agent: read, bash, edit, write, grep, find, ls and powershell,
their factories, the enabling rules and the pluggable operations."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.coding.tools.bash import create_bash_tool
    from pi_harness.coding.tools.bash_exec import ExecAborted, ExecResult, ExecTimedOut
    from pi_harness.coding.tools.declarations import (
        BASH_PARAMETERS,
        EDIT_PARAMETERS,
        FIND_PARAMETERS,
        GREP_PARAMETERS,
        LS_PARAMETERS,
        READ_PARAMETERS,
        WRITE_PARAMETERS,
        powershell_available,
    )
    from pi_harness.coding.tools.edit import (
        compute_edit_diff,
        create_edit_tool,
        prepare_edit_arguments,
    )
    from pi_harness.coding.tools.edit_diff import EditDiff, generate_diff
    from pi_harness.coding.tools.edit_match import EditSpec
    from pi_harness.coding.tools.find import create_find_tool
    from pi_harness.coding.tools.grep import create_grep_tool
    from pi_harness.coding.tools.images import IMAGE_BLOCKED_TEXT, detect_image_mime_type, fit_image
    from pi_harness.coding.tools.ls import create_ls_tool
    from pi_harness.coding.tools.mutation_queue import with_file_mutation_queue
    from pi_harness.coding.tools.operations import (
        BashOperations,
        ChunkedReadOperations,
        EditOperations,
        FileStat,
        FindOperations,
        GrepOperations,
        LocalBashOperations,
        LocalEditOperations,
        LocalFindOperations,
        LocalGrepOperations,
        LocalLsOperations,
        LocalReadOperations,
        LocalWriteOperations,
        LsOperations,
        ReadOperations,
        WriteOperations,
    )
    from pi_harness.coding.tools.options import SpawnContext, SpawnHook, ToolOptions
    from pi_harness.coding.tools.orphans import OrphanReaper, enable_child_subreaper
    from pi_harness.coding.tools.paths import expand_path, resolve_read_path, resolve_to_cwd
    from pi_harness.coding.tools.powershell import create_powershell_tool
    from pi_harness.coding.tools.process import (
        kill_all_tracked_processes,
        terminate_process_group,
        track_process_group,
        tracked_process_groups,
        untrack_process_group,
    )
    from pi_harness.coding.tools.read import create_read_tool
    from pi_harness.coding.tools.registry import (
        BUILTIN_TOOL_NAMES,
        CODING_TOOL_NAMES,
        DEFAULT_TOOL_NAMES,
        READ_ONLY_TOOL_NAMES,
        ToolSelection,
        available_tool_names,
        create_all_tools,
        create_coding_tools,
        create_read_only_tools,
        create_tool,
        create_tools,
        resolve_tool_selection,
    )
    from pi_harness.coding.tools.results import ToolError
    from pi_harness.coding.tools.ripgrep import find_ripgrep
    from pi_harness.coding.tools.search_types import GrepHit, GrepQuery, GrepSearchResult
    from pi_harness.coding.tools.shell import SESSION_ENV_NAMES, build_command_env, resolve_shell
    from pi_harness.coding.tools.truncate import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_LINES,
        GREP_MAX_LINE_LENGTH,
        TruncationResult,
        format_size,
        truncate_head,
        truncate_line,
        truncate_tail,
    )
    from pi_harness.coding.tools.user_bash import BashExecutionResult, execute_bash
    from pi_harness.coding.tools.write import create_write_tool

_EXPORTS: dict[str, str] = {
    "BASH_PARAMETERS": "pi_harness.coding.tools.declarations",
    "create_bash_tool": "pi_harness.coding.tools.bash",
    "ExecAborted": "pi_harness.coding.tools.bash_exec",
    "ExecResult": "pi_harness.coding.tools.bash_exec",
    "ExecTimedOut": "pi_harness.coding.tools.bash_exec",
    "EDIT_PARAMETERS": "pi_harness.coding.tools.declarations",
    "compute_edit_diff": "pi_harness.coding.tools.edit",
    "create_edit_tool": "pi_harness.coding.tools.edit",
    "prepare_edit_arguments": "pi_harness.coding.tools.edit",
    "EditDiff": "pi_harness.coding.tools.edit_diff",
    "generate_diff": "pi_harness.coding.tools.edit_diff",
    "EditSpec": "pi_harness.coding.tools.edit_match",
    "FIND_PARAMETERS": "pi_harness.coding.tools.declarations",
    "create_find_tool": "pi_harness.coding.tools.find",
    "GREP_PARAMETERS": "pi_harness.coding.tools.declarations",
    "create_grep_tool": "pi_harness.coding.tools.grep",
    "IMAGE_BLOCKED_TEXT": "pi_harness.coding.tools.images",
    "detect_image_mime_type": "pi_harness.coding.tools.images",
    "fit_image": "pi_harness.coding.tools.images",
    "LS_PARAMETERS": "pi_harness.coding.tools.declarations",
    "create_ls_tool": "pi_harness.coding.tools.ls",
    "with_file_mutation_queue": "pi_harness.coding.tools.mutation_queue",
    "BashOperations": "pi_harness.coding.tools.operations",
    "ChunkedReadOperations": "pi_harness.coding.tools.operations",
    "EditOperations": "pi_harness.coding.tools.operations",
    "FileStat": "pi_harness.coding.tools.operations",
    "FindOperations": "pi_harness.coding.tools.operations",
    "GrepOperations": "pi_harness.coding.tools.operations",
    "LocalBashOperations": "pi_harness.coding.tools.operations",
    "LocalEditOperations": "pi_harness.coding.tools.operations",
    "LocalFindOperations": "pi_harness.coding.tools.operations",
    "LocalGrepOperations": "pi_harness.coding.tools.operations",
    "LocalLsOperations": "pi_harness.coding.tools.operations",
    "LocalReadOperations": "pi_harness.coding.tools.operations",
    "LocalWriteOperations": "pi_harness.coding.tools.operations",
    "LsOperations": "pi_harness.coding.tools.operations",
    "ReadOperations": "pi_harness.coding.tools.operations",
    "WriteOperations": "pi_harness.coding.tools.operations",
    "SpawnContext": "pi_harness.coding.tools.options",
    "SpawnHook": "pi_harness.coding.tools.options",
    "ToolOptions": "pi_harness.coding.tools.options",
    "OrphanReaper": "pi_harness.coding.tools.orphans",
    "enable_child_subreaper": "pi_harness.coding.tools.orphans",
    "expand_path": "pi_harness.coding.tools.paths",
    "resolve_read_path": "pi_harness.coding.tools.paths",
    "resolve_to_cwd": "pi_harness.coding.tools.paths",
    "create_powershell_tool": "pi_harness.coding.tools.powershell",
    "powershell_available": "pi_harness.coding.tools.declarations",
    "kill_all_tracked_processes": "pi_harness.coding.tools.process",
    "terminate_process_group": "pi_harness.coding.tools.process",
    "track_process_group": "pi_harness.coding.tools.process",
    "tracked_process_groups": "pi_harness.coding.tools.process",
    "untrack_process_group": "pi_harness.coding.tools.process",
    "READ_PARAMETERS": "pi_harness.coding.tools.declarations",
    "create_read_tool": "pi_harness.coding.tools.read",
    "BUILTIN_TOOL_NAMES": "pi_harness.coding.tools.registry",
    "CODING_TOOL_NAMES": "pi_harness.coding.tools.registry",
    "DEFAULT_TOOL_NAMES": "pi_harness.coding.tools.registry",
    "READ_ONLY_TOOL_NAMES": "pi_harness.coding.tools.registry",
    "ToolSelection": "pi_harness.coding.tools.registry",
    "available_tool_names": "pi_harness.coding.tools.registry",
    "create_all_tools": "pi_harness.coding.tools.registry",
    "create_coding_tools": "pi_harness.coding.tools.registry",
    "create_read_only_tools": "pi_harness.coding.tools.registry",
    "create_tool": "pi_harness.coding.tools.registry",
    "create_tools": "pi_harness.coding.tools.registry",
    "resolve_tool_selection": "pi_harness.coding.tools.registry",
    "ToolError": "pi_harness.coding.tools.results",
    "find_ripgrep": "pi_harness.coding.tools.ripgrep",
    "GrepHit": "pi_harness.coding.tools.search_types",
    "GrepQuery": "pi_harness.coding.tools.search_types",
    "GrepSearchResult": "pi_harness.coding.tools.search_types",
    "SESSION_ENV_NAMES": "pi_harness.coding.tools.shell",
    "build_command_env": "pi_harness.coding.tools.shell",
    "resolve_shell": "pi_harness.coding.tools.shell",
    "DEFAULT_MAX_BYTES": "pi_harness.coding.tools.truncate",
    "DEFAULT_MAX_LINES": "pi_harness.coding.tools.truncate",
    "GREP_MAX_LINE_LENGTH": "pi_harness.coding.tools.truncate",
    "TruncationResult": "pi_harness.coding.tools.truncate",
    "format_size": "pi_harness.coding.tools.truncate",
    "truncate_head": "pi_harness.coding.tools.truncate",
    "truncate_line": "pi_harness.coding.tools.truncate",
    "truncate_tail": "pi_harness.coding.tools.truncate",
    "BashExecutionResult": "pi_harness.coding.tools.user_bash",
    "execute_bash": "pi_harness.coding.tools.user_bash",
    "WRITE_PARAMETERS": "pi_harness.coding.tools.declarations",
    "create_write_tool": "pi_harness.coding.tools.write",
}

__all__ = [
    "BASH_PARAMETERS",
    "BUILTIN_TOOL_NAMES",
    "CODING_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "EDIT_PARAMETERS",
    "FIND_PARAMETERS",
    "GREP_MAX_LINE_LENGTH",
    "GREP_PARAMETERS",
    "IMAGE_BLOCKED_TEXT",
    "LS_PARAMETERS",
    "READ_ONLY_TOOL_NAMES",
    "READ_PARAMETERS",
    "SESSION_ENV_NAMES",
    "WRITE_PARAMETERS",
    "BashExecutionResult",
    "BashOperations",
    "ChunkedReadOperations",
    "EditDiff",
    "EditOperations",
    "EditSpec",
    "ExecAborted",
    "ExecResult",
    "ExecTimedOut",
    "FileStat",
    "FindOperations",
    "GrepHit",
    "GrepOperations",
    "GrepQuery",
    "GrepSearchResult",
    "LocalBashOperations",
    "LocalEditOperations",
    "LocalFindOperations",
    "LocalGrepOperations",
    "LocalLsOperations",
    "LocalReadOperations",
    "LocalWriteOperations",
    "LsOperations",
    "OrphanReaper",
    "ReadOperations",
    "SpawnContext",
    "SpawnHook",
    "ToolError",
    "ToolOptions",
    "ToolSelection",
    "TruncationResult",
    "WriteOperations",
    "available_tool_names",
    "build_command_env",
    "compute_edit_diff",
    "create_all_tools",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_powershell_tool",
    "create_read_only_tools",
    "create_read_tool",
    "create_tool",
    "create_tools",
    "create_write_tool",
    "detect_image_mime_type",
    "enable_child_subreaper",
    "execute_bash",
    "expand_path",
    "find_ripgrep",
    "fit_image",
    "format_size",
    "generate_diff",
    "kill_all_tracked_processes",
    "powershell_available",
    "prepare_edit_arguments",
    "resolve_read_path",
    "resolve_shell",
    "resolve_to_cwd",
    "resolve_tool_selection",
    "terminate_process_group",
    "track_process_group",
    "tracked_process_groups",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "untrack_process_group",
    "with_file_mutation_queue",
]


def __getattr__(name: str) -> object:
    # The names are imported on first use (PEP 562), so importing one part of the package (or the
    # package for one name) does not load the rest of it.
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
