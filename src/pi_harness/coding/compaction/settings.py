"""The compaction and branch-summary settings a compaction runs with.

They are the ``compaction`` and ``branchSummary`` sections of the settings model, so the JSON
keys, defaults and checks live in one place (``coding/config/settings_sections.py``). A session
passes ``settings.values.compaction_for(model_key)`` (``compaction`` with the model's
``compaction.modelOverrides`` and ``modelSettings`` values over it); ``from_dict`` reads a
``compaction`` JSON object directly.
"""

from __future__ import annotations

from pi_harness.coding.config.settings_sections import (
    DEFAULT_KEEP_RECENT_TOKENS,
    DEFAULT_RESERVE_TOKENS,
    BranchSummarySettings,
    CompactionSettings,
)

__all__ = ["DEFAULT_KEEP_RECENT_TOKENS", "DEFAULT_RESERVE_TOKENS", "BranchSummarySettings", "CompactionSettings"]
