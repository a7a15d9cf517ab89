"""``--tools`` allowlists and ``--exclude-tools`` denylists, with Pi 1.4.0's rules for MCP tools.

An entry is an exact tool name or a pattern where ``*`` matches any characters. A tool the
denylist matches is not registered at all. With an allowlist, a tool it matches is registered and
(when declarable) active; an MCP tool (``mcp__…`` or a resource tool) it does not match stays
registered, for codemode and ``tool_search``, unless some entry starts with ``mcp__`` or the list
is empty: then the allowlist filters MCP tools like any other. Such an unmatched MCP tool may only
be active (declared) when ``tool_search`` can load it: its exposure is not ``direct`` and a
``tool_search`` tool is registered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# The MCP resource tools reach every server with resources, so they count as MCP tools.
MCP_RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})


def is_mcp_tool_name(name: str) -> bool:
    return name.startswith("mcp__") or name in MCP_RESOURCE_TOOLS


def name_matcher(entries: Sequence[str]) -> Callable[[str], bool]:
    """Whether a name equals an entry without ``*`` or matches one with it."""
    names = {entry for entry in entries if "*" not in entry}
    patterns = [
        re.compile("^" + ".*".join(re.escape(part) for part in entry.split("*")) + "$")
        for entry in entries
        if "*" in entry
    ]
    return lambda name: name in names or any(p.match(name) for p in patterns)


@dataclass(frozen=True)
class ToolFilter:
    allowed: tuple[str, ...] | None = None  # None: no allowlist
    excluded: tuple[str, ...] = ()
    _allow: Callable[[str], bool] | None = field(init=False, repr=False, compare=False, default=None)
    _exclude: Callable[[str], bool] = field(init=False, repr=False, compare=False, default=lambda _n: False)

    def __post_init__(self) -> None:
        if self.allowed is not None:
            object.__setattr__(self, "_allow", name_matcher(self.allowed))
        object.__setattr__(self, "_exclude", name_matcher(self.excluded))

    @property
    def has_allowlist(self) -> bool:
        return self._allow is not None

    @property
    def filters_mcp(self) -> bool:
        return self.allowed is not None and (not self.allowed or any(e.startswith("mcp__") for e in self.allowed))

    def matches(self, name: str) -> bool:
        """The allowlist names or matches the tool (always, without an allowlist)."""
        return self._allow is None or self._allow(name)

    def registers(self, name: str) -> bool:
        """Whether the tool is registered at all (callable, listed by ``getAllTools``)."""
        if self._exclude(name):
            return False
        return self.matches(name) or (not self.filters_mcp and is_mcp_tool_name(name))

    def activatable(self, name: str, exposure: str, has_tool_search: bool) -> bool:
        """Whether the tool may be active, which declares it to the model."""
        if self.matches(name) or not is_mcp_tool_name(name):
            return True
        return exposure != "direct" and has_tool_search


NO_FILTER = ToolFilter()

__all__ = ["MCP_RESOURCE_TOOLS", "NO_FILTER", "ToolFilter", "is_mcp_tool_name", "name_matcher"]
