"""What each built-in tool declares to the model, apart from its body.

The texts and JSON Schemas live here so that a session can declare its tools without importing
their implementations (the bodies, their operations and the process machinery load on a tool's
first call, see ``registry.create_tool``). Each tool module builds its ``BuiltinTool`` from the
``ToolDeclarationSpec`` here, so there is one source for what the model is told.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass

from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.session_store.system_messages import ConstrainedSampling
from pi_harness.coding.tools.declared import PREFER_JSON_SCHEMA
from pi_harness.coding.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, GREP_MAX_LINE_LENGTH

DEFAULT_FIND_LIMIT = 1000
DEFAULT_GREP_LIMIT = 100
DEFAULT_LS_LIMIT = 500

BASH_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command line to execute."},
        "timeout": {
            "type": "number",
            "description": "Optional limit in seconds after which the command is killed (no limit by default).",
        },
    },
    "required": ["command"],
}


BASH_DESCRIPTION = (
    "Execute a bash command in the current working directory and return its combined stdout and stderr. "
    f"Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are returned, "
    "whichever limit is hit first; when output is cut, the complete output is saved to a temporary file "
    "whose path is given. You may pass a timeout in seconds."
)


_EDIT_ITEM: JsonObject = {
    "type": "object",
    "properties": {
        "oldText": {
            "type": "string",
            "description": "Exact text to replace. It must occur exactly once in the original file and must not "
            "share any part with the oldText of another entry in this call.",
        },
        "newText": {"type": "string", "description": "Text to put in place of oldText."},
    },
    "required": ["oldText", "newText"],
}


EDIT_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "Path of the file to change, relative to the working directory or absolute.",
        },
        "edits": {
            # No minItems, as in Pi: an empty list is refused when the tool runs, with a clear error.
            "type": "array",
            "items": _EDIT_ITEM,
            "description": "One or more replacements. Every entry is located in the original file, not in the "
            "result of the entries before it. Entries must not overlap or nest; put changes to the same block or "
            "to neighbouring lines into one entry.",
        },
    },
    "required": ["path", "edits"],
}


EDIT_DESCRIPTION = (
    "Change a file by replacing exact pieces of text. Each edits[].oldText must identify one unique "
    "region of the original file, and the regions of one call must not overlap. Combine changes to the "
    "same block or to nearby lines into a single entry instead of overlapping entries, and do not pad "
    "oldText with long unchanged stretches just to connect distant changes."
)


FIND_PARAMETERS: JsonObject = {
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


GREP_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "What to look for: a regular expression, or plain text with literal=true.",
        },
        "path": {"type": "string", "description": "Directory or file to search (defaults to the working directory)."},
        "glob": {
            "type": "string",
            "description": "Only search files whose path matches this glob, for example '*.ts' or '**/*.spec.ts'.",
        },
        "ignoreCase": {"type": "boolean", "description": "Match without regard to letter case (default: false)."},
        "literal": {
            "type": "boolean",
            "description": "Treat the pattern as plain text rather than a regular expression (default: false).",
        },
        "context": {
            "type": "number",
            "description": "Number of lines to show before and after each matching line (default: 0).",
        },
        "limit": {
            "type": "number",
            "description": f"Maximum number of matching lines to return (default: {DEFAULT_GREP_LIMIT}).",
        },
    },
    "required": ["pattern"],
}


GREP_DESCRIPTION = (
    "Search the contents of files for a pattern and return the matching lines with their file paths and "
    "line numbers. Files ignored by .gitignore are skipped. Output stops after "
    f"{DEFAULT_GREP_LIMIT} matches or {DEFAULT_MAX_BYTES // 1024}KB, whichever comes first, and lines longer "
    f"than {GREP_MAX_LINE_LENGTH} characters are shortened."
)


LS_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Directory to list (defaults to the working directory)."},
        "limit": {
            "type": "number",
            "description": f"Maximum number of entries to return (default: {DEFAULT_LS_LIMIT}).",
        },
    },
    "required": [],
}


LS_DESCRIPTION = (
    "List the entries of a directory in alphabetical order. Directories end with '/', and dotfiles are "
    f"included. Output stops after {DEFAULT_LS_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB, whichever "
    "comes first."
)


READ_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "Path of the file to read, relative to the working directory or absolute.",
        },
        "offset": {"type": "number", "description": "Line number to start reading from (1 = first line)."},
        "limit": {"type": "number", "description": "Maximum number of lines to return."},
    },
    "required": ["path"],
}


READ_DESCRIPTION = (
    "Show the contents of a file. Text files come back as text; JPEG, PNG, GIF and WebP images come back "
    f"as image attachments. Text is cut after {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, "
    "whichever is reached first. For large files pass offset and limit, and when you need the whole "
    "file keep reading with the offset given in the output until you reach the end."
)


WRITE_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "Path of the file to write, relative to the working directory or absolute.",
        },
        "content": {"type": "string", "description": "The complete new content of the file."},
    },
    "required": ["path", "content"],
}


WRITE_DESCRIPTION = (
    "Write content to a file: the file is created if it does not exist and replaced completely if it does. "
    "Missing parent directories are created."
)


POWERSHELL_DESCRIPTION = (
    "Execute a PowerShell command in the current working directory and return its combined output. "
    f"Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are returned, "
    "whichever limit is hit first; when output is cut, the complete output is saved to a temporary file "
    "whose path is given. You may pass a timeout in seconds."
)


@dataclass(frozen=True)
class ToolDeclarationSpec:
    """A built-in tool as the model sees it, and where its body is."""

    name: str
    description: str
    parameters: JsonObject
    prompt_snippet: str
    module: str  # ``pi_harness.coding.tools.<module>`` holds ``create_<name>_tool``
    constrained_sampling: ConstrainedSampling | None = None
    # The body rewrites raw arguments before validation (``prepare_arguments``).
    prepares_arguments: bool = False


READ = ToolDeclarationSpec(
    "read", READ_DESCRIPTION, READ_PARAMETERS, "Read what a file contains", "read", PREFER_JSON_SCHEMA
)
BASH = ToolDeclarationSpec(
    "bash",
    BASH_DESCRIPTION,
    BASH_PARAMETERS,
    "Run shell commands in bash (ls, grep, find, git and the like)",
    "bash",
    PREFER_JSON_SCHEMA,
)
EDIT = ToolDeclarationSpec(
    "edit",
    EDIT_DESCRIPTION,
    EDIT_PARAMETERS,
    "Make targeted changes by exact text replacement (several separate changes per call allowed)",
    "edit",
    PREFER_JSON_SCHEMA,
    prepares_arguments=True,
)
WRITE = ToolDeclarationSpec(
    "write",
    WRITE_DESCRIPTION,
    WRITE_PARAMETERS,
    "Create a new file or replace a file's whole content",
    "write",
    PREFER_JSON_SCHEMA,
)
GREP = ToolDeclarationSpec(
    "grep",
    GREP_DESCRIPTION,
    GREP_PARAMETERS,
    "Search file contents for a pattern (respects .gitignore)",
    "grep",
)
FIND = ToolDeclarationSpec(
    "find",
    FIND_DESCRIPTION,
    FIND_PARAMETERS,
    "Find files whose paths match a glob pattern (respects .gitignore)",
    "find",
)
LS = ToolDeclarationSpec("ls", LS_DESCRIPTION, LS_PARAMETERS, "List the entries of a directory", "ls")
POWERSHELL = ToolDeclarationSpec(
    "powershell", POWERSHELL_DESCRIPTION, BASH_PARAMETERS, "Run PowerShell commands", "powershell"
)

DECLARATIONS: dict[str, ToolDeclarationSpec] = {
    spec.name: spec for spec in (READ, BASH, EDIT, WRITE, GREP, FIND, LS, POWERSHELL)
}


def find_powershell() -> str | None:
    found = shutil.which("pwsh")
    if found is None and sys.platform == "win32":  # pragma: no cover - Windows only
        found = shutil.which("powershell.exe")
    return found


def powershell_available() -> bool:
    """The ``powershell`` tool exists only where a PowerShell executable is found."""
    return find_powershell() is not None
