"""Where to cut the history for compaction.

Walking back from the newest entry, messages are kept until about ``keepRecentTokens`` are
reached; the cut then moves to the next valid cut point so a tool result always stays with the
assistant message that called it. A turn bigger than the budget is split at an assistant
message; its beginning (the "turn prefix") is summarised separately.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_harness.coding.compaction.estimate import estimate_tokens
from pi_harness.coding.session_store.context import stored_message
from pi_harness.coding.session_store.entries import SessionEntry

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})


@dataclass(frozen=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int  # -1 unless the cut splits a turn
    is_split_turn: bool


def _role(entry: SessionEntry) -> object:
    message = stored_message(entry)
    return message.get("role") if message is not None else None


def is_valid_cut_point(entry: SessionEntry) -> bool:
    """Never a tool result: cutting there would separate it from its call."""
    kind = entry["type"]
    if kind in ("branch_summary", "custom_message"):
        return True
    return kind == "message" and _role(entry) in _CUT_ROLES


def is_turn_start(entry: SessionEntry) -> bool:
    kind = entry["type"]
    if kind in ("branch_summary", "custom_message"):
        return True
    return kind == "message" and _role(entry) in _TURN_START_ROLES


def find_turn_start_index(entries: Sequence[SessionEntry], index: int, start: int) -> int:
    """The nearest turn start at or before ``index`` (and not before ``start``), else -1."""
    for i in range(index, start - 1, -1):
        if is_turn_start(entries[i]):
            return i
    return -1


def find_cut_point(entries: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """Choose the first kept entry within ``entries[start:end]``."""
    cut_points = [i for i in range(start, end) if is_valid_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]  # budget never reached: keep everything
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if entry["type"] != "message":
            continue
        accumulated += estimate_tokens(entry["message"])
        if accumulated >= keep_recent_tokens:
            for candidate in cut_points:
                if candidate >= i:
                    cut = candidate
                    break
            break
    chosen = cut
    # Keep metadata written just before the cut (model/thinking changes, labels, custom state).
    while cut > start:
        previous = entries[cut - 1]
        if previous["type"] in ("message", "compaction"):
            break
        cut -= 1
    # Split detection looks at the chosen cut point itself, so metadata pulled in above does
    # not make a turn that starts with a user message look split.
    if _role(entries[chosen]) == "user" and entries[chosen]["type"] == "message":
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(entries, chosen, start)
    return CutPoint(cut, turn_start, turn_start != -1)
