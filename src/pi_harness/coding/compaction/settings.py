"""Compaction and branch-summary settings as runtime values.

The settings layer owns the JSON keys (``compaction.enabled``, ``compaction.reserveTokens``,
``compaction.keepRecentTokens``, ``branchSummary.reserveTokens``); ``from_dict`` reads those
objects so callers can pass the merged settings straight through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


@dataclass(frozen=True)
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = DEFAULT_RESERVE_TOKENS
    keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> CompactionSettings:
        """From a ``compaction`` settings object (camelCase keys); missing keys keep defaults."""
        data = data or {}
        enabled = data.get("enabled")
        return cls(
            enabled=enabled if isinstance(enabled, bool) else True,
            reserve_tokens=_int(data.get("reserveTokens"), DEFAULT_RESERVE_TOKENS),
            keep_recent_tokens=_int(data.get("keepRecentTokens"), DEFAULT_KEEP_RECENT_TOKENS),
        )


@dataclass(frozen=True)
class BranchSummarySettings:
    reserve_tokens: int = DEFAULT_RESERVE_TOKENS

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> BranchSummarySettings:
        return cls(reserve_tokens=_int((data or {}).get("reserveTokens"), DEFAULT_RESERVE_TOKENS))
