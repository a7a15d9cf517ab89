"""What each extension registered, and the merged views the session and the UI read.

Registrations are kept per extension, in registration order; the merged views walk the
extensions in load order. The first registration of a tool, command or flag name wins and the
later ones are reported as conflicts (commands also lose to built-in command names). A tool of a
built-in extension (``builtin:<name>``) gives way, silently, to an extension's tool of that name,
as Pi's replaceable built-ins do (an extension's ``codemode`` replaces ``builtin:codemode``'s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pi_harness.coding.extensions.types import (
    CommandDefinition,
    EntryRenderer,
    FlagDefinition,
    MarkdownTransformer,
    MessageRenderer,
    ShortcutDefinition,
    ToolDefinition,
    ToolRendererResolver,
)

# A handler is written ``(event)`` or ``(event, ctx)`` and may be sync or async; the runner
# looks at its arity when it calls it, so its parameters are not fixed here.
EventHandler = Callable[..., object]


@dataclass
class Extension:
    path: str
    handlers: dict[str, list[EventHandler]] = field(default_factory=dict)
    tools: list[ToolDefinition] = field(default_factory=list)
    commands: list[CommandDefinition] = field(default_factory=list)
    shortcuts: list[ShortcutDefinition] = field(default_factory=list)
    flags: list[FlagDefinition] = field(default_factory=list)
    message_renderers: dict[str, MessageRenderer] = field(default_factory=dict)
    entry_renderers: dict[str, EntryRenderer] = field(default_factory=dict)
    markdown_transformers: list[MarkdownTransformer] = field(default_factory=list)
    tool_renderer_resolvers: list[ToolRendererResolver] = field(default_factory=list)
    # MCP servers this extension registered: name -> the mcp.json-style entry.
    mcp_servers: dict[str, dict[str, object]] = field(default_factory=dict)


def tool_definitions(extensions: Sequence[Extension]) -> list[tuple[ToolDefinition, str]]:
    """Extension tools with their extension's path; the first registration of a name wins."""
    seen: set[str] = set()
    out: list[tuple[ToolDefinition, str]] = []
    replaced = _replaced_builtin_tools(extensions)
    for ext in extensions:
        for tool in ext.tools:
            if _is_builtin(ext.path) and tool.name in replaced:
                continue
            if tool.name not in seen:
                seen.add(tool.name)
                out.append((tool, ext.path))
    return out


def _is_builtin(path: str) -> bool:
    return path.startswith("builtin:")


def _replaced_builtin_tools(extensions: Sequence[Extension]) -> set[str]:
    """Tool names that a non-built-in extension registers: the built-ins' tools of these names yield."""
    return {tool.name for ext in extensions if not _is_builtin(ext.path) for tool in ext.tools}


def tool_conflicts(extensions: Sequence[Extension]) -> list[str]:
    seen: dict[str, str] = {}
    messages = []
    replaced = _replaced_builtin_tools(extensions)
    for ext in extensions:
        for tool in ext.tools:
            if _is_builtin(ext.path) and tool.name in replaced:
                continue
            if tool.name in seen and seen[tool.name] != ext.path:
                messages.append(f'Tool "{tool.name}" conflicts with {seen[tool.name]}')
            seen.setdefault(tool.name, ext.path)
    return messages


def commands(
    extensions: Sequence[Extension], builtin_names: Iterable[str] = ()
) -> tuple[list[tuple[CommandDefinition, str]], list[str]]:
    """Commands in load order and the conflict diagnostics (duplicates and built-in names)."""
    builtins = set(builtin_names)
    owners: dict[str, str] = {}
    out: list[tuple[CommandDefinition, str]] = []
    diagnostics: list[str] = []
    for ext in extensions:
        for command in ext.commands:
            if command.name in builtins:
                diagnostics.append(
                    f"Extension command '{command.name}' from {ext.path} conflicts with built-in commands. Skipping."
                )
            elif command.name in owners:
                diagnostics.append(
                    f"Extension command '{command.name}' from {ext.path} conflicts with {owners[command.name]}. "
                    "Skipping."
                )
            else:
                owners[command.name] = ext.path
                out.append((command, ext.path))
    return out, diagnostics


def flags(extensions: Sequence[Extension]) -> tuple[list[tuple[FlagDefinition, str]], list[str]]:
    owners: dict[str, str] = {}
    out: list[tuple[FlagDefinition, str]] = []
    diagnostics: list[str] = []
    for ext in extensions:
        for flag in ext.flags:
            if flag.name in owners:
                diagnostics.append(f'Flag "--{flag.name}" conflicts with {ext.path}')
                continue
            owners[flag.name] = ext.path
            out.append((flag, ext.path))
    return out, diagnostics


def message_renderer(extensions: Sequence[Extension], custom_type: str) -> MessageRenderer | None:
    for ext in extensions:
        if custom_type in ext.message_renderers:
            return ext.message_renderers[custom_type]
    return None


def entry_renderer(extensions: Sequence[Extension], custom_type: str) -> EntryRenderer | None:
    """The first extension's renderer for custom entries of ``custom_type``."""
    for ext in extensions:
        if custom_type in ext.entry_renderers:
            return ext.entry_renderers[custom_type]
    return None


def markdown_transformers(extensions: Sequence[Extension]) -> list[MarkdownTransformer]:
    """Every transformer, in load order: each gets the previous one's Markdown."""
    return [t for ext in extensions for t in ext.markdown_transformers]


def tool_renderer_resolvers(extensions: Sequence[Extension]) -> list[ToolRendererResolver]:
    """Resolvers in load order; the first runs first and reaches the others through ``next``."""
    return [r for ext in extensions for r in ext.tool_renderer_resolvers]


def mcp_servers(extensions: Sequence[Extension]) -> list[dict[str, object]]:
    """``getMcpServers``: ``[{name, config, extensionPath}]`` in registration order."""
    return [
        {"name": name, "config": dict(config), "extensionPath": ext.path}
        for ext in extensions
        for name, config in ext.mcp_servers.items()
    ]
