"""Summarising the branch a user leaves in ``/tree``.

The entries between the old leaf and the common ancestor with the navigation target are turned
into messages (tool results left out), newest first until the token budget is used, and
summarised with the branch prompt. The summary starts with a two-line preamble and ends with
the file lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.api import complete_simple
from pi_harness.ai.types import Model, Usage
from pi_harness.coding.compaction import prompts
from pi_harness.coding.compaction.estimate import estimate_tokens
from pi_harness.coding.compaction.file_ops import FileOperations, format_file_lists
from pi_harness.coding.compaction.prepare import summarizable_message
from pi_harness.coding.compaction.serialize import serialize_conversation
from pi_harness.coding.compaction.settings import BranchSummarySettings
from pi_harness.coding.compaction.summarize import SummarizationAborted, SummarizationError, request_summary
from pi_harness.coding.compaction.types import CompleteFn
from pi_harness.coding.message_content import text_parts
from pi_harness.coding.session_store.context import stored_message
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.tree import branch_path, common_ancestor

DEFAULT_CONTEXT_WINDOW = 128_000
_SUMMARY_ENTRY_TYPES = ("compaction", "branch_summary")


@dataclass
class BranchCollection:
    entries: list[SessionEntry]
    common_ancestor_id: str | None


def collect_entries_for_branch_summary(
    by_id: Mapping[str, SessionEntry], old_leaf_id: str | None, target_id: str
) -> BranchCollection:
    """Entries from the old leaf back to (excluding) the common ancestor, oldest first.

    Compaction entries on the way are included: their summaries carry earlier context.
    """
    if old_leaf_id is None:
        return BranchCollection([], None)
    ancestor = common_ancestor(by_id, old_leaf_id, target_id)
    entries: list[SessionEntry] = []
    for entry in reversed(branch_path(by_id, old_leaf_id)):
        if entry["id"] == ancestor:
            break
        entries.append(entry)
    entries.reverse()
    return BranchCollection(entries, ancestor)


@dataclass
class BranchPreparation:
    messages: list[AgentMessage]
    file_ops: FileOperations = field(default_factory=FileOperations)
    total_tokens: int = 0


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int) -> BranchPreparation:
    """Messages to summarise within ``token_budget`` (0 = no limit), newest kept first."""
    preparation = BranchPreparation(messages=[])
    ops = preparation.file_ops
    for entry in entries:
        if entry["type"] == "branch_summary" and not entry.get("fromHook"):
            ops.add_details(entry.get("details"))
    for entry in reversed(entries):
        message = summarizable_message(entry)
        if message is None or message.get("role") == "toolResult":
            continue
        ops.add_tool_calls([message])
        tokens = estimate_tokens(message)
        if token_budget > 0 and preparation.total_tokens + tokens > token_budget:
            # A summary still fits if there is real room left: it carries the older context.
            if entry["type"] in _SUMMARY_ENTRY_TYPES and preparation.total_tokens < token_budget * 0.9:
                preparation.messages.insert(0, message)
                preparation.total_tokens += tokens
            break
        preparation.messages.insert(0, message)
        preparation.total_tokens += tokens
    return preparation


@dataclass
class BranchSummaryResult:
    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    usage: Usage | None = None
    aborted: bool = False
    error: str | None = None

    def details(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}


def branch_instructions(custom_instructions: str | None, replace_instructions: bool) -> str:
    if custom_instructions and replace_instructions:
        return custom_instructions
    return prompts.with_focus(prompts.BRANCH_PROMPT, custom_instructions)


async def generate_branch_summary(
    entries: Sequence[SessionEntry],
    model: Model,
    *,
    api_key: str | None = None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    settings: BranchSummarySettings | None = None,
    complete_fn: CompleteFn = complete_simple,
) -> BranchSummaryResult:
    """Summarise ``entries``; failures come back as ``error``/``aborted``, never raised."""
    settings = settings or BranchSummarySettings()
    budget = int(model.get("contextWindow") or DEFAULT_CONTEXT_WINDOW) - settings.reserve_tokens
    preparation = prepare_branch_entries(entries, max(budget, 0))
    read_files, modified_files = preparation.file_ops.file_lists()
    result = BranchSummaryResult(read_files=read_files, modified_files=modified_files)
    if not preparation.messages:
        result.summary = prompts.NO_CONTENT_TO_SUMMARIZE
        return result
    text = prompts.conversation_block(serialize_conversation(preparation.messages))
    text += branch_instructions(custom_instructions, replace_instructions)
    try:
        output = await request_summary(
            model, text, api_key=api_key, signal=signal, complete_fn=complete_fn, failure_prefix="Summarization failed"
        )
    except SummarizationAborted:
        result.aborted = True
        return result
    except SummarizationError as error:
        result.error = error.detail or "Summarization failed"
        return result
    body = output.text or prompts.NO_SUMMARY_GENERATED
    result.summary = prompts.BRANCH_SUMMARY_PREAMBLE + body + format_file_lists(read_files, modified_files)
    result.usage = output.usage
    return result


def entry_text(entry: SessionEntry) -> str:
    """The text of a user message or custom message entry (for re-editing after navigation)."""
    if entry["type"] == "custom_message":
        content: object = entry.get("content")
    else:
        content = (stored_message(entry) or {}).get("content")
    return "".join(text_parts(content))
