"""The typed settings model: every key of Pi 1.4.0's settings reference and pi-harness's own.

``SettingsManager.values`` is a ``Settings`` parsed from the effective (merged) settings; read a
setting through attributes, ``settings.values.compaction.reserve_tokens``. Attribute names are the
snake_case of Pi's camelCase keys. A value of the wrong type or out of range yields the default
(or the clamped value) and a warning; keys the model does not know stay in the raw settings.

``DEFAULTS`` (the defaults merged under the files, listed by ``pi config``) is derived from the
fields declared ``listed=True``; ``docs/settings.md`` describes every key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias

from pi_harness.agent.options import QueueMode, Transport
from pi_harness.ai.options import DEFAULT_THINKING_BUDGETS
from pi_harness.ai.types import THINKING_LEVELS, ThinkingLevel
from pi_harness.coding.config.settings_rules import (
    COUNT,
    FLAG,
    NAME,
    PATH_LIST,
    POSITIVE,
    RAW_OBJECT,
    TEXT,
    TEXT_LIST,
    Choice,
    Clamped,
    Either,
    JsonObject,
    JsonValue,
    MapOf,
    PackageList,
    ReadContext,
    Rule,
    SettingsDiagnostic,
)
from pi_harness.coding.config.settings_schema import (
    DeclaredSetting,
    Section,
    SectionRule,
    declared_settings,
    info_of,
    listed_defaults,
    optional,
    read_section,
    rule_for_key,
    section,
    setting,
)
from pi_harness.coding.config.settings_sections import (
    BranchSummarySettings,
    CodemodeSettings,
    CompactionSettings,
    ImageSettings,
    MarkdownSettings,
    ModelSettings,
    RetrySettings,
    RunLimits,
    SecuritySettings,
    SessionFileSettings,
    StartupSettings,
    TerminalSettings,
    ToolSettings,
    WarningSettings,
)
from pi_harness.coding.config.trust import TrustSetting

CacheWarming: TypeAlias = Literal["off", "streaming", "idle"]
DoubleEscapeAction: TypeAlias = Literal["tree", "fork", "none"]
TreeFilterMode: TypeAlias = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
QuietStartup: TypeAlias = bool | Literal["header"]
TuiMode: TypeAlias = Literal["regular", "fullscreen"]
FullscreenExitOutput: TypeAlias = Literal["transcript", "resume-hint"]
FullscreenScrollbar: TypeAlias = Literal["auto", "always", "hidden"]
WheelScrollLines: TypeAlias = Literal["auto"] | int
OutputPad: TypeAlias = Literal[0, 1]
ShareDestination: TypeAlias = Literal["auto", "gist", "radius"]

QUEUE_MODES: tuple[QueueMode, ...] = ("all", "one-at-a-time")
TRANSPORTS: tuple[Transport, ...] = ("auto", "sse", "websocket", "websocket-cached")
TRUST_SETTINGS: tuple[TrustSetting, ...] = ("ask", "always", "never")
CACHE_WARMING: tuple[CacheWarming, ...] = ("off", "streaming", "idle")
DOUBLE_ESCAPE_ACTIONS: tuple[DoubleEscapeAction, ...] = ("tree", "fork", "none")
TREE_FILTER_MODES: tuple[TreeFilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
_QUIET_STARTUP: tuple[QuietStartup, ...] = (True, False, "header")
_TUI_MODES: tuple[TuiMode, ...] = ("regular", "fullscreen")
_EXIT_OUTPUTS: tuple[FullscreenExitOutput, ...] = ("transcript", "resume-hint")
_SCROLLBARS: tuple[FullscreenScrollbar, ...] = ("auto", "always", "hidden")
_AUTO: tuple[Literal["auto"], ...] = ("auto",)
_OUTPUT_PADS: tuple[OutputPad, ...] = (0, 1)
_SHARE_DESTINATIONS: tuple[ShareDestination, ...] = ("auto", "gist", "radius")

_FULLSCREEN = "the fullscreen interactive mode"
_CHANGELOG = "the changelog shown after an update"

_BUDGETS: Mapping[str, int] = MappingProxyType(dict(DEFAULT_THINKING_BUDGETS))
_WHEEL_LINES: Rule[WheelScrollLines] = Either(Choice(_AUTO), Clamped(1, 100))


@dataclasses.dataclass(frozen=True)
class Settings(Section):
    """All settings, grouped as in Pi's reference."""

    # -- models and thinking --------------------------------------------------------------------
    default_provider: str | None = optional(TEXT, "defaultProvider")
    default_model: str | None = optional(TEXT, "defaultModel")
    default_thinking_level: ThinkingLevel = setting(
        "medium", Choice(THINKING_LEVELS), "defaultThinkingLevel", listed=True
    )
    model_thinking_levels: Mapping[str, ThinkingLevel] | None = optional(
        MapOf(Choice(THINKING_LEVELS), "an object of thinking levels by provider/model"),
        "modelThinkingLevels",
        note="wins over modelSettings.<provider/id>.thinkingLevel",
    )
    # Budgets for providers that take a token budget instead of an effort level; a bad entry
    # keeps the built-in budget of its level.
    thinking_budgets: Mapping[str, int] = setting(
        _BUDGETS, MapOf(COUNT, "an object of token budgets", _BUDGETS), "thinkingBudgets", listed=True
    )
    enabled_models: tuple[str, ...] | None = optional(TEXT_LIST, "enabledModels")
    hide_thinking_block: bool = setting(False, FLAG, "hideThinkingBlock", listed=True)
    show_cache_miss_notices: bool = setting(False, FLAG, "showCacheMissNotices", listed=True)
    # Read from the global file only, as Pi reads it (cache_warming.py).
    cache_warming: CacheWarming = setting(
        "streaming", Choice(CACHE_WARMING), "cacheWarming", listed=True, global_only=True
    )
    model_settings: Mapping[str, ModelSettings] | None = optional(
        MapOf(SectionRule(ModelSettings), "an object of settings by provider/model"),
        "modelSettings",
        status="beyond-pi",
        note="Pi 1.4.0's modelThinkingLevels and compaction.modelOverrides win over it",
    )

    # -- interaction ----------------------------------------------------------------------------
    steering_mode: QueueMode = setting("one-at-a-time", Choice(QUEUE_MODES), "steeringMode", listed=True)
    follow_up_mode: QueueMode = setting("one-at-a-time", Choice(QUEUE_MODES), "followUpMode", listed=True)
    external_editor: str | None = optional(
        TEXT, "externalEditor", note="Ctrl+G's command; wins over $VISUAL and $EDITOR"
    )
    double_escape_action: DoubleEscapeAction = setting(
        "tree", Choice(DOUBLE_ESCAPE_ACTIONS), "doubleEscapeAction", listed=True
    )
    tree_filter_mode: TreeFilterMode = setting("default", Choice(TREE_FILTER_MODES), "treeFilterMode", listed=True)
    default_project_trust: TrustSetting = setting(
        "ask", Choice(TRUST_SETTINGS), "defaultProjectTrust", listed=True, global_only=True
    )

    # -- tools ----------------------------------------------------------------------------------
    default_tools: tuple[str, ...] | None = optional(TEXT_LIST, "defaultTools")
    codemode: CodemodeSettings = section(CodemodeSettings, "codemode")

    # -- sessions and context -------------------------------------------------------------------
    # Resolved against the file that sets it: SettingsManager.resolve_path_setting("sessionDir").
    session_dir: str | None = optional(TEXT, "sessionDir")
    session_share_destination: ShareDestination = setting(
        "auto", Choice(_SHARE_DESTINATIONS), "sessionShareDestination", note="/share: gist only; radius refused"
    )
    compaction: CompactionSettings = section(CompactionSettings, "compaction")
    branch_summary: BranchSummarySettings = section(BranchSummarySettings, "branchSummary")

    # -- terminal and display -------------------------------------------------------------------
    # Without a theme in a settings file the interactive mode matches the terminal's background,
    # which is what Pi's default "system" means; "dark" is what the effective settings show.
    theme: str = setting("dark", NAME, "theme", listed=True, pi_default='"system"')
    quiet_startup: QuietStartup = setting(
        False,
        Choice(_QUIET_STARTUP),
        "quietStartup",
        listed=True,
        note='"header" keeps the header and leaves out the lists of loaded resources',
    )
    tui_mode: TuiMode = setting("fullscreen", Choice(_TUI_MODES), "tuiMode")
    fullscreen_exit_output: FullscreenExitOutput = setting(
        "transcript",
        Choice(_EXIT_OUTPUTS),
        "fullscreenExitOutput",
        note='"resume-hint": only the "To resume this session" line',
    )
    fullscreen_scrollbar: FullscreenScrollbar = setting("auto", Choice(_SCROLLBARS), "fullscreenScrollbar")
    fullscreen_copy_on_select: bool = setting(True, FLAG, "fullscreenCopyOnSelect")
    fullscreen_wheel_scroll_lines: WheelScrollLines = setting(
        "auto", _WHEEL_LINES, "fullscreenWheelScrollLines", note='"auto" moves 3 lines per wheel event'
    )
    editor_padding_x: int = setting(0, Clamped(0, 3), "editorPaddingX", listed=True)
    output_pad: OutputPad = setting(1, Choice(_OUTPUT_PADS), "outputPad")
    autocomplete_max_visible: int = setting(5, Clamped(3, 20), "autocompleteMaxVisible", listed=True)
    show_hardware_cursor: bool = setting(False, FLAG, "showHardwareCursor", listed=True)
    terminal: TerminalSettings = section(TerminalSettings, "terminal")
    images: ImageSettings = section(ImageSettings, "images")
    markdown: MarkdownSettings = section(MarkdownSettings, "markdown")

    # -- network and retries --------------------------------------------------------------------
    transport: Transport = setting(
        "auto",
        Choice(TRANSPORTS),
        "transport",
        listed=True,
        note="how `openai-codex-responses` requests travel: `sse`, or a WebSocket first (`websocket`; "
        "`websocket-cached` and `auto` also send only the new input on a kept connection), falling "
        "back to SSE when it fails; the other APIs always use SSE",
    )
    http_proxy: str | None = optional(TEXT, "httpProxy", global_only=True)
    http_idle_timeout_ms: int = setting(300_000, COUNT, "httpIdleTimeoutMs", listed=True)
    websocket_connect_timeout_ms: int = setting(15_000, COUNT, "websocketConnectTimeoutMs", listed=True)
    retry: RetrySettings = section(RetrySettings, "retry")

    # -- shell ----------------------------------------------------------------------------------
    # Resolved against the file that sets it: SettingsManager.resolve_path_setting("shellPath").
    shell_path: str | None = optional(TEXT, "shellPath")
    shell_command_prefix: str | None = optional(TEXT, "shellCommandPrefix")
    npm_command: tuple[str, ...] | None = optional(TEXT_LIST, "npmCommand")

    # -- resources ------------------------------------------------------------------------------
    # The merged values; loading combines the files' lists: SettingsManager.path_entries(key).
    packages: tuple[str | JsonObject, ...] = setting((), PackageList(), "packages", listed=True)
    # Beyond Pi: npm lifecycle scripts and pip source builds stay off unless this is true.
    allow_package_scripts: bool = setting(False, FLAG, "allowPackageScripts", global_only=True, status="beyond-pi")
    extensions: tuple[str, ...] = setting((), PATH_LIST, "extensions", listed=True)
    skills: tuple[str, ...] = setting((), PATH_LIST, "skills", listed=True)
    prompts: tuple[str, ...] = setting((), PATH_LIST, "prompts", listed=True)
    themes: tuple[str, ...] = setting((), PATH_LIST, "themes", listed=True)
    enable_skill_commands: bool = setting(True, FLAG, "enableSkillCommands", listed=True)

    # -- updates, telemetry and warnings --------------------------------------------------------
    collapse_changelog: bool = setting(
        False, FLAG, "collapseChangelog", listed=True, note=_CHANGELOG
    )
    enable_install_telemetry: bool = setting(
        True, FLAG, "enableInstallTelemetry", listed=True, note="provider attribution headers; no install reports"
    )
    enable_analytics: bool = setting(
        False, FLAG, "enableAnalytics", status="not-implemented", note="Pi's first-run setup"
    )
    warnings: WarningSettings = section(WarningSettings, "warnings")
    last_changelog_version: str | None = optional(
        TEXT,
        "lastChangelogVersion",
        note="the version whose changelog was last seen; written at startup",
    )

    # -- beyond Pi ------------------------------------------------------------------------------
    sessions: SessionFileSettings = section(SessionFileSettings, "sessions", status="beyond-pi")
    tools: ToolSettings = section(ToolSettings, "tools", status="beyond-pi")
    startup: StartupSettings = section(StartupSettings, "startup", status="beyond-pi")
    security: SecuritySettings = section(SecuritySettings, "security", status="beyond-pi")
    agent: RunLimits = section(RunLimits, "agent", status="beyond-pi")
    # Milliseconds an async extension handler may run. The top-level key is the spelling Pi
    # leaves alone; inside "extensions" it needs the object form {"paths": [...], ...}.
    extension_handler_timeout_ms: int | None = optional(
        POSITIVE, "extensionHandlerTimeoutMs", aliases=("extensions.handlerTimeoutMs",), status="beyond-pi"
    )
    # Checked by the builtin:llama.cpp extension, which reports problems with its contents.
    local_models: JsonObject | None = optional(RAW_OBJECT, "localModels", status="beyond-pi")

    # -- per-model values -----------------------------------------------------------------------

    def model_entry(self, model_key: str | None) -> ModelSettings:
        """``modelSettings["<provider>/<id>"]``, empty when there is none."""
        entry = (self.model_settings or {}).get(model_key) if model_key is not None else None
        return entry if entry is not None else ModelSettings()

    def thinking_level_for(self, model_key: str | None) -> ThinkingLevel | None:
        """The model's own default thinking level: Pi's ``modelThinkingLevels["<provider>/<id>"]``,
        else ``modelSettings["<provider>/<id>"].thinkingLevel``."""
        if model_key is None:
            return None
        level = (self.model_thinking_levels or {}).get(model_key)
        return level if level is not None else self.model_entry(model_key).thinking_level

    def compaction_for(self, model_key: str | None) -> CompactionSettings:
        """``compaction`` for one model: each token value from Pi's
        ``compaction.modelOverrides["<provider>/<id>"]``, else ``modelSettings["<provider>/<id>"].compaction``,
        else the ordinary setting; ``enabled`` only from ``modelSettings``."""
        resolved = self.compaction.with_override(self.model_entry(model_key).compaction)
        pi_override = (self.compaction.model_overrides or {}).get(model_key) if model_key is not None else None
        return resolved.with_override(pi_override) if pi_override is not None else resolved


def parse_settings(
    data: Mapping[str, object], locate: Callable[[str], str] | None = None
) -> tuple[Settings, list[SettingsDiagnostic]]:
    """The model of an effective settings object, and a warning for every value it could not use
    as it is. ``locate(key)`` names the file a key's value came from (default ``settings``)."""
    ctx = ReadContext("")
    values = read_section(Settings, data, ctx)
    where = locate or (lambda _key: "settings")
    return values, [SettingsDiagnostic(where(key), message, "warning", key) for key, message in ctx.warnings]


def default_settings_json() -> dict[str, JsonValue]:
    """The listed defaults as a fresh JSON object (what ``DEFAULTS`` holds)."""
    return listed_defaults(Settings)


def global_only_keys() -> frozenset[str]:
    return frozenset(info_of(f).key for f in dataclasses.fields(Settings) if info_of(f).global_only)


def setting_rule(key: str) -> Rule[object] | None:
    """The rule that checks a dotted key, or ``None`` for a key the model does not know."""
    return rule_for_key(Settings, key)


def all_settings() -> Iterator[DeclaredSetting]:
    """Every leaf setting, dotted key first."""
    return declared_settings(Settings)
