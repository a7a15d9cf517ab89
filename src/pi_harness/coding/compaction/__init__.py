"""Compaction, branch summaries and overflow recovery (docs/sessions.md, "Compaction")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.coding.compaction.branch import (
        BranchCollection,
        BranchPreparation,
        BranchSummaryResult,
        collect_entries_for_branch_summary,
        generate_branch_summary,
        prepare_branch_entries,
    )
    from pi_harness.coding.compaction.cut import CutPoint, find_cut_point, find_turn_start_index, is_valid_cut_point
    from pi_harness.coding.compaction.estimate import (
        ContextEstimate,
        ContextUsage,
        calculate_context_tokens,
        context_usage,
        estimate_context_tokens,
        estimate_tokens,
        session_context_usage,
    )
    from pi_harness.coding.compaction.file_ops import FileOperations, format_file_lists
    from pi_harness.coding.compaction.navigate import (
        BeforeTreeEvent,
        BeforeTreeHook,
        BeforeTreeResult,
        ExtensionBranchSummary,
        TreeNavigationResult,
        TreePreparation,
        navigate_tree,
    )
    from pi_harness.coding.compaction.prepare import CompactionPreparation, prepare_compaction
    from pi_harness.coding.compaction.runner import (
        OVERFLOW_RETRY_FAILED,
        BeforeCompactEvent,
        BeforeCompactHook,
        BeforeCompactResult,
        CheckOutcome,
        CompactionError,
        CompactionFailure,
        CompactionRunner,
        ExtensionCompaction,
    )
    from pi_harness.coding.compaction.serialize import serialize_conversation
    from pi_harness.coding.compaction.settings import BranchSummarySettings, CompactionSettings
    from pi_harness.coding.compaction.summarize import (
        SummarizationAborted,
        SummarizationError,
        generate_summary,
        generate_turn_prefix_summary,
        summarize_compaction,
    )
    from pi_harness.coding.compaction.trigger import compaction_reason, should_compact
    from pi_harness.coding.compaction.types import (
        CompactionEndEvent,
        CompactionEvent,
        CompactionReason,
        CompactionResult,
        CompactionStartEvent,
        CompleteFn,
    )

_EXPORTS: dict[str, str] = {
    "BranchCollection": "pi_harness.coding.compaction.branch",
    "BranchPreparation": "pi_harness.coding.compaction.branch",
    "BranchSummaryResult": "pi_harness.coding.compaction.branch",
    "collect_entries_for_branch_summary": "pi_harness.coding.compaction.branch",
    "generate_branch_summary": "pi_harness.coding.compaction.branch",
    "prepare_branch_entries": "pi_harness.coding.compaction.branch",
    "CutPoint": "pi_harness.coding.compaction.cut",
    "find_cut_point": "pi_harness.coding.compaction.cut",
    "find_turn_start_index": "pi_harness.coding.compaction.cut",
    "is_valid_cut_point": "pi_harness.coding.compaction.cut",
    "ContextEstimate": "pi_harness.coding.compaction.estimate",
    "ContextUsage": "pi_harness.coding.compaction.estimate",
    "calculate_context_tokens": "pi_harness.coding.compaction.estimate",
    "context_usage": "pi_harness.coding.compaction.estimate",
    "estimate_context_tokens": "pi_harness.coding.compaction.estimate",
    "estimate_tokens": "pi_harness.coding.compaction.estimate",
    "session_context_usage": "pi_harness.coding.compaction.estimate",
    "FileOperations": "pi_harness.coding.compaction.file_ops",
    "format_file_lists": "pi_harness.coding.compaction.file_ops",
    "BeforeTreeEvent": "pi_harness.coding.compaction.navigate",
    "BeforeTreeHook": "pi_harness.coding.compaction.navigate",
    "BeforeTreeResult": "pi_harness.coding.compaction.navigate",
    "ExtensionBranchSummary": "pi_harness.coding.compaction.navigate",
    "TreeNavigationResult": "pi_harness.coding.compaction.navigate",
    "TreePreparation": "pi_harness.coding.compaction.navigate",
    "navigate_tree": "pi_harness.coding.compaction.navigate",
    "CompactionPreparation": "pi_harness.coding.compaction.prepare",
    "prepare_compaction": "pi_harness.coding.compaction.prepare",
    "OVERFLOW_RETRY_FAILED": "pi_harness.coding.compaction.runner",
    "BeforeCompactEvent": "pi_harness.coding.compaction.runner",
    "BeforeCompactHook": "pi_harness.coding.compaction.runner",
    "BeforeCompactResult": "pi_harness.coding.compaction.runner",
    "CheckOutcome": "pi_harness.coding.compaction.runner",
    "CompactionError": "pi_harness.coding.compaction.runner",
    "CompactionFailure": "pi_harness.coding.compaction.runner",
    "CompactionRunner": "pi_harness.coding.compaction.runner",
    "ExtensionCompaction": "pi_harness.coding.compaction.runner",
    "serialize_conversation": "pi_harness.coding.compaction.serialize",
    "BranchSummarySettings": "pi_harness.coding.compaction.settings",
    "CompactionSettings": "pi_harness.coding.compaction.settings",
    "SummarizationAborted": "pi_harness.coding.compaction.summarize",
    "SummarizationError": "pi_harness.coding.compaction.summarize",
    "generate_summary": "pi_harness.coding.compaction.summarize",
    "generate_turn_prefix_summary": "pi_harness.coding.compaction.summarize",
    "summarize_compaction": "pi_harness.coding.compaction.summarize",
    "compaction_reason": "pi_harness.coding.compaction.trigger",
    "should_compact": "pi_harness.coding.compaction.trigger",
    "CompactionEndEvent": "pi_harness.coding.compaction.types",
    "CompactionEvent": "pi_harness.coding.compaction.types",
    "CompactionReason": "pi_harness.coding.compaction.types",
    "CompactionResult": "pi_harness.coding.compaction.types",
    "CompactionStartEvent": "pi_harness.coding.compaction.types",
    "CompleteFn": "pi_harness.coding.compaction.types",
}

__all__ = [
    "OVERFLOW_RETRY_FAILED",
    "BeforeCompactEvent",
    "BeforeCompactHook",
    "BeforeCompactResult",
    "BeforeTreeEvent",
    "BeforeTreeHook",
    "BeforeTreeResult",
    "BranchCollection",
    "BranchPreparation",
    "BranchSummaryResult",
    "BranchSummarySettings",
    "CheckOutcome",
    "CompactionEndEvent",
    "CompactionError",
    "CompactionEvent",
    "CompactionFailure",
    "CompactionPreparation",
    "CompactionReason",
    "CompactionResult",
    "CompactionRunner",
    "CompactionSettings",
    "CompactionStartEvent",
    "CompleteFn",
    "ContextEstimate",
    "ContextUsage",
    "CutPoint",
    "ExtensionBranchSummary",
    "ExtensionCompaction",
    "FileOperations",
    "SummarizationAborted",
    "SummarizationError",
    "TreeNavigationResult",
    "TreePreparation",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compaction_reason",
    "context_usage",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "find_turn_start_index",
    "format_file_lists",
    "generate_branch_summary",
    "generate_summary",
    "generate_turn_prefix_summary",
    "is_valid_cut_point",
    "navigate_tree",
    "prepare_branch_entries",
    "prepare_compaction",
    "serialize_conversation",
    "session_context_usage",
    "should_compact",
    "summarize_compaction",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
