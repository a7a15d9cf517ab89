"""The text of ``pi --help``; the option list is generated from the flag table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from pi_harness.cli.flags import FLAGS

PROGRAM = "pi"
_OPTION_COLUMN = 34


class HelpFlag(Protocol):
    """An extension flag as shown in the help (``FlagDefinition`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def description(self) -> str | None: ...


_COMMANDS = (
    ("auth check|print-api-key|print-bearer-token", "Check or print credentials (--provider, --model, --json)"),
    ("auth login|logout <provider>", "Sign in (browser or device code; openrouter) or remove a stored credential"),
    ("mcp add|remove|list", "Add or remove MCP servers in mcp.json, or check them and their tools"),
    ("config", "Show the effective settings and where each value comes from"),
    ("config get <key>", "Print one setting"),
    ("config set <key> <value> [--project]", "Write one setting (value parsed as JSON when possible)"),
    ("config unset <key> [--project]", "Remove one setting"),
    ("<command> --help", "Help for a command"),
)

_EXAMPLES = (
    ("Interactive session", f"{PROGRAM}"),
    ("Start with a prompt", f'{PROGRAM} "List the Python files in src/"'),
    ("Attach files to the first message", f'{PROGRAM} @notes.md @screenshot.png "What is wrong here?"'),
    ("One-shot answer for scripts", f'{PROGRAM} -p "Summarise README.md"'),
    ("Pipe input in", f'git diff | {PROGRAM} -p "Review this change"'),
    ("Structured events", f'{PROGRAM} --mode json "Run the tests"'),
    ("Continue the last session", f'{PROGRAM} -c "What did we decide?"'),
    ("Choose a model and thinking level", f"{PROGRAM} --model openai/gpt-5:high"),
    ("Read-only tools", f'{PROGRAM} --tools read,grep,find,ls -p "Explain src/"'),
    ("A message that starts with a dash", f"{PROGRAM} -p -- --help is what I want explained"),
)

_ENVIRONMENT = (
    ("PI_CODING_AGENT_DIR", "Agent directory (default: ~/.pi/agent)"),
    ("PI_CODING_AGENT_SESSION_DIR", "Session directory (below --session-dir)"),
    ("PI_OFFLINE", "1/true/yes: no network activity at startup"),
    ("PI_SKIP_VERSION_CHECK", "Accepted for Pi compatibility (pi-harness makes no update check)"),
    ("PI_CACHE_RETENTION", "long: extended prompt-cache retention where supported"),
    ("PI_TIMING", "1: print startup phase timings on stderr"),
    ("PI_OAUTH_CALLBACK_HOST", "Address of the sign-in callback server (default 127.0.0.1)"),
    ("OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ...", "Provider API keys"),
)

_TOOLS = (
    ("read", "Read files and images"),
    ("bash", "Run shell commands"),
    ("edit", "Replace exact text in a file"),
    ("write", "Create or overwrite files"),
    ("grep", "Search file contents (off by default)"),
    ("find", "Find files by glob (off by default)"),
    ("ls", "List directories (off by default)"),
)


def _rows(rows: Iterable[tuple[str, str]], width: int = _OPTION_COLUMN) -> list[str]:
    lines: list[str] = []
    for left, right in rows:
        if len(left) + 2 > width:
            lines.append(f"  {left}")
            lines.append(" " * (width + 2) + right)
        else:
            lines.append(f"  {left.ljust(width)}{right}")
    return lines


def format_help(version: str | None = None, extension_flags: Iterable[HelpFlag] = ()) -> str:
    """The full help text; ``extension_flags`` adds a section for flags registered by extensions."""
    title = f"{PROGRAM} - a minimal, extensible coding agent"
    if version:
        title += f" (pi-harness {version})"
    lines = [
        title,
        "",
        "Usage:",
        f"  {PROGRAM} [options] [--] [@files...] [messages...]",
        f"  {PROGRAM} <command> [args...]",
        "",
        "Commands:",
        *_rows((f"{PROGRAM} {cmd}", text) for cmd, text in _COMMANDS),
        "",
        "Options:",
        *_rows((flag.usage(), flag.help) for flag in FLAGS),
    ]
    ext_rows = [
        (f"--{flag.name}" + (" <value>" if flag.type == "string" else ""), flag.description or "")
        for flag in extension_flags
    ]
    if ext_rows:
        lines += ["", "Extension flags:", *_rows(ext_rows)]
    else:
        lines += ["", "Extensions can register more flags (for example --plan); they are listed here once loaded."]
    lines += ["", "Examples:"]
    for caption, command in _EXAMPLES:
        lines += [f"  # {caption}", f"  {command}", ""]
    lines += ["Environment variables:", *_rows(_ENVIRONMENT, width=30), ""]
    lines += ["Tools (default: read, bash, edit, write):", *_rows(_TOOLS, width=8)]
    return "\n".join(lines) + "\n"
