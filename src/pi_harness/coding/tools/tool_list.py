"""Tool lists as Pi writes them: plain names, or ``+name``/``-name`` entries that change a base.

``--tools`` and the SDK's ``tools`` option take either kind, never both in one list; a list of
changes only applies to the default selection. The ``defaultTools`` setting may mix them: its
plain names replace the built-in defaults, then the changes apply in order. Importing this
module costs nothing (the command-line parser checks ``--tools`` with it).
"""

from __future__ import annotations

from collections.abc import Sequence


def is_tool_modifier(entry: str) -> bool:
    return entry.startswith(("+", "-"))


def tool_list_error(entries: Sequence[str]) -> str | None:
    """What is wrong with a ``--tools`` list (Pi's words), or ``None``: plain names and changes
    cannot be mixed, and a change names one tool exactly (no ``*`` pattern)."""
    changes = [entry for entry in entries if is_tool_modifier(entry)]
    if not changes:
        return None
    if len(changes) < len(entries):
        return "tool names cannot be mixed with +name or -name entries"
    pattern = next((entry for entry in changes if "*" in entry), None)
    if pattern is not None:
        return f"+name and -name entries take exact tool names, not patterns: {pattern}"
    return None


def apply_tool_modifiers(base: Sequence[str], entries: Sequence[str]) -> list[str]:
    """``base`` with each ``+name`` added (once) and each ``-name`` removed, in order; plain
    names and a bare ``+``/``-`` are ignored."""
    tools = list(base)
    for entry in entries:
        name = entry[1:]
        if not name:
            continue
        if entry.startswith("+") and name not in tools:
            tools.append(name)
        elif entry.startswith("-") and name in tools:
            tools.remove(name)
    return tools


def resolve_default_tools(entries: Sequence[str], defaults: Sequence[str]) -> list[str]:
    """The ``defaultTools`` setting: its plain names, or ``defaults`` when it holds only changes,
    then the changes. An empty list selects no tool."""
    plain = list(dict.fromkeys(entry for entry in entries if not is_tool_modifier(entry)))
    return apply_tool_modifiers(plain if plain or not entries else defaults, entries)


__all__ = ["apply_tool_modifiers", "is_tool_modifier", "resolve_default_tools", "tool_list_error"]
