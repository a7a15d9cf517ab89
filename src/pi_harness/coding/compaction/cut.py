"""Where to cut the history for compaction.

Walking back from the newest entry, messages are kept until about ``keepRecentTokens`` are
reached; the cut then moves to the next valid cut point so a tool result always stays with the
assistant message that called it. A turn bigger than the budget is split at an assistant
message; its beginning (the "turn prefix") is summarised separately.

The walk looks at what each entry shows the model (``visible``): a response hidden by a
``context_edit`` (a failed attempt omitted by overflow recovery) counts for nothing and is no
cut point. When everything after the cut is such a hidden attempt and its edits, the cut moves
onto the attempt, so the prompt that overflowed becomes the prefix of a split turn and is
summarised instead of being sent again verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pi_harness.coding.compaction.estimate import estimate_tokens
from pi_harness.coding.session_store.context import entry_to_message
from pi_harness.coding.session_store.entries import SessionEntry

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})

# What one entry puts in the model's context (empty for metadata, compactions, hidden entries).
Visible = Sequence[Mapping[str, object]]


@dataclass(frozen=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int  # -1 unless the cut splits a turn
    is_split_turn: bool


def raw_visible(entry: SessionEntry) -> list[Mapping[str, object]]:
    """What ``entry`` shows the model when no ``context_edit`` applies to it."""
    if entry["type"] == "compaction":
        return []
    message = entry_to_message(entry)
    return [message] if message is not None else []


def _has_role(messages: Visible, roles: frozenset[str]) -> bool:
    return any(message.get("role") in roles for message in messages)


def is_valid_cut_point(entry: SessionEntry, visible: Visible | None = None) -> bool:
    """Never a tool result: cutting there would separate it from its call."""
    if entry["type"] == "compaction":
        return False
    return _has_role(raw_visible(entry) if visible is None else visible, _CUT_ROLES)


def is_turn_start(entry: SessionEntry, visible: Visible | None = None) -> bool:
    if entry["type"] == "compaction":
        return False
    return _has_role(raw_visible(entry) if visible is None else visible, _TURN_START_ROLES)


def find_turn_start_index(
    entries: Sequence[SessionEntry], index: int, start: int, visible: Sequence[Visible] | None = None
) -> int:
    """The nearest turn start at or before ``index`` (and not before ``start``), else -1."""
    for i in range(index, start - 1, -1):
        if is_turn_start(entries[i], None if visible is None else visible[i]):
            return i
    return -1


def _hidden(entry: SessionEntry, shown: Visible) -> bool:
    """An entry that would show a message but is hidden by a ``context_edit``."""
    return entry["type"] not in ("context_edit", "compaction") and not shown and bool(raw_visible(entry))


def _only_a_hidden_attempt(entries: Sequence[SessionEntry], visible: Sequence[Visible], start: int, end: int) -> bool:
    """``entries[start:end]`` holds a hidden assistant response and nothing the model still sees.

    An edit that rewrites (rather than hides) an entry outside the suffix means the suffix holds
    more than a recovery's omission, so the cut stays.
    """
    suffix = range(start, end)
    hidden_ids = {entries[i]["id"] for i in suffix if _hidden(entries[i], visible[i])}
    saw_attempt = False
    for i in suffix:
        entry = entries[i]
        if entry["type"] == "compaction":
            return False
        if entry["type"] == "context_edit":
            if entry.get("replacement") is not None and entry.get("targetId") not in hidden_ids:
                return False
            continue
        if visible[i]:
            return False
        if entry["id"] in hidden_ids and _has_role(raw_visible(entry), frozenset({"assistant"})):
            saw_attempt = True
    return saw_attempt


def find_cut_point(
    entries: Sequence[SessionEntry],
    start: int,
    end: int,
    keep_recent_tokens: int,
    visible: Sequence[Visible] | None = None,
) -> CutPoint:
    """Choose the first kept entry within ``entries[start:end]``.

    ``visible[i]`` is what ``entries[i]`` shows the model (context edits applied); by default
    the entries' own messages.
    """
    shown: Sequence[Visible] = visible if visible is not None else [raw_visible(e) for e in entries]
    cut_points = [i for i in range(start, end) if is_valid_cut_point(entries[i], shown[i])]
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]  # budget never reached: keep everything
    accumulated = 0
    exceeded = False
    for i in range(end - 1, start - 1, -1):
        tokens = sum(estimate_tokens(message) for message in shown[i])
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            exceeded = True
            cut = next((candidate for candidate in cut_points if candidate >= i), cut_points[-1])
            break
    if exceeded and _only_a_hidden_attempt(entries, shown, cut + 1, end):
        cut += 1
    chosen = cut
    # Keep what was written just before the cut without reaching the model (model/thinking
    # changes, labels, custom state, hidden entries).
    while cut > start:
        previous = entries[cut - 1]
        if previous["type"] == "compaction" or shown[cut - 1]:
            break
        cut -= 1
    # Split detection looks at the chosen cut point itself, so metadata pulled in above does
    # not make a turn that starts with a user message look split.
    if is_turn_start(entries[chosen], shown[chosen]):
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(entries, chosen, start, shown)
    return CutPoint(cut, turn_start, turn_start != -1)
