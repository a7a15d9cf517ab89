"""``/tree`` in a live session: moving to another point of the session tree.

``TreeNavigator.navigate_tree`` refuses while the agent runs or compacts, lets extensions cancel
or supply the summary (``session_before_tree``), has the store side move the leaf (and summarise
the abandoned branch when asked: ``pi_harness.coding.compaction.navigate``), then rebuilds the
agent's messages, restores the tool set recorded on the new branch, and emits ``session_tree``.
Fork and clone create new session files and therefore go through the session's runtime; the
read-only tree views are in ``views``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import cast

from pi_harness.ai.abort import AbortController
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.session_errors import (
    NAVIGATION_WHILE_COMPACTING,
    NAVIGATION_WHILE_STREAMING,
    SessionError,
)
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.compaction import (
    BeforeTreeEvent,
    BeforeTreeResult,
    CompleteFn,
    TreePreparation,
)
from pi_harness.coding.compaction import navigate_tree as move_in_store


def _camel(preparation: TreePreparation) -> dict[str, object]:
    """The ``preparation`` of ``session_before_tree`` with the camelCase keys extensions read."""
    data = asdict(preparation)
    out: dict[str, object] = {
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


class TreeNavigator:
    def __init__(
        self, state: SessionState, *, compaction: CompactionControl, tools: ToolRegistry, complete: CompleteFn
    ) -> None:
        self._state = state
        self._compaction = compaction
        self._tools = tools
        self._complete = complete
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
    ) -> dict[str, object]:
        """``{cancelled, aborted?, editorText?, summaryEntry?}``."""
        state = self._state
        if state.busy:
            raise SessionError(NAVIGATION_WHILE_STREAMING)
        if self._compaction.is_compacting:
            raise SessionError(NAVIGATION_WHILE_COMPACTING)
        extensions = state.extensions

        async def before_tree(event: BeforeTreeEvent) -> BeforeTreeResult | None:
            if not extensions.has_handlers("session_before_tree"):
                return None
            payload = {"preparation": _camel(event.preparation), "signal": event.signal}
            result = await extensions.emit_session_before("session_before_tree", payload)
            return cast(BeforeTreeResult | None, result)

        model = state.model
        key = state.model_runtime.get_api_key(model["provider"]) if model is not None else None
        controller = self._controller = AbortController()
        try:
            result = await move_in_store(
                state.manager,
                target_id,
                summarize=summarize,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
                label=label,
                model=model,
                api_key=key,
                settings=state.settings.values.branch_summary,
                before_tree=before_tree,
                signal=controller.signal,
                complete_fn=self._complete,
            )
        finally:
            self._controller = None
        if result.cancelled:
            cancelled: dict[str, object] = {"cancelled": True}
            if result.aborted:
                cancelled["aborted"] = True
            return cancelled
        if result.old_leaf_id == result.new_leaf_id and result.summary_entry is None and result.editor_text is None:
            return {"cancelled": False}
        state.sync_agent_messages()
        recorded = state.manager.get_system_state()
        if recorded.declared:  # the tool set recorded on the new branch
            self._tools.set_active(list(recorded.tools))
        event: dict[str, object] = {"newLeafId": result.new_leaf_id, "oldLeafId": result.old_leaf_id}
        if result.summary_entry is not None:
            event["summaryEntry"] = result.summary_entry
            event["fromExtension"] = result.from_extension
        await extensions.emit("session_tree", event)
        out: dict[str, object] = {"cancelled": False}
        if result.editor_text is not None:
            out["editorText"] = result.editor_text
        if result.summary_entry is not None:
            out["summaryEntry"] = result.summary_entry
        return out


__all__ = ["TreeNavigator"]
