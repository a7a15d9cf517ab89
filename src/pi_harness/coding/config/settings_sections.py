"""The nested objects of ``settings.json`` (``compaction``, ``retry``, ``terminal`` …) as sections.

Attributes are snake_case, keys are Pi's camelCase. Defaults are pi-harness's, which are Pi
1.4.0's unless a field notes otherwise; ``docs/settings.md`` lists them all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal, TypeAlias

from pi_harness.ai.types import THINKING_LEVELS, ThinkingLevel
from pi_harness.coding.config.settings_rules import AMOUNT, COUNT, FLAG, POSITIVE, TEXT, Choice, MapOf
from pi_harness.coding.config.settings_schema import Section, SectionRule, optional, section, setting

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000

AutoOrBool: TypeAlias = bool | Literal["auto"]
ImageProtocol: TypeAlias = Literal["kitty", "iterm2", "auto", False]
MermaidMode: TypeAlias = Literal["off", "final", "streaming"]
CodemodeMode: TypeAlias = Literal["on", "only"]

_AUTO_OR_BOOL: tuple[AutoOrBool, ...] = (True, False, "auto")
_IMAGE_PROTOCOLS: tuple[ImageProtocol, ...] = ("kitty", "iterm2", "auto", False)
_MERMAID_MODES: tuple[MermaidMode, ...] = ("off", "final", "streaming")
_CODEMODE_MODES: tuple[CodemodeMode, ...] = ("on", "only")


@dataclasses.dataclass(frozen=True)
class CompactionTokenOverride(Section):
    """One entry of ``compaction.modelOverrides`` (Pi's): token values for one ``provider/id``,
    each replacing the ordinary setting when it is set; ``enabled`` stays global there."""

    reserve_tokens: int | None = optional(COUNT, "reserveTokens")
    keep_recent_tokens: int | None = optional(COUNT, "keepRecentTokens")


@dataclasses.dataclass(frozen=True)
class CompactionOverride(CompactionTokenOverride):
    """``modelSettings.<provider/id>.compaction`` (pi-harness's): the token values and ``enabled``."""

    enabled: bool | None = optional(FLAG, "enabled")


@dataclasses.dataclass(frozen=True)
class CompactionSettings(Section):
    """``compaction``; also the settings a compaction runs with (see ``with_override``)."""

    enabled: bool = setting(True, FLAG, "enabled", listed=True)
    # Compact once the context leaves fewer than this many tokens of the model's window free.
    reserve_tokens: int = setting(DEFAULT_RESERVE_TOKENS, COUNT, "reserveTokens", listed=True)
    # How much recent conversation survives verbatim after the summary.
    keep_recent_tokens: int = setting(DEFAULT_KEEP_RECENT_TOKENS, COUNT, "keepRecentTokens", listed=True)
    skip_prompt: bool = setting(
        True,
        FLAG,
        "skipPrompt",
        listed=True,
        status="not-implemented",
        note="a key of earlier Pi versions, kept so that their files round-trip",
    )
    # Resolved by ``Settings.compaction_for``: wins over ``modelSettings.<provider/id>.compaction``.
    model_overrides: Mapping[str, CompactionTokenOverride] | None = optional(
        MapOf(SectionRule(CompactionTokenOverride), "an object of compaction token settings by provider/model"),
        "modelOverrides",
        note="reserveTokens and keepRecentTokens per exact provider/modelId",
    )

    def with_override(self, override: CompactionTokenOverride) -> CompactionSettings:
        """These settings with the values ``override`` sets."""
        changes = {f.name: getattr(override, f.name) for f in dataclasses.fields(override)}
        return dataclasses.replace(self, **{name: value for name, value in changes.items() if value is not None})


@dataclasses.dataclass(frozen=True)
class BranchSummarySettings(Section):
    """``branchSummary``: summarising the branch left in ``/tree``."""

    reserve_tokens: int = setting(DEFAULT_RESERVE_TOKENS, COUNT, "reserveTokens", listed=True)
    skip_prompt: bool = setting(False, FLAG, "skipPrompt", listed=True)


@dataclasses.dataclass(frozen=True)
class ProviderRetrySettings(Section):
    """``retry.provider``: retries inside one HTTP request (off by default, as in Pi)."""

    max_retries: int = setting(0, COUNT, "maxRetries", listed=True)
    # A server asking (Retry-After) to wait longer than this fails the request at once.
    max_retry_delay_ms: int = setting(60_000, COUNT, "maxRetryDelayMs", listed=True)
    # How long one attempt waits for the response's status and headers; unset: httpIdleTimeoutMs.
    timeout_ms: int | None = optional(
        COUNT, "timeoutMs", note="the wait for a response's headers; unset or 0: httpIdleTimeoutMs bounds it"
    )


@dataclasses.dataclass(frozen=True)
class RetrySettings(Section):
    """``retry``: running a turn again after a transient provider error."""

    enabled: bool = setting(True, FLAG, "enabled", listed=True)
    max_retries: int = setting(3, COUNT, "maxRetries", listed=True)
    base_delay_ms: int = setting(2000, COUNT, "baseDelayMs", listed=True)  # doubled on every attempt
    max_agent_delay_ms: int = setting(60_000, COUNT, "maxAgentDelayMs", listed=True)
    provider: ProviderRetrySettings = section(ProviderRetrySettings, "provider")


@dataclasses.dataclass(frozen=True)
class ImageSettings(Section):
    """``images``: what happens to images before they reach a model."""

    auto_resize: bool = setting(True, FLAG, "autoResize", listed=True)  # fit into 2000×2000 px
    block_images: bool = setting(False, FLAG, "blockImages", listed=True)


@dataclasses.dataclass(frozen=True)
class TerminalSettings(Section):
    """``terminal``: what the interactive UI asks of the terminal."""

    show_images: bool = setting(True, FLAG, "showImages", listed=True)
    clear_on_shrink: bool = setting(False, FLAG, "clearOnShrink", listed=True)
    image_width_cells: int = setting(60, POSITIVE, "imageWidthCells")  # inline images, at most this wide
    show_terminal_progress: bool = setting(False, FLAG, "showTerminalProgress")  # OSC 9;4 while working
    hyperlinks: AutoOrBool = setting("auto", Choice(_AUTO_OR_BOOL), "hyperlinks")  # OSC 8 links (regular mode)
    images: ImageProtocol = setting("auto", Choice(_IMAGE_PROTOCOLS), "images")  # inline images (regular mode)
    true_color: AutoOrBool = setting("auto", Choice(_AUTO_OR_BOOL), "trueColor")  # 24-bit colour unless detected


@dataclasses.dataclass(frozen=True)
class MarkdownSettings(Section):
    """``markdown``: how messages are rendered."""

    code_block_indent: str = setting("  ", TEXT, "codeBlockIndent", listed=True)
    mermaid: MermaidMode = setting("streaming", Choice(_MERMAID_MODES), "mermaid")


@dataclasses.dataclass(frozen=True)
class CodemodeSettings(Section):
    """``codemode``: the ``codemode`` tool of Pi's ``builtin:codemode`` extension."""

    mode: CodemodeMode = setting("on", Choice(_CODEMODE_MODES), "mode", note="the builtin:codemode extension")
    inline_budget: int = setting(3000, COUNT, "inlineBudget", note="the builtin:codemode extension")


@dataclasses.dataclass(frozen=True)
class WarningSettings(Section):
    """``warnings``: warnings that can be turned off."""

    anthropic_extra_usage: bool = setting(
        True,
        FLAG,
        "anthropicExtraUsage",
        note="the interactive mode's warning about paid extra usage with Claude subscription credentials",
    )


@dataclasses.dataclass(frozen=True)
class SessionFileSettings(Section):
    """``sessions`` (beyond Pi): durability of session files."""

    fsync: bool = setting(False, FLAG, "fsync", listed=True, status="beyond-pi")
    lock: bool = setting(False, FLAG, "lock", listed=True, status="beyond-pi")


@dataclasses.dataclass(frozen=True)
class ToolSettings(Section):
    """``tools`` (beyond Pi)."""

    # Kill processes a bash call left behind outside its process group (Linux).
    reap_orphans: bool = setting(False, FLAG, "reapOrphans", listed=True, status="beyond-pi")
    # Refuse an edit (a write) of a file that changed on disk since the model last read it.
    stale_edit_check: bool = setting(True, FLAG, "staleEditCheck", status="beyond-pi")
    stale_write_check: bool = setting(False, FLAG, "staleWriteCheck", status="beyond-pi")


@dataclasses.dataclass(frozen=True)
class StartupSettings(Section):
    """``startup`` (beyond Pi)."""

    # Record a print/JSON run's first request so that the next run of the same command sends it
    # before its session has loaded (``cli/early_request``).
    early_request: bool = setting(True, FLAG, "earlyRequest", status="beyond-pi")


@dataclasses.dataclass(frozen=True)
class SecuritySettings(Section):
    """``security`` (beyond Pi)."""

    # Replace the values of configured credentials in tool results and exports.
    mask_secrets: bool = setting(True, FLAG, "maskSecrets", status="beyond-pi")


@dataclasses.dataclass(frozen=True)
class RunLimits(Section):
    """``agent`` (beyond Pi): budgets that end a run; unset means unlimited."""

    max_turns: int | None = optional(COUNT, "maxTurns", status="beyond-pi")
    max_total_tokens: int | None = optional(COUNT, "maxTotalTokens", status="beyond-pi")
    max_cost: float | None = optional(AMOUNT, "maxCost", status="beyond-pi")  # USD


@dataclasses.dataclass(frozen=True)
class ModelSettings(Section):
    """One entry of ``modelSettings``, keyed by ``provider/id``."""

    thinking_level: ThinkingLevel | None = optional(Choice(THINKING_LEVELS), "thinkingLevel")
    compaction: CompactionOverride = section(CompactionOverride, "compaction")
