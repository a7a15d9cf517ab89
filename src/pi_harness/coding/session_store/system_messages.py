"""(1.4.0) The system prompt and tool set recorded in the transcript.

The first request of a session persists the full prompt as named ``sections`` plus every tool
in ``toolsAdded``; later requests persist only what changed: sections by name (``None`` deletes
one) and ``toolsAdded``/``toolsRemoved``. Replaying the system messages of a path in order
yields the prompt sections and tool set that were in force at its end, which is also how tree
navigation restores a branch's tools.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from pi_harness.agent.types import AgentMessage, SystemMessage
from pi_harness.ai.types import Tool
from pi_harness.coding.session_store.ids import now_ms

# Prompt order of the built-in sections; extension sections follow in the order they appeared.
SECTION_ORDER: tuple[str, ...] = (
    "preamble",
    "tools",
    "rules",
    "docs",
    "addendum",
    "project_context",
    "skills",
    "cwd",
)


@dataclass
class SystemState:
    """Prompt sections by name and declared tools by name, as replayed from a transcript."""

    sections: dict[str, str] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)

    @property
    def declared(self) -> bool:
        """True once any system message was seen (the first one declares everything)."""
        return bool(self.sections or self.tools)

    def ordered_sections(self) -> list[tuple[str, str]]:
        """Sections in prompt order: built-in ones first, then the rest in insertion order."""
        known = [(name, self.sections[name]) for name in SECTION_ORDER if name in self.sections]
        extra = [(name, text) for name, text in self.sections.items() if name not in SECTION_ORDER]
        return known + extra

    def tool_list(self) -> list[Tool]:
        return list(self.tools.values())

    def apply(self, message: SystemMessage) -> None:
        """Merge one system message (full declaration or patch) into this state."""
        sections = message.get("sections")
        if isinstance(sections, dict):
            for name, text in sections.items():
                if text is None:
                    self.sections.pop(name, None)
                elif isinstance(text, str):
                    self.sections[name] = text
        for removed in message.get("toolsRemoved") or []:
            removed_name = _tool_name(removed)
            if removed_name is not None:
                self.tools.pop(removed_name, None)
        for added in message.get("toolsAdded") or []:
            added_name = _tool_name(added)
            if added_name is not None and isinstance(added, dict):
                self.tools[added_name] = added


def _tool_name(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        name: str = value["name"]
        return name
    return None


def replay_system_messages(messages: Iterable[AgentMessage]) -> SystemState:
    """The prompt sections and tools in force after the ``system`` messages of ``messages``."""
    state = SystemState()
    for message in messages:
        if message.get("role") == "system":
            state.apply(cast(SystemMessage, message))
    return state


def system_message_patch(
    previous: SystemState | None,
    sections: Mapping[str, str],
    tools: Sequence[Tool],
    *,
    timestamp: int | None = None,
    content: str = "",
) -> SystemMessage | None:
    """The system message that turns ``previous`` into ``sections``/``tools``; ``None`` if unchanged.

    With no previous declaration the result is the full first message (every section, every tool
    in ``toolsAdded``, ``timestamp`` 0 unless given). Otherwise (timestamp: now unless given) it holds
    only the changed sections
    (removed ones as ``None``), tools that are new or whose declaration changed (``toolsAdded``)
    and the names of tools that are gone (``toolsRemoved``).
    """
    if previous is None or not previous.declared:
        first: SystemMessage = {
            "role": "system",
            "content": content,
            "sections": dict(sections),
            "toolsAdded": list(tools),
            "timestamp": 0 if timestamp is None else timestamp,
        }
        return first
    changed: dict[str, str | None] = {
        name: text for name, text in sections.items() if previous.sections.get(name) != text
    }
    for name in previous.sections:
        if name not in sections:
            changed[name] = None
    current = {tool["name"]: tool for tool in tools}
    added = [tool for name, tool in current.items() if previous.tools.get(name) != tool]
    removed: list[Tool | str] = [name for name in previous.tools if name not in current]
    if not changed and not added and not removed:
        return None
    patch: SystemMessage = {
        "role": "system",
        "content": content,
        "timestamp": now_ms() if timestamp is None else timestamp,
    }
    if changed:
        patch["sections"] = changed
    if added:
        patch["toolsAdded"] = added
    if removed:
        patch["toolsRemoved"] = removed
    return patch
