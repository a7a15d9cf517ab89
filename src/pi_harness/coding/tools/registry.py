"""Tool factories by name and which built-ins are enabled."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from pi_harness.coding.tools.declarations import DECLARATIONS, powershell_available
from pi_harness.coding.tools.lazy import declare_tool

if TYPE_CHECKING:
    from pi_harness.agent.types import AgentTool
    from pi_harness.coding.tools.options import ToolOptions

ToolFactory = Callable[[str, "ToolOptions | None"], "AgentTool"]

BUILTIN_TOOL_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls", "powershell")
DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")
CODING_TOOL_NAMES = DEFAULT_TOOL_NAMES
READ_ONLY_TOOL_NAMES = ("read", "grep", "find", "ls")

# Declared at once, implemented on first call (``lazy.py``); ``create_<name>_tool`` of each
# tool module builds the body directly.
TOOL_FACTORIES: dict[str, ToolFactory] = {
    name: partial(declare_tool, DECLARATIONS[name]) for name in BUILTIN_TOOL_NAMES
}


def available_tool_names() -> list[str]:
    """Built-ins that can be created here (``powershell`` only where PowerShell exists)."""
    return [name for name in BUILTIN_TOOL_NAMES if name != "powershell" or powershell_available()]


def create_tool(name: str, cwd: str, options: ToolOptions | None = None) -> AgentTool:
    if name not in available_tool_names():
        raise ValueError(f'Unknown tool "{name}". Valid tools: {", ".join(available_tool_names())}')
    return TOOL_FACTORIES[name](cwd, options)


def create_tools(names: Iterable[str], cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    """The named built-ins in the given order; names that are not available here are skipped."""
    available = set(available_tool_names())
    return [TOOL_FACTORIES[name](cwd, options) for name in names if name in available]


def create_coding_tools(cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    """read, bash, edit, write."""
    return create_tools(CODING_TOOL_NAMES, cwd, options)


def create_read_only_tools(cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    """read, grep, find, ls."""
    return create_tools(READ_ONLY_TOOL_NAMES, cwd, options)


def create_all_tools(cwd: str, options: ToolOptions | None = None) -> list[AgentTool]:
    """Every built-in available on this machine."""
    return create_tools(BUILTIN_TOOL_NAMES, cwd, options)


@dataclass(frozen=True)
class ToolSelection:
    names: tuple[str, ...]
    warnings: tuple[str, ...]  # for stderr, one line each


def _entries(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


def resolve_tool_selection(
    tools: str | Sequence[str] | None = None,
    *,
    no_tools: bool = False,
    exclude_tools: str | Sequence[str] | None = None,
    default_tools: str | Sequence[str] | None = None,
    available: Sequence[str] | None = None,
) -> ToolSelection:
    """The active built-ins for ``--tools``/``--no-tools``/``--exclude-tools`` and ``defaultTools``.

    The base is the default set (``defaultTools`` or read, bash, edit, write; empty with
    ``--no-tools``) unless ``--tools`` has entries without a prefix, which then form the base
    exactly. ``+name``/``-name`` entries apply in order, then ``--exclude-tools`` removes. Unknown
    names produce ``Warning: Unknown tool "<name>". Valid tools: <list>`` and are ignored.
    """
    valid = list(available) if available is not None else available_tool_names()
    warnings: list[str] = []

    def known(name: str) -> bool:
        if name in valid:
            return True
        if "*" in name or name.startswith("mcp__"):
            # Patterns select through the session's allowlist; MCP tools register when their
            # server connects, after this selection.
            return False
        warning = f'Warning: Unknown tool "{name}". Valid tools: {", ".join(valid)}'
        if warning not in warnings:
            warnings.append(warning)
        return False

    def add(target: list[str], name: str) -> None:
        if known(name) and name not in target:
            target.append(name)

    entries = _entries(tools)
    plain = [entry for entry in entries if not entry.startswith(("+", "-"))]
    selected: list[str] = []
    if plain:
        for name in plain:
            add(selected, name)
    elif not no_tools:
        defaults = _entries(default_tools) if default_tools is not None else list(DEFAULT_TOOL_NAMES)
        for name in defaults:
            add(selected, name)
    for entry in entries:
        if entry.startswith("+"):
            add(selected, entry[1:].strip())
        elif entry.startswith("-"):
            name = entry[1:].strip()
            if known(name) and name in selected:
                selected.remove(name)
    for name in _entries(exclude_tools):
        if known(name) and name in selected:
            selected.remove(name)
    return ToolSelection(tuple(selected), tuple(warnings))
