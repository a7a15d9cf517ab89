"""What a compaction will summarise and keep.

The span considered starts where the previous compaction's kept part starts (so messages it kept
verbatim are summarised this time, with its summary passed along as ``previousSummary``) and
ends at the leaf. ``find_cut_point`` splits it into the part to summarise and the recent part
kept verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from pi_harness.agent.types import AgentMessage
from pi_harness.coding.compaction.cut import find_cut_point, raw_visible
from pi_harness.coding.compaction.estimate import estimate_context_tokens
from pi_harness.coding.compaction.file_ops import FileOperations
from pi_harness.coding.compaction.settings import CompactionSettings
from pi_harness.coding.session_store.context import (
    build_session_projection,
    compaction_summary_message,
    entry_to_message,
)
from pi_harness.coding.session_store.entries import CompactionEntry, SessionEntry

MISSING_ID_ERROR = "First kept entry has no UUID - session may need migration"


@dataclass
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    turn_prefix_messages: list[AgentMessage]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings = field(default_factory=CompactionSettings)


def summarizable_message(entry: SessionEntry) -> AgentMessage | None:
    """What a summary covers of an entry: messages, custom messages, branch and compaction summaries.

    1.4.0 ``system`` messages are prompt state, not conversation: the projection replays them
    from the whole path, so they are never summarised (and alone never justify a compaction).
    """
    if entry["type"] == "compaction":
        return compaction_summary_message(entry)
    message = entry_to_message(entry)
    if message is not None and message.get("role") == "system":
        return None
    return message


def _edits(path: Sequence[SessionEntry]) -> dict[str, object]:
    """``targetId`` → replacement (``None``: hidden) of the path's ``context_edit`` entries."""
    edits: dict[str, object] = {}
    for entry in path:
        if entry["type"] == "context_edit":
            target = entry.get("targetId")
            if isinstance(target, str):
                edits[target] = entry.get("replacement")
    return edits


def _replaced(message: Mapping[str, object], replacement: object) -> Mapping[str, object]:
    content = replacement.get("content") if isinstance(replacement, Mapping) else None
    if content is None:
        return message
    if isinstance(content, str) and message.get("role") in ("assistant", "toolResult"):
        content = [{"type": "text", "text": content}]
    return {**message, "content": content}


def visible_messages(entry: SessionEntry, edits: Mapping[str, object]) -> list[Mapping[str, object]]:
    """What ``entry`` shows the model once the path's context edits apply."""
    shown = raw_visible(entry)
    if not shown or entry["id"] not in edits:
        return shown
    replacement = edits[entry["id"]]
    if replacement is None:
        return []
    return [_replaced(message, replacement) for message in shown]


def _messages(visible: Sequence[Sequence[Mapping[str, object]]]) -> list[AgentMessage]:
    # System messages are prompt state: the compaction entry carries them, the summary does not.
    return [cast(AgentMessage, m) for shown in visible for m in shown if m.get("role") != "system"]


def prepare_compaction(
    path: Sequence[SessionEntry], settings: CompactionSettings | None = None
) -> CompactionPreparation | None:
    """Plan a compaction of the active ``path`` (root → leaf).

    ``None`` when the path already ends with a compaction or there is nothing to summarise.
    """
    settings = settings or CompactionSettings()
    if not path or path[-1]["type"] == "compaction":
        return None
    previous_index = -1
    for index in range(len(path) - 1, -1, -1):
        if path[index]["type"] == "compaction":
            previous_index = index
            break
    previous = cast(CompactionEntry, path[previous_index]) if previous_index >= 0 else None
    start = previous_index + 1
    if previous is not None:
        kept_id = previous.get("firstKeptEntryId")
        for index in range(previous_index):
            if path[index]["id"] == kept_id:
                start = index
                break
    end = len(path)
    tokens_before = estimate_context_tokens(build_session_projection(path).messages).tokens

    edits = _edits(path)
    # Only entries from ``start`` on are read (the cut is chosen among them); those before may be
    # a large file's unparsed stubs (``SessionManager.get_branch_outline``).
    visible = [visible_messages(entry, edits) if index >= start else [] for index, entry in enumerate(path)]
    cut = find_cut_point(path, start, end, settings.keep_recent_tokens, visible)
    first_kept = path[cut.first_kept_entry_index] if cut.first_kept_entry_index < end else None
    if first_kept is None:
        return None
    if not first_kept.get("id"):
        raise ValueError(MISSING_ID_ERROR)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(visible[start:history_end])
    turn_prefix = _messages(visible[cut.turn_start_index : cut.first_kept_entry_index]) if cut.is_split_turn else []
    if not to_summarize and not turn_prefix:
        return None

    file_ops = FileOperations()
    if previous is not None and not previous.get("fromHook"):
        file_ops.add_details(previous.get("details"))
    file_ops.add_tool_calls(to_summarize)
    file_ops.add_tool_calls(turn_prefix)
    return CompactionPreparation(
        first_kept_entry_id=first_kept["id"],
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous.get("summary") if previous is not None else None,
        file_ops=file_ops,
        settings=settings,
    )
