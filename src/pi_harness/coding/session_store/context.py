"""Rebuilding the model context from the active path.

The projection keeps, in order: for the latest compaction on the path (if any) its system
checkpoint and its summary, the entries the compaction kept (from ``firstKeptEntryId``, system
messages left out: the checkpoint holds what they declared), every entry after it, converted to
agent messages; then the path's ``context_edit`` entries omit or rewrite their targets. It also
reports the thinking level, the model in force at the leaf and the replayed system state: the
checkpoint and the system messages after it, or, for a compaction written without a checkpoint
(older files), every system message of the path.

Stored message dicts are returned as they are (not copied); only edited or normalised messages
are new dicts, so callers must not mutate the messages they get.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, cast

from pi_harness.agent.types import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    SystemMessage,
)
from pi_harness.ai.append_memo import Lineage
from pi_harness.coding.session_store.cold_path import ColdPath
from pi_harness.coding.session_store.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditReplacement,
    CustomMessageEntry,
    SessionEntry,
)
from pi_harness.coding.session_store.ids import iso_to_ms
from pi_harness.coding.session_store.system_messages import SystemState, replay_system_messages

DEFAULT_THINKING_LEVEL = "off"
_STRING_CONTENT_ROLES = frozenset({"user", "custom", "system"})
_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult"})


class ModelRef(TypedDict):
    provider: str
    modelId: str


@dataclass
class SessionContext:
    """``buildSessionContext()``: what the agent needs to continue the session."""

    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str = DEFAULT_THINKING_LEVEL
    model: ModelRef | None = None


@dataclass
class SessionProjection(SessionContext):
    """(1.4.0) ``buildSessionProjection()``: the context plus where each message came from.

    ``entries[i]`` is the entry that produced ``messages[i]`` (the compaction entry for the
    summary message). ``path`` is the whole active path (for a large file, a ``ColdPath`` whose
    older entries are made when read), ``compaction`` the latest compaction on it, and ``system``
    the prompt sections and tools replayed from its system messages. ``relevant``: the indices of
    ``path`` that may hold anything but an unread stub, when known (``WalkedPath``).
    """

    entries: list[SessionEntry] = field(default_factory=list)
    path: list[SessionEntry] | ColdPath = field(default_factory=list)
    compaction: CompactionEntry | None = None
    system: SystemState = field(default_factory=SystemState)
    relevant: list[int] | None = None

    def context(self) -> SessionContext:
        return SessionContext(self.messages, self.thinking_level, self.model)


def _normalised(message: Mapping[str, object]) -> AgentMessage:
    """A stored message as the agent expects it: a missing ``content`` becomes empty."""
    if message.get("content") is None and message.get("role") in (*_STRING_CONTENT_ROLES, "assistant", "toolResult"):
        empty: str | list[object] = "" if message.get("role") in _STRING_CONTENT_ROLES else []
        return cast(AgentMessage, {**message, "content": empty})
    return cast(AgentMessage, message)


def custom_message_from_entry(entry: CustomMessageEntry) -> CustomMessage:
    message: CustomMessage = {
        "role": "custom",
        "customType": entry["customType"],
        "content": entry.get("content") or "",
        "display": bool(entry.get("display", True)),
        "timestamp": iso_to_ms(entry.get("timestamp")),
    }
    if "details" in entry:
        message["details"] = entry["details"]
    return message


def branch_summary_message(entry: BranchSummaryEntry) -> BranchSummaryMessage:
    return {
        "role": "branchSummary",
        "summary": entry["summary"],
        "fromId": entry.get("fromId", ""),
        "timestamp": iso_to_ms(entry.get("timestamp")),
    }


def compaction_summary_message(entry: CompactionEntry) -> CompactionSummaryMessage:
    return {
        "role": "compactionSummary",
        "summary": entry.get("summary", ""),
        "tokensBefore": entry.get("tokensBefore", 0),
        "timestamp": iso_to_ms(entry.get("timestamp")),
    }


def stored_message(entry: SessionEntry) -> Mapping[str, object] | None:
    """The message of a ``message`` entry, as read from the file (None for other entries, or for a
    damaged record whose message is not an object). Called for every entry of long paths: the
    commonest miss, a large file's unread stub, is decided by the first test."""
    message: object = entry.get("message")
    return message if type(message) is dict and entry["type"] == "message" else None


def entry_to_message(entry: SessionEntry) -> AgentMessage | None:
    """The message an entry contributes to the context, if any: stored messages, custom
    messages and branch summaries (compaction summaries are placed by the projection)."""
    if entry["type"] == "message":
        message = stored_message(entry)
        return _normalised(message) if message is not None else None
    if entry["type"] == "custom_message":
        return custom_message_from_entry(entry)
    if entry["type"] == "branch_summary" and entry.get("summary"):
        return branch_summary_message(entry)
    return None


