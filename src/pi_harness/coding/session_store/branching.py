"""Pure helpers behind the manager's branching operations (forks, clones, omitted attempts).

They compute which entries a new session file or a set of ``context_edit`` entries should
contain; the manager applies the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from pi_harness.coding.session_store.context import stored_message
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.errors import EntryNotFoundError
from pi_harness.coding.session_store.ids import new_entry_id
from pi_harness.coding.session_store.tree import LabelInfo

INVALID_FORK_ENTRY = "Invalid entry ID for forking"


def branched_entries(path: Sequence[SessionEntry], labels: Mapping[str, LabelInfo], now: str) -> list[SessionEntry]:
    """The entries of a session branched off at the end of ``path``.

    ``label`` entries are dropped; an entry that followed one is re-parented to its nearest kept
    ancestor so the chain stays intact (entries keep their ids). Every label still in force on a
    kept entry is re-added as a fresh ``label`` entry chained after the path.
    """
    kept: list[SessionEntry] = []
    parent: str | None = None
    for original in path:
        if original["type"] == "label":
            continue
        entry: SessionEntry = original
        if entry.get("parentId") != parent:
            entry = cast(SessionEntry, {**entry, "parentId": parent})
        kept.append(entry)
        parent = entry["id"]
    taken = {e["id"] for e in kept}
    for target in list(kept):
        info = labels.get(target["id"])
        if info is None:
            continue
        label_id = new_entry_id(taken)
        taken.add(label_id)
        label = {
            "type": "label",
            "id": label_id,
            "parentId": parent,
            "timestamp": now,
            "targetId": target["id"],
            "label": info.label,
        }
        kept.append(cast(SessionEntry, label))
        parent = label_id
    return kept


def _content_blocks(message: Mapping[str, object]) -> list[object]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def failed_attempt_targets(path: Sequence[SessionEntry], assistant_entry_id: str | None) -> list[str]:
    """Ids of an assistant response (default: the latest on ``path``) and of its tool results."""
    index = -1
    for i in range(len(path) - 1, -1, -1):
        message = stored_message(path[i])
        if message is None or message.get("role") != "assistant":
            continue
        if assistant_entry_id is None or path[i]["id"] == assistant_entry_id:
            index = i
            break
    if index < 0:
        if assistant_entry_id is not None:
            raise EntryNotFoundError(assistant_entry_id)
        return []
    assistant = stored_message(path[index]) or {}
    call_ids = {
        block.get("id")
        for block in _content_blocks(assistant)
        if isinstance(block, dict) and block.get("type") == "toolCall"
    }
    targets = [path[index]["id"]]
    for entry in path[index + 1 :]:
        message = stored_message(entry)
        if message is not None and message.get("role") == "toolResult" and message.get("toolCallId") in call_ids:
            targets.append(entry["id"])
    return targets


def fork_text(entry: SessionEntry | None) -> str:
    """The text of the user message a fork starts from (it goes back to the editor).

    Raises ``Invalid entry ID for forking`` unless ``entry`` is a user message. As in Pi, the
    message may be on any branch of the tree: the fork holds that message's own path.
    """
    message = stored_message(entry) if entry is not None else None
    if entry is None or message is None or message.get("role") != "user":
        raise ValueError(INVALID_FORK_ENTRY)
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(
        b.get("text") or "" for b in _content_blocks(message) if isinstance(b, dict) and b.get("type") == "text"
    )
