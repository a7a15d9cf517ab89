"""Built-in tools of the coding agent: read, bash, edit, write, grep, find, ls and powershell,
their factories, the enabling rules and the pluggable operations."""

from pi_harness.coding.tools.bash import BASH_PARAMETERS, create_bash_tool
from pi_harness.coding.tools.bash_exec import ExecAborted, ExecResult, ExecTimedOut
from pi_harness.coding.tools.edit import EDIT_PARAMETERS, compute_edit_diff, create_edit_tool, prepare_edit_arguments
from pi_harness.coding.tools.edit_diff import EditDiff, generate_diff
from pi_harness.coding.tools.edit_match import EditSpec
from pi_harness.coding.tools.find import FIND_PARAMETERS, create_find_tool
from pi_harness.coding.tools.grep import GREP_PARAMETERS, create_grep_tool
from pi_harness.coding.tools.images import IMAGE_BLOCKED_TEXT, detect_image_mime_type, fit_image
from pi_harness.coding.tools.ls import LS_PARAMETERS, create_ls_tool
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
from pi_harness.coding.tools.powershell import create_powershell_tool, powershell_available
from pi_harness.coding.tools.process import (
    kill_all_tracked_processes,
    terminate_process_group,
    track_process_group,
    tracked_process_groups,
    untrack_process_group,
)
from pi_harness.coding.tools.read import READ_PARAMETERS, create_read_tool
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
from pi_harness.coding.tools.write import WRITE_PARAMETERS, create_write_tool

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
