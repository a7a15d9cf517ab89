"""Read-only views of a live session for hosts: RPC ``get_state``, ``get_commands``,
``get_last_assistant_text``, the transcript, and the tree (``get_tree``, ``get_entries``,
``get_fork_messages``). The shapes are the RPC protocol's (see rpc.md)."""

from __future__ import annotations

from collections.abc import Sequence

from pi_harness.agent.types import AgentMessage
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.queued_messages import QueuedMessages
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.resources.source_info import SourceInfo
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.listing import message_text
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.session_store.tree import SessionTreeNode


def transcript(manager: SessionManager) -> list[AgentMessage]:
    """``get_messages``: the messages of the active branch as the model sees them."""
    return list(manager.build_session_context().messages)


def unknown_model() -> dict[str, object]:
    """What Pi 1.4.0 reports as the model of a session that has none (its agent's placeholder):
    RPC clients read ``state.model.provider`` without checking for null."""
    return {
        "id": "unknown",
        "name": "unknown",
        "api": "unknown",
        "provider": "unknown",
        "baseUrl": "",
        "reasoning": False,
        "input": [],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 0,
        "maxTokens": 0,
    }


def state_view(state: SessionState, compaction: CompactionControl, queues: QueuedMessages) -> dict[str, object]:
    """``{model, thinkingLevel, isStreaming, isCompacting, steeringMode, followUpMode, sessionFile?,
    sessionId, sessionName?, autoCompactionEnabled, messageCount, pendingMessageCount}``."""
    manager = state.manager
    agent = state.agent
    view: dict[str, object] = {
        "model": state.model if state.model is not None else unknown_model(),
        "thinkingLevel": state.thinking_level,
        "isStreaming": state.busy,
        "isCompacting": compaction.is_compacting,
        "steeringMode": agent.get_steering_mode(),
        "followUpMode": agent.get_follow_up_mode(),
    }
    session_file = manager.get_session_file()
    if session_file is not None:
        view["sessionFile"] = str(session_file)
    view["sessionId"] = manager.get_session_id()
    name = manager.get_session_name()
    if name:
        view["sessionName"] = name
    view["autoCompactionEnabled"] = compaction.auto_enabled
    view["messageCount"] = len(transcript(manager))
    view["pendingMessageCount"] = queues.count
    return view


def last_assistant_text(messages: Sequence[AgentMessage]) -> str | None:
    """Text of the last assistant message (aborted empty ones skipped), trimmed; ``None`` if none."""
    for message in reversed(messages):
        if message["role"] != "assistant":
            continue
        blocks = message.get("content") or []
        text = "".join(block.get("text") or "" for block in blocks if block["type"] == "text").strip()
        if message.get("stopReason") == "aborted" and not text:
            continue
        return text
    return None


def _extension_source(state: SessionState, path: str) -> SourceInfo:
    known = state.extensions.path_sources.get(path)
    return known.info(path) if known is not None else state.resource_loader.source_info(path)


def session_commands(state: SessionState) -> list[dict[str, object]]:
    """``get_commands``: extension commands, then prompt templates, then skills (``skill:<name>``),
    each ``{name, description?, source, sourceInfo}``. Skills are listed whatever
    ``enableSkillCommands`` says: that setting only hides them from interactive completion."""
    out: list[dict[str, object]] = []
    commands, _conflicts = state.extensions.commands()
    for command, path in commands:
        item: dict[str, object] = {"name": command.name}
        if command.description:
            item["description"] = command.description
        item["source"] = "extension"
        item["sourceInfo"] = _extension_source(state, path)
        out.append(item)
    loader = state.resource_loader
    for template in loader.get_prompts():
        out.append(
            {
                "name": template.name,
                "description": template.description,
                "source": "prompt",
                "sourceInfo": loader.source_info(template.file_path),
            }
        )
    for skill in loader.get_skills():
        out.append(
            {
                "name": f"skill:{skill.name}",
                "description": skill.description,
                "source": "skill",
                "sourceInfo": loader.source_info(skill.file_path),
            }
        )
    return out


# -- the tree ---------------------------------------------------------------------------------------


def fork_messages(manager: SessionManager) -> list[dict[str, str]]:
    """``get_fork_messages``: user messages with text from every branch, in file order (Pi's)."""
    out: list[dict[str, str]] = []
    for entry in manager.get_entries():
        if entry["type"] != "message":
            continue
        message = entry.get("message")
        if message is not None and message.get("role") == "user":
            text = message_text(dict(message))
            if text:
                out.append({"entryId": entry["id"], "text": text})
    return out


def tree_dicts(roots: list[SessionTreeNode]) -> list[dict[str, object]]:
    """``get_tree`` nodes ``{entry, children, label?, labelTimestamp?}`` (built without recursion,
    so a very long conversation cannot hit the recursion limit)."""

    def shell(node: SessionTreeNode) -> tuple[dict[str, object], list[dict[str, object]]]:
        children: list[dict[str, object]] = []
        out: dict[str, object] = {"entry": node.entry, "children": children}
        if node.label is not None:
            out["label"] = node.label
            out["labelTimestamp"] = node.label_timestamp
        return out, children

    top: list[dict[str, object]] = []
    stack: list[tuple[SessionTreeNode, list[dict[str, object]]]] = [(node, top) for node in reversed(roots)]
    while stack:
        node, siblings = stack.pop()
        converted, children = shell(node)
        siblings.append(converted)
        stack.extend((child, children) for child in reversed(node.children))
    return top


class UnknownCursorError(ValueError):
    """``get_entries`` with a ``since`` that names no entry (Pi words this one unlike the others)."""

    def __init__(self, entry_id: str) -> None:
        self.entry_id = entry_id
        super().__init__(f"Entry not found: {entry_id}")


def entries_since(manager: SessionManager, since: str | None) -> dict[str, object]:
    """``get_entries``: entries after ``since`` in file order (all without it), and the leaf."""
    entries: list[SessionEntry] = manager.get_entries()
    if since is not None:
        index = next((i for i, entry in enumerate(entries) if entry["id"] == since), None)
        if index is None:
            raise UnknownCursorError(since)
        entries = entries[index + 1 :]
    return {"entries": entries, "leafId": manager.get_leaf_id()}


__all__ = [
    "entries_since",
    "fork_messages",
    "last_assistant_text",
    "session_commands",
    "state_view",
    "transcript",
    "tree_dicts",
]
