"""Tools whose declaration says how providers may constrain the sampling of their arguments.

Pi declares its built-in tools with ``constrainedSampling: {"type": "json_schema", "strict":
"prefer"}`` (and extension tools may declare their own); the hint is part of the declaration the
transcript records in ``toolsAdded``. Declarations are compared whole, so a tool declared with
the hint by one program and without it by the other would be declared again on every switch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from pi_harness.agent.types import AgentTool
from pi_harness.coding.session_store.system_messages import ConstrainedSampling, JsonSchemaSampling, ToolDeclaration

# What Pi's read, bash, edit and write tools declare.
PREFER_JSON_SCHEMA: JsonSchemaSampling = {"type": "json_schema", "strict": "prefer"}


@dataclass
class DeclaredTool(AgentTool):
    """An ``AgentTool`` with a constrained-sampling hint in its declaration (``None``: no hint)."""

    constrained_sampling: ConstrainedSampling | None = None

    def to_tool(self) -> ToolDeclaration:
        declaration: ToolDeclaration = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.constrained_sampling is not None:
            # A copy: declarations end up in session entries, which are never shared.
            declaration["constrainedSampling"] = cast(ConstrainedSampling, _copy(self.constrained_sampling))
        return declaration


def _copy(value: object) -> object:
    """A copy of JSON-like data (``copy.deepcopy`` costs ten times as much, on every request)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


__all__ = ["PREFER_JSON_SCHEMA", "DeclaredTool"]