def model_of(entry: SessionEntry) -> ModelRef | None:
    """The model an entry sets: a ``model_change`` or the model that wrote an assistant message."""
    if entry["type"] == "model_change":
        return {"provider": str(entry.get("provider", "")), "modelId": str(entry.get("modelId", ""))}
    message = stored_message(entry)
    if message is not None and message.get("role") == "assistant":
        return {"provider": str(message.get("provider", "")), "modelId": str(message.get("model", ""))}
    return None


def _edit_content(message: AgentMessage, replacement: ContextEditReplacement) -> AgentMessage:
    content = replacement.get("content")
    if isinstance(content, str) and message.get("role") in ("assistant", "toolResult"):
        content = [{"type": "text", "text": content}]
    return cast(AgentMessage, {**message, "content": content})


def _is_editable(entry: SessionEntry) -> bool:
    if entry["type"] == "custom_message":
        return True
    if entry["type"] == "message":
        message = entry.get("message")
        return isinstance(message, dict) and message.get("role") in _EDITABLE_ROLES
    return False


@dataclass
class WalkedPath:
    """An active path and, when known, the indices of its entries that may be anything but an
    unread stub of a large file (``deferred.py``): those are all the projection's scan of the
    path needs to look at (a stub has no model, system prompt, level, compaction or edit)."""

    entries: list[SessionEntry] | ColdPath
    relevant: Sequence[int] | None = None


def build_session_projection(path: Sequence[SessionEntry], relevant: Sequence[int] | None = None) -> SessionProjection:
    """Project the active ``path`` (root → leaf) into the model context (``relevant``: see
    ``WalkedPath``)."""
    projection = SessionProjection(
        path=path.copy() if isinstance(path, ColdPath) else list(path),
        relevant=list(relevant) if relevant is not None else None,
    )
    compaction_index = -1
    model_entry: SessionEntry | None = None
    edits: dict[str, ContextEditReplacement | None] = {}
    system_messages: list[SystemMessage] = []
    if relevant is None:
        walk: Iterable[tuple[int, SessionEntry]] = enumerate(path)
    else:
        picked = path.pick(relevant) if isinstance(path, ColdPath) else [path[i] for i in relevant]
        walk = zip(relevant, picked, strict=True)
    for index, entry in walk:
        kind = entry["type"]
        if kind == "message":
            message: object = entry.get("message")
            if isinstance(message, dict):
                role = message.get("role")
                if role == "assistant":
                    model_entry = entry
                elif role == "system":
                    system_messages.append(cast(SystemMessage, message))
        elif kind == "thinking_level_change":
            level = entry.get("thinkingLevel")
            if isinstance(level, str):
                projection.thinking_level = level
        elif kind == "model_change":
            model_entry = entry
        elif kind == "compaction":
            compaction_index = index
        elif entry["type"] == "context_edit":  # (not ``kind``: this narrows the entry's type)
            target = entry.get("targetId")
            if isinstance(target, str):
                edits[target] = entry.get("replacement")
    projection.model = model_of(model_entry) if model_entry is not None else None
    checkpoint = _checkpoint(path[compaction_index]) if compaction_index >= 0 else None
    if checkpoint is not None:
        system_messages = [checkpoint, *_system_messages(path[compaction_index + 1 :])]
    projection.system = replay_system_messages(system_messages)

    messages = projection.messages
    sources = projection.entries

    add_message, add_source = messages.append, sources.append

    def keep(entries: Sequence[SessionEntry], *, system: bool = True) -> None:
        for entry in entries:
            if not system and _is_system(entry):
                continue
            if not edits and entry["type"] == "message":
                # Fast path for the common case: a stored message used as it is.
                stored: object = entry.get("message")
                if type(stored) is dict and stored.get("content") is not None:
                    add_message(cast(AgentMessage, stored))
                    add_source(entry)
                    continue
            message = entry_to_message(entry)
            if message is None:
                continue
            if edits and entry["id"] in edits and _is_editable(entry):
                replacement = edits[entry["id"]]
                if replacement is None:
                    continue
                message = _edit_content(message, replacement)
            messages.append(message)
            sources.append(entry)

    if compaction_index < 0:
        keep(path)
        return projection
    compaction = cast(CompactionEntry, path[compaction_index])
    projection.compaction = compaction
    if checkpoint is not None:
        messages.append(checkpoint)
        sources.append(compaction)
    messages.append(compaction_summary_message(compaction))
    sources.append(compaction)
    first_kept = compaction.get("firstKeptEntryId")
    start = compaction_index
    # Searched back from the compaction, near which it keeps (ids are unique on a path).
    for index in range(compaction_index - 1, -1, -1):
        if path[index]["id"] == first_kept:
            start = index
            break
    keep(path[start:compaction_index], system=False)
    keep(path[compaction_index + 1 :])
    return projection


