"""The session file's records: a header line, then entries.

Plain ``TypedDict``s with Pi's camelCase keys, so parsed JSON lines are used as they are.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.agent.types import AgentMessage, SystemMessage
from pi_harness.ai.types import ContentBlock, ImageContent, TextContent, Usage

CURRENT_SESSION_VERSION = 3


class SessionHeader(TypedDict):
    type: Literal["session"]
    id: str
    timestamp: str
    cwd: str
    version: NotRequired[int]
    parentSession: NotRequired[str]


class SessionMessageEntry(TypedDict):
    type: Literal["message"]
    id: str
    parentId: str | None
    timestamp: str
    message: AgentMessage


class ThinkingLevelChangeEntry(TypedDict):
    type: Literal["thinking_level_change"]
    id: str
    parentId: str | None
    timestamp: str
    thinkingLevel: str


class ModelChangeEntry(TypedDict):
    type: Literal["model_change"]
    id: str
    parentId: str | None
    timestamp: str
    provider: str
    modelId: str


class UsageEntry(TypedDict):
    type: Literal["usage"]
    id: str
    parentId: str | None
    timestamp: str
    kind: str
    provider: str
    model: str
    usage: Usage
    note: NotRequired[str]


class CompactionEntry(TypedDict):
    type: Literal["compaction"]
    id: str
    parentId: str | None
    timestamp: str
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    details: NotRequired[object]
    usage: NotRequired[Usage]
    fromHook: NotRequired[bool]
    # (1.4.0) The prompt and tools in force at the compaction: the compacted context's first
    # message (absent in older files).
    systemMessage: NotRequired[SystemMessage]


class BranchSummaryEntry(TypedDict):
    type: Literal["branch_summary"]
    id: str
    parentId: str | None
    timestamp: str
    fromId: str
    summary: str
    details: NotRequired[object]
    fromHook: NotRequired[bool]
    usage: NotRequired[Usage]


class CustomEntry(TypedDict):
    type: Literal["custom"]
    id: str
    parentId: str | None
    timestamp: str
    customType: str
    data: NotRequired[object]


class CustomMessageEntry(TypedDict):
    type: Literal["custom_message"]
    id: str
    parentId: str | None
    timestamp: str
    customType: str
    content: str | list[TextContent | ImageContent]
    display: bool
    details: NotRequired[object]


class ContextEditReplacement(TypedDict):
    """The content that replaces the target message's content in every later context."""

    content: str | list[ContentBlock]


class ContextEditEntry(TypedDict):
    type: Literal["context_edit"]
    id: str
    parentId: str | None
    timestamp: str
    targetId: str
    replacement: ContextEditReplacement | None


class LabelEntry(TypedDict):
    type: Literal["label"]
    id: str
    parentId: str | None
    timestamp: str
    targetId: str
    label: NotRequired[str]


class SessionInfoEntry(TypedDict):
    type: Literal["session_info"]
    id: str
    parentId: str | None
    timestamp: str
    name: NotRequired[str]


SessionEntry: TypeAlias = (
    SessionMessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | UsageEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | ContextEditEntry
    | LabelEntry
    | SessionInfoEntry
)

ENTRY_TYPES = frozenset(
    {
        "message",
        "thinking_level_change",
        "model_change",
        "usage",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "context_edit",
        "label",
        "session_info",
    }
)
