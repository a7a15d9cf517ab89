"""Compaction, branch summaries and overflow recovery (docs/sessions.md, "Compaction")."""

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
