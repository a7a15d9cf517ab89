"""Moving around the session tree from a session (sessions.md section 11).

``navigate_tree`` is ``/tree``: it refuses while the agent runs or compacts, lets extensions
cancel or supply the summary (``session_before_tree``), summarises the abandoned branch when
asked, moves the leaf, rebuilds the agent's messages, restores the tool set recorded on the new
branch, and emits ``session_tree``. Fork and clone create new session files and therefore go
through ``AgentSessionRuntime``; the read-only views (fork candidates, tree, entries) are here.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, cast

from pi_harness.ai.abort import AbortController
from pi_harness.coding.agent_session.errors import NAVIGATION_WHILE_COMPACTING, NAVIGATION_WHILE_STREAMING, SessionError
from pi_harness.coding.compaction import (
    BeforeTreeEvent,
    BeforeTreeResult,
    BranchSummarySettings,
)
from pi_harness.coding.compaction import navigate_tree as navigate_session_tree
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.errors import EntryNotFoundError
from pi_harness.coding.session_store.listing import message_text
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.session_store.tree import SessionTreeNode

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession


def _camel(preparation: Any) -> dict[str, Any]:
    data = asdict(preparation)
    out: dict[str, Any] = {
        "targetId": data["target_id"],
        "oldLeafId": data["old_leaf_id"],
        "commonAncestorId": data["common_ancestor_id"],
        "entriesToSummarize": data["entries_to_summarize"],
        "userWantsSummary": data["user_wants_summary"],
        "replaceInstructions": data["replace_instructions"],
    }
    if data["custom_instructions"] is not None:
        out["customInstructions"] = data["custom_instructions"]
    if data["label"] is not None:
        out["label"] = data["label"]
    return out


class Navigator:
    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self._controller: AbortController | None = None

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort("Branch summary aborted")

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        session = self._session
        if session.is_streaming:
            raise SessionError(NAVIGATION_WHILE_STREAMING)
        if session.is_compacting:
            raise SessionError(NAVIGATION_WHILE_COMPACTING)
        extensions = session.extensions

        async def before_tree(event: BeforeTreeEvent) -> BeforeTreeResult | None:
            if not extensions.has_handlers("session_before_tree"):
                return None
            payload = {"preparation": _camel(event.preparation), "signal": event.signal}
            result = await extensions.emit_session_before("session_before_tree", payload)
            return cast(BeforeTreeResult | None, result)

        model = session.model
        key = session.model_runtime.get_api_key(model["provider"]) if model is not None else None
        controller = self._controller = AbortController()
        try:
            result = await navigate_session_tree(
                session.session_manager,
                target_id,
                summarize=summarize,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
                label=label,
                model=model,
                api_key=key,
                settings=BranchSummarySettings.from_dict(session.settings.get("branchSummary")),
                before_tree=before_tree,
                signal=controller.signal,
                complete_fn=session.complete,
            )
        finally:
            self._controller = None
        if result.cancelled:
            cancelled: dict[str, Any] = {"cancelled": True}
            if result.aborted:
                cancelled["aborted"] = True
            return cancelled
        if result.old_leaf_id == result.new_leaf_id and result.summary_entry is None and result.editor_text is None:
            return {"cancelled": False}
        session.sync_agent_messages()
        recorded = session.session_manager.get_system_state()
        if recorded.declared:  # the tool set recorded on the new branch
            session.tool_registry.set_active(list(recorded.tools))
        if result.summary_entry is not None:
            await session.record_entry_async(result.summary_entry["id"])
        event: dict[str, Any] = {"newLeafId": result.new_leaf_id, "oldLeafId": result.old_leaf_id}
        if result.summary_entry is not None:
            event["summaryEntry"] = result.summary_entry
            event["fromExtension"] = result.from_extension
        await extensions.emit("session_tree", event)
        out: dict[str, Any] = {"cancelled": False}
        if result.editor_text is not None:
            out["editorText"] = result.editor_text
        if result.summary_entry is not None:
            out["summaryEntry"] = result.summary_entry
        return out


def fork_messages(manager: SessionManager) -> list[dict[str, str]]:
    """``get_fork_messages``: user messages with text on the active branch, oldest first."""
    out: list[dict[str, str]] = []
    for entry in manager.get_branch():
        message: Any = entry.get("message") if entry["type"] == "message" else None
        if isinstance(message, dict) and message.get("role") == "user":
            text = message_text(message)
            if text:
                out.append({"entryId": entry["id"], "text": text})
    return out


def tree_dicts(roots: list[SessionTreeNode]) -> list[dict[str, Any]]:
    """``get_tree`` nodes ``{entry, children, label?, labelTimestamp?}`` (built without recursion)."""

    def shell(node: SessionTreeNode) -> dict[str, Any]:
        out: dict[str, Any] = {"entry": node.entry, "children": []}
        if node.label is not None:
            out["label"] = node.label
            out["labelTimestamp"] = node.label_timestamp
        return out

    top = [shell(node) for node in roots]
    stack = list(zip(roots, top, strict=True))
    while stack:
        node, converted = stack.pop()
        for child in node.children:
            child_dict = shell(child)
            converted["children"].append(child_dict)
            stack.append((child, child_dict))
    return top


def entries_since(manager: SessionManager, since: str | None) -> dict[str, Any]:
    """``get_entries``: entries after ``since`` in file order (all without it), and the leaf."""
    entries: list[SessionEntry] = manager.get_entries()
    if since is not None:
        index = next((i for i, entry in enumerate(entries) if entry["id"] == since), None)
        if index is None:
            raise EntryNotFoundError(since)
        entries = entries[index + 1 :]
    return {"entries": entries, "leafId": manager.get_leaf_id()}


__all__ = ["Navigator", "entries_since", "fork_messages", "tree_dicts"]