def _checkpoint(entry: SessionEntry) -> SystemMessage | None:
    """A compaction's ``systemMessage``: the prompt and tools in force when it was written."""
    if entry["type"] != "compaction":
        return None
    checkpoint: object = entry.get("systemMessage")
    return cast(SystemMessage, checkpoint) if isinstance(checkpoint, dict) else None


def _is_system(entry: SessionEntry) -> bool:
    message = stored_message(entry)
    return message is not None and message.get("role") == "system"


def _system_messages(entries: Sequence[SessionEntry]) -> list[SystemMessage]:
    return [cast(SystemMessage, stored_message(entry)) for entry in entries if _is_system(entry)]


def extend_session_projection(projection: SessionProjection, appended: Sequence[SessionEntry]) -> bool:
    """Bring ``projection`` up to date, in place, with entries appended after its leaf (each the
    child of the one before). Returns False, leaving it untouched, when one of them rewrites
    earlier context (a compaction or a context edit): then only a full rebuild is right.

    New entries cannot be the target of an earlier context edit, so they are kept as they are,
    exactly as ``build_session_projection`` would keep them.
    """
    if any(entry["type"] in ("compaction", "context_edit") for entry in appended):
        return False
    for entry in appended:
        if projection.relevant is not None:
            projection.relevant.append(len(projection.path))
        projection.path.append(entry)
        kind = entry["type"]
        if kind == "thinking_level_change":
            level = entry.get("thinkingLevel")
            if isinstance(level, str):
                projection.thinking_level = level
        elif kind == "model_change":
            projection.model = model_of(entry)
        elif kind == "message":
            stored = stored_message(entry)
            role = stored.get("role") if stored is not None else None
            if role == "assistant":
                projection.model = model_of(entry)
            elif role == "system":
                projection.system.apply(cast(SystemMessage, stored))
        message = entry_to_message(entry)
        if message is not None:
            projection.messages.append(message)
            projection.entries.append(entry)
    return True


class ProjectionMemo:
    """The projection of a store's active path, computed once per state of the tree.

    The path only changes when entries are appended, the leaf moves or the entries are replaced
    (a new ``generation``), so (generation, entry count, leaf) identifies it: a long session is
    not walked again by every caller during one prompt, and entries appended at the leaf since
    the last call are added incrementally. Every caller gets its own lists and system state (the
    stored messages themselves are shared, as always).
    """

    def __init__(self) -> None:
        self._key: tuple[int, int, str | None] | None = None
        self._projection: SessionProjection | None = None
        # The projection's messages only grow while it is carried forward: the lists handed out
        # of them are of one lineage (``append_memo``), a new one whenever it is built anew.
        self.lineage = Lineage()

    def current(
        self,
        generation: int,
        entries: Sequence[SessionEntry],
        leaf_id: str | None,
        branch: Callable[[], WalkedPath],
    ) -> SessionProjection:
        """The memoised projection itself: callers must not change it (``get`` gives a copy)."""
        key = (generation, len(entries), leaf_id)
        if self._projection is None or self._key != key:
            projection = self._extended(generation, entries, leaf_id)
            if projection is None:
                walked = branch()
                projection = build_session_projection(walked.entries, walked.relevant)
                self.lineage = Lineage()
            self._projection = projection
            self._key = key
        return self._projection

    def get(
        self,
        generation: int,
        entries: Sequence[SessionEntry],
        leaf_id: str | None,
        branch: Callable[[], WalkedPath],
    ) -> SessionProjection:
        cached = self.current(generation, entries, leaf_id, branch)
        return dataclasses.replace(
            cached,
            messages=list(cached.messages),
            entries=list(cached.entries),
            path=cached.path.copy(),
            system=cached.system.copy(),
            relevant=list(cached.relevant) if cached.relevant is not None else None,
        )

    def _extended(
        self, generation: int, entries: Sequence[SessionEntry], leaf_id: str | None
    ) -> SessionProjection | None:
        """The memoised projection carried forward over entries appended at its leaf since."""
        if self._projection is None or self._key is None:
            return None
        cached_generation, count, parent = self._key
        if cached_generation != generation or count >= len(entries):
            return None
        appended = entries[count:]
        for entry in appended:
            if entry.get("parentId") != parent:
                return None
            parent = entry["id"]
        if parent != leaf_id or not extend_session_projection(self._projection, appended):
            return None
        return self._projection


def build_session_context(path: Sequence[SessionEntry]) -> SessionContext:
    return build_session_projection(path).context()
