"""(1.4.0) The system prompt and tool set recorded in the transcript.

The first request of a session persists a ``system`` message with ``content: ""``, every prompt
section in ``sections`` and every tool in ``toolsAdded``; later requests persist only what
changed: sections by name (``None`` deletes one) and ``toolsAdded``/``toolsRemoved``. Every
section but ``preamble`` is stored wrapped in a tag of its own name (``"<cwd>\\n…\\n</cwd>"``), so
the prompt is the sections joined as they are and Pi, which reads the same files, renders the
same text. Replaying the system messages of a path in order yields the prompt and tool set in
force at its end, which is also how tree navigation restores a branch's tools.

A non-empty ``content`` is an instruction appended to the prompt (a later system message may
carry one); the replayed prompt is every such text, then the sections in the order they were
first set: a changed section keeps its place and a new one comes last, so the prompt's prefix,
and the provider's cache of it, survive a change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, NotRequired, TypeAlias, TypedDict, cast

from pi_harness.agent.types import AgentMessage, SystemMessage, ToolReference
from pi_harness.ai.types import Tool
from pi_harness.coding.session_store.ids import now_ms


class JsonSchemaSampling(TypedDict):
    """Ask providers to constrain the tool's arguments to its JSON Schema (their ``strict``)."""

    type: Literal["json_schema"]
    strict: Literal["prefer", "require"]


class GrammarSampling(TypedDict):
    """Provider-specific grammars (``openai_lark``, ``openai_regex``) for the arguments."""

    type: Literal["grammar"]
    variants: dict[str, str]


# ``False``: the tool opts out of constrained sampling explicitly.
ConstrainedSampling: TypeAlias = JsonSchemaSampling | GrammarSampling | Literal[False]


class ToolDeclaration(Tool):
    """A tool as ``toolsAdded`` records it: the LLM-facing declaration plus its sampling hint."""

    constrainedSampling: NotRequired[ConstrainedSampling]


def tag_section(name: str, body: str) -> str:
    """A section as it is stored and sent: the preamble as it is, any other wrapped in its tag."""
    return body if name == "preamble" else f"<{name}>\n{body}\n</{name}>"


def is_tagged(name: str, text: str) -> bool:
    return text.startswith(f"<{name}>\n") and text.endswith(f"\n</{name}>")


def content_text(content: object) -> str:
    """A system message's ``content`` as text (a string, or text blocks joined by newlines)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", "")) for block in content if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


@dataclass
class SystemState:
    """What the system messages of a path add up to: appended prompt texts, sections, tools."""

    sections: dict[str, str] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    content: list[str] = field(default_factory=list)
    # Of the first system message seen; ``None`` until one is.
    timestamp: int | None = None

    @property
    def declared(self) -> bool:
        """True once a system message was replayed (the first one declares everything)."""
        return self.timestamp is not None or bool(self.tools)

    def copy(self) -> SystemState:
        return SystemState(dict(self.sections), dict(self.tools), list(self.content), self.timestamp)

    def tool_list(self) -> list[Tool]:
        return list(self.tools.values())

    def render(self) -> str:
        """The prompt text: the appended texts, then the sections in the order they were set."""
        parts = [*self.content, *self.sections.values()]
        return "\n\n".join(part for part in parts if part)

    def apply(self, message: SystemMessage) -> None:
        """Merge one system message (full declaration or patch) into this state."""
        if self.timestamp is None:
            stamp = message.get("timestamp")
            self.timestamp = stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else 0
        text = content_text(message.get("content"))
        if text:
            self.content.append(text)
        sections = message.get("sections")
        if isinstance(sections, dict):
            for name, value in sections.items():
                if value is None:
                    self.sections.pop(name, None)
                elif isinstance(value, str):
                    self.sections[name] = value
        for removed in message.get("toolsRemoved") or []:
            removed_name = _tool_name(removed)
            if removed_name is not None:
                self.tools.pop(removed_name, None)
        for added in message.get("toolsAdded") or []:
            added_name = _tool_name(added)
            if added_name is not None and isinstance(added, dict):
                self.tools[added_name] = added

    def current_message(self, timestamp: int) -> SystemMessage | None:
        """All of it as one system message (a compaction's checkpoint); ``None`` if nothing was declared."""
        if not self.declared:
            return None
        message = cast(SystemMessage, {"role": "system", "content": "\n\n".join(self.content)})
        if self.sections:
            message["sections"] = {name: text for name, text in self.sections.items()}
        if self.tools:
            message["toolsAdded"] = self.tool_list()
        message["timestamp"] = timestamp
        return message


def _tool_name(value: object) -> str | None:
    # Files of earlier pi-harness versions name removed tools by a bare string.
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        name: str = value["name"]
        return name
    return None


def replay_system_messages(messages: Iterable[AgentMessage], start: SystemState | None = None) -> SystemState:
    """``start`` (default: nothing) after the ``system`` messages of ``messages``."""
    state = start.copy() if start is not None else SystemState()
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
) -> SystemMessage | None:
    """The system message that turns ``previous`` into ``sections``/``tools``; ``None`` if unchanged.

    ``sections`` are in their stored form (see ``tag_section``). The message holds the sections
    whose text changed (removed ones as ``None``), the tools that are new or whose declaration
    changed (``toolsAdded``) and the tools that are gone or changed (``toolsRemoved``), each only
    when not empty. Against no previous declaration that is everything: the session's first
    message.
    """
    before = previous or SystemState()
    changed: dict[str, str | None] = {
        name: text for name, text in sections.items() if before.sections.get(name) != text
    }
    for name in before.sections:
        if name not in sections:
            changed[name] = None
    current = {tool["name"]: tool for tool in tools}
    added = [tool for name, tool in current.items() if before.tools.get(name) != tool]
    # As in Pi, a changed declaration is a removal and an addition (replay removes first).
    removed: list[ToolReference] = [{"name": name} for name, tool in before.tools.items() if current.get(name) != tool]
    if not changed and not added and not removed:
        return None
    # Pi's key order: role, content, sections, timestamp, then the tool changes.
    patch = cast(SystemMessage, {"role": "system", "content": ""})
    if changed:
        patch["sections"] = changed
    patch["timestamp"] = now_ms() if timestamp is None else timestamp
    if added:
        patch["toolsAdded"] = added
    if removed:
        patch["toolsRemoved"] = removed
    return patch
