"""Moving the leaf within a session file, optionally summarising the abandoned branch.

``navigate_tree`` is the session-file side of ``/tree``: it collects what is being left, lets a
hook (extension ``session_before_tree``) cancel or supply the summary, generates the summary,
moves the leaf and writes the ``branch_summary``/``label`` entries. The live session's side,
``pi_harness.coding.agent_session.session_tree``, guards and calls it, then rebuilds the agent's
messages, restores the branch's tools and emits ``session_tree``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, cast

from pi_harness.ai.abort import AbortController, AbortSignal
from pi_harness.ai.api import complete_simple
from pi_harness.ai.types import Model, Usage
from pi_harness.coding.compaction.branch import collect_entries_for_branch_summary, entry_text, generate_branch_summary
from pi_harness.coding.compaction.keys import resolve_api_key
from pi_harness.coding.compaction.settings import BranchSummarySettings
from pi_harness.coding.compaction.types import CompleteFn
from pi_harness.coding.session_store.entries import BranchSummaryEntry, SessionEntry
from pi_harness.coding.session_store.errors import EntryNotFoundError
from pi_harness.coding.session_store.store import SessionManager

NO_MODEL_FOR_SUMMARY = "No model available for summarization"


@dataclass
class TreePreparation:
    """The ``preparation`` of the ``session_before_tree`` extension event."""

    target_id: str
    old_leaf_id: str | None
    common_ancestor_id: str | None
    entries_to_summarize: list[SessionEntry]
    user_wants_summary: bool
    custom_instructions: str | None = None
    replace_instructions: bool = False
    label: str | None = None


class ExtensionBranchSummary(TypedDict):
    summary: str
    details: NotRequired[Any]
    usage: NotRequired[Usage]


class BeforeTreeResult(TypedDict, total=False):
    cancel: bool
    summary: ExtensionBranchSummary
    customInstructions: str
    replaceInstructions: bool
    label: str


@dataclass
class BeforeTreeEvent:
    preparation: TreePreparation
    signal: AbortSignal


BeforeTreeHook = Callable[[BeforeTreeEvent], Awaitable[BeforeTreeResult | None]]


@dataclass
class TreeNavigationResult:
    cancelled: bool = False
    aborted: bool = False
    editor_text: str | None = None
    summary_entry: BranchSummaryEntry | None = None
    from_extension: bool = False
    old_leaf_id: str | None = None
    new_leaf_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _navigation_leaf(target: SessionEntry) -> tuple[str | None, str | None]:
    """New leaf and editor text: selecting a user/custom message re-opens it for editing."""
    is_user = target["type"] == "message" and cast(dict[str, Any], target.get("message") or {}).get("role") == "user"
    if is_user or target["type"] == "custom_message":
        return target.get("parentId"), entry_text(target)
    return target["id"], None


async def navigate_tree(
    session: SessionManager,
    target_id: str,
    *,
    summarize: bool = False,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    label: str | None = None,
    model: Model | None = None,
    api_key: str | None = None,
    settings: BranchSummarySettings | None = None,
    before_tree: BeforeTreeHook | None = None,
    signal: AbortSignal | None = None,
    complete_fn: CompleteFn = complete_simple,
) -> TreeNavigationResult:
    """Navigate to ``target_id``; raises for a missing model/key, an unknown entry or an LLM error."""
    old_leaf = session.get_leaf_id()
    if target_id == old_leaf:
        return TreeNavigationResult(old_leaf_id=old_leaf, new_leaf_id=old_leaf)
    if summarize and model is None:
        raise ValueError(NO_MODEL_FOR_SUMMARY)
    target = session.get_entry(target_id)
    if target is None:
        raise EntryNotFoundError(target_id)
    collection = collect_entries_for_branch_summary(session.entries_by_id(), old_leaf, target_id)
    if signal is None:
        signal = AbortController().signal
    summary_text: str | None = None
    details: Any = None
    usage: Usage | None = None
    from_extension = False
    if before_tree is not None:
        preparation = TreePreparation(
            target_id=target_id,
            old_leaf_id=old_leaf,
            common_ancestor_id=collection.common_ancestor_id,
            entries_to_summarize=collection.entries,
            user_wants_summary=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )
        response = await before_tree(BeforeTreeEvent(preparation, signal)) or {}
        if response.get("cancel"):
            return TreeNavigationResult(cancelled=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
        custom_instructions = response.get("customInstructions", custom_instructions)
        replace_instructions = response.get("replaceInstructions", replace_instructions)
        label = response.get("label", label)
        supplied = response.get("summary")
        if summarize and supplied is not None:
            summary_text, details, usage = supplied["summary"], supplied.get("details"), supplied.get("usage")
            from_extension = True
    if summarize and collection.entries and summary_text is None:
        assert model is not None
        key = resolve_api_key(model, api_key)
        if key is None:
            raise ValueError(f"No API key for {model['provider']}")
        generated = await generate_branch_summary(
            collection.entries,
            model,
            api_key=key,
            signal=signal,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            settings=settings,
            complete_fn=complete_fn,
        )
        if generated.aborted:
            return TreeNavigationResult(cancelled=True, aborted=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
        if generated.error is not None:
            raise RuntimeError(generated.error)
        summary_text, details, usage = generated.summary, generated.details(), generated.usage

    new_leaf, editor_text = _navigation_leaf(target)
    result = TreeNavigationResult(editor_text=editor_text, old_leaf_id=old_leaf, from_extension=from_extension)
    if summary_text is not None:
        entry_id = session.branch_with_summary(new_leaf, summary_text, details, from_extension, usage)
        result.summary_entry = cast(BranchSummaryEntry, session.get_entry(entry_id))
        if label:
            session.append_label(entry_id, label)
    else:
        if new_leaf is None:
            session.reset_leaf()
        else:
            session.branch(new_leaf)
        if label:
            session.append_label(target_id, label)
    result.new_leaf_id = session.get_leaf_id()
    if isinstance(details, dict):
        result.details = details
    return result
