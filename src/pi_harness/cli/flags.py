"""The table of built-in command-line flags and what each one sets.

One row per flag drives both the parser (``args.py``) and the option list of ``pi --help``
(``help.py``), so the two cannot drift apart. Importing this module costs nothing: ``pi --help``
and ``pi --version`` depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# How a flag takes its value:
#   switch   - no value (sets True)
#   value    - the next argument (last occurrence wins)
#   list     - the next argument, split on commas (last occurrence wins)
#   append   - the next argument, repeatable (every occurrence kept, in order)
#   choice   - the next argument, one of ``choices``
#   optional - the next argument only if it does not start with ``-`` or ``@`` (``--list-models``)
FlagKind = Literal["switch", "value", "list", "append", "choice", "optional"]

# Kept here rather than imported from ``pi_harness.ai`` so that parsing stays import-free; a test
# checks it against ``pi_harness.ai.types.THINKING_LEVELS``.
THINKING_LEVEL_NAMES: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
MODE_NAMES: tuple[str, ...] = ("text", "json", "rpc")
TUI_MODE_NAMES: tuple[str, ...] = ("regular", "fullscreen")


@dataclass(frozen=True)
class FlagSpec:
    long: str  # without the leading dashes
    dest: str  # attribute of ParsedArgs
    kind: FlagKind
    help: str
    short: str | None = None  # without the leading dash; may be several letters (``ne``)
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    const: bool = True  # what a switch stores (``--no-approve`` stores False into ``approve``)
    # Pi's own words for a value that is missing and for one not among ``choices`` (``{value}``);
    # without them the parser's general messages apply.
    missing: str | None = None
    invalid: str | None = None
    # The next argument is not taken when it starts with ``-`` (it is parsed as a flag and the
    # value is missing): Pi's rule for ``--mode``, ``--tui-mode`` and ``--use-theme``.
    refuses_dash: bool = False

    @property
    def takes_value(self) -> bool:
        return self.kind != "switch"

    def usage(self) -> str:
        """``--extension, -e <path>`` as shown in the help text."""
        names = f"--{self.long}" + (f", -{self.short}" if self.short else "")
        if self.kind == "optional":
            return f"{names} [{self.metavar or 'value'}]"
        if self.takes_value:
            return f"{names} <{self.metavar or 'value'}>"
        return names


FLAGS: tuple[FlagSpec, ...] = (
    # -- general -------------------------------------------------------------------------------
    FlagSpec("help", "help", "switch", "Show this help and exit", short="h"),
    FlagSpec("version", "version", "switch", "Show the version number and exit", short="v"),
    FlagSpec(
        "mode",
        "mode",
        "choice",
        "Output mode: text (default), json or rpc",
        metavar="mode",
        choices=MODE_NAMES,
        missing="--mode requires text, json, or rpc",
        invalid='Invalid mode "{value}". Valid values: text, json, rpc',
        refuses_dash=True,
    ),
    FlagSpec("print", "print", "switch", "Non-interactive: run the prompts, print the final answer, exit", short="p"),
    FlagSpec("verbose", "verbose", "switch", "Verbose startup (overrides the quietStartup setting)"),
    FlagSpec("offline", "offline", "switch", "No network activity at startup (same as PI_OFFLINE=1)"),
    # -- sessions ------------------------------------------------------------------------------
    FlagSpec("continue", "continue_session", "switch", "Continue the most recent session of this project", short="c"),
    FlagSpec("resume", "resume", "switch", "Pick a session to resume", short="r"),
    FlagSpec("session", "session", "value", "Open a session file or a session id (prefix)", metavar="path|id"),
    FlagSpec("fork", "fork", "value", "Fork a session (file or id) into a new session here", metavar="path|id"),
    FlagSpec(
        "session-id", "session_id", "value", "Open this project's session with that id, or create it", metavar="id"
    ),
    FlagSpec("session-dir", "session_dir", "value", "Directory for session storage and lookup", metavar="dir"),
    FlagSpec("no-session", "no_session", "switch", "Keep the session in memory only (nothing is saved)"),
    FlagSpec(
        "name",
        "name",
        "value",
        "Set the session's display name",
        short="n",
        metavar="name",
        missing="--name requires a value",
    ),
    FlagSpec("export", "export", "value", "Export a session file to HTML and exit ([out] as message)", metavar="file"),
    # -- models --------------------------------------------------------------------------------
    FlagSpec("provider", "provider", "value", "Restrict --model lookup to this provider", metavar="name"),
    FlagSpec(
        "model", "model", "value", 'Model id or pattern ("provider/id", optional ":<thinking>")', metavar="pattern"
    ),
    FlagSpec("api-key", "api_key", "value", "API key for the selected model's provider (not saved)", metavar="key"),
    FlagSpec(
        "models", "models", "list", "Comma-separated model patterns for cycling (globs, fuzzy)", metavar="patterns"
    ),
    FlagSpec(
        "thinking",
        "thinking",
        "value",
        "Thinking level: " + ", ".join(THINKING_LEVEL_NAMES),
        metavar="level",
    ),
    FlagSpec(
        "list-models", "list_models", "optional", "List available models (optional fuzzy search)", metavar="search"
    ),
    # -- prompt --------------------------------------------------------------------------------
    FlagSpec(
        "system-prompt", "system_prompt", "value", "Replace the default system prompt (text or file)", metavar="text"
    ),
    FlagSpec(
        "append-system-prompt",
        "append_system_prompt",
        "append",
        "Append text or file contents to the system prompt (repeatable)",
        metavar="text",
    ),
    FlagSpec("no-context-files", "no_context_files", "switch", "Do not load AGENTS.md / CLAUDE.md files", short="nc"),
    # -- tools ---------------------------------------------------------------------------------
    FlagSpec(
        "tools",
        "tools",
        "list",
        "Comma-separated tool allowlist (names or * patterns; keeps MCP tools, undeclared, "
        "unless an entry starts with mcp__); +name / -name adjust the default set",
        short="t",
        metavar="tools",
    ),
    FlagSpec(
        "exclude-tools",
        "exclude_tools",
        "list",
        "Comma-separated tool names or * patterns to unregister, MCP tools included",
        short="xt",
        metavar="tools",
    ),
    FlagSpec("no-tools", "no_tools", "switch", "Disable all built-in, extension and custom tools", short="nt"),
    FlagSpec(
        "no-builtin-tools", "no_builtin_tools", "switch", "Disable the built-in tools, keep the others", short="nbt"
    ),
    # -- resources -----------------------------------------------------------------------------
    FlagSpec("extension", "extensions", "append", "Load an extension (repeatable)", short="e", metavar="path"),
    FlagSpec("no-extensions", "no_extensions", "switch", "No extension discovery (-e still works)", short="ne"),
    FlagSpec("no-mcp", "no_mcp", "switch", "Disable the built-in MCP extension"),
    FlagSpec("skill", "skills", "append", "Load a skill file or directory (repeatable)", metavar="path"),
    FlagSpec("no-skills", "no_skills", "switch", "No skill discovery", short="ns"),
    FlagSpec(
        "prompt-template",
        "prompt_templates",
        "append",
        "Load a prompt template file or directory (repeatable)",
        metavar="path",
    ),
    FlagSpec("no-prompt-templates", "no_prompt_templates", "switch", "No prompt template discovery", short="np"),
    FlagSpec("theme", "themes", "append", "Load a theme file or directory (repeatable)", metavar="path"),
    FlagSpec("no-themes", "no_themes", "switch", "No theme discovery"),
    FlagSpec(
        "use-theme",
        "use_theme",
        "value",
        "Initial theme of the interactive mode",
        metavar="name",
        missing="--use-theme requires a theme name",
        refuses_dash=True,
    ),
    FlagSpec(
        "tui-mode",
        "tui_mode",
        "choice",
        "Terminal mode: regular or fullscreen",
        metavar="mode",
        choices=TUI_MODE_NAMES,
        missing="--tui-mode requires regular or fullscreen",
        invalid='Invalid TUI mode "{value}". Valid values: regular, fullscreen',
        refuses_dash=True,
    ),
    # -- project trust -------------------------------------------------------------------------
    FlagSpec("approve", "approve", "switch", "Trust this project's .pi/ configuration for this run", short="a"),
    FlagSpec(
        "no-approve", "approve", "switch", "Ignore trust-gated project resources for this run", short="na", const=False
    ),
)

FLAGS_BY_LONG: dict[str, FlagSpec] = {flag.long: flag for flag in FLAGS}
FLAGS_BY_SHORT: dict[str, FlagSpec] = {flag.short: flag for flag in FLAGS if flag.short}
