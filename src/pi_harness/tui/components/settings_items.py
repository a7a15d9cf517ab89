"""The items of ``/settings``: Pi 1.4.0's list, in its order, with its labels and choices.

Each item names the settings key it writes and turns the choice shown (``"true"``, ``"1 min"``,
``"Always trust"`` …) into the value stored. Three items open a submenu instead of cycling:
``Warnings``, ``Default thinking level per model`` and ``Theme`` (``settings_submenus.py``).
``Show images`` and ``Image width`` are only offered where the terminal shows images inline
(Pi's rule); the interactive mode does not draw images inline, so it lists the other 33.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pi_harness.coding.config.settings_model import (
    CACHE_WARMING,
    DOUBLE_ESCAPE_ACTIONS,
    TREE_FILTER_MODES,
    Settings,
)

SUBMENU_THEME, SUBMENU_WARNINGS, SUBMENU_MODEL_THINKING = "theme", "warnings", "model-thinking"
BOOLEAN = ("true", "false")
HTTP_IDLE_TIMEOUTS: tuple[tuple[str, int], ...] = (
    ("30 sec", 30_000), ("1 min", 60_000), ("2 min", 120_000), ("5 min", 300_000), ("disabled", 0),
)  # fmt: skip
TRUST_LABELS: Mapping[str, str] = {"ask": "Ask", "always": "Always trust", "never": "Never trust"}


@dataclass
class SettingItem:
    id: str  # Pi's item id, e.g. "autocompact"
    label: str
    key: str  # the settings key written, e.g. "compaction.enabled"
    values: tuple[str, ...]  # the choices as shown; empty for a submenu
    current: str
    description: str = ""
    submenu: str | None = None
    parse: Callable[[str], object] = field(default=str, repr=False)  # shown choice -> stored value


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _is_true(shown: str) -> object:
    return shown == "true"


def _quiet(shown: str) -> object:
    return "header" if shown == "header" else shown == "true"


def _trust(shown: str) -> object:
    return next((value for value, label in TRUST_LABELS.items() if label == shown), "ask")


def _idle_timeout(shown: str) -> object:
    return dict(HTTP_IDLE_TIMEOUTS).get(shown, 300_000)


def _wheel(shown: str) -> object:
    return "auto" if shown == "auto" else int(shown)


def format_idle_timeout(ms: int) -> str:
    label = next((label for label, value in HTTP_IDLE_TIMEOUTS if value == ms), None)
    return label if label is not None else f"{ms / 1000:g} sec"


def thinking_overrides_summary(overrides: Mapping[str, str]) -> str:
    return f"{len(overrides)} configured" if overrides else "none"


def setting_items(
    values: Settings,
    *,
    auto_compact: bool | None = None,
    steering_mode: str | None = None,
    follow_up_mode: str | None = None,
    hide_thinking: bool | None = None,
    theme: str | None = None,
    tui_mode: str | None = None,
    supports_images: bool = False,
) -> list[SettingItem]:
    """The items with their current values: from the settings, or from the live session and
    screen where those can differ (auto-compaction, queue modes, hidden thinking, theme, layout)."""
    v = values

    def cycle(id_: str, label: str, key: str, choices: tuple[str, ...], current: str, description: str,
              parse: Callable[[str], object] = str) -> SettingItem:  # fmt: skip
        return SettingItem(id_, label, key, choices, current, description, parse=parse)

    def flag(id_: str, label: str, key: str, current: bool, description: str) -> SettingItem:
        return cycle(id_, label, key, BOOLEAN, _flag(current), description, _is_true)

    def number(id_: str, label: str, key: str, choices: tuple[int, ...], current: int, description: str) -> SettingItem:
        return cycle(id_, label, key, tuple(map(str, choices)), str(current), description, int)

    wheel = v.fullscreen_wheel_scroll_lines
    wheel_choices = ("auto", *map(str, sorted({1, 2, 3, 5, 10} | ({wheel} if isinstance(wheel, int) else set()))))
    overrides = dict(v.model_thinking_levels or {})
    images = [
        flag("show-images", "Show images", "terminal.showImages", v.terminal.show_images,
             "Draw images inside the terminal"),
        number("image-width-cells", "Image width", "terminal.imageWidthCells", (60, 80, 120),
               v.terminal.image_width_cells, "How many terminal columns an inline image takes"),
    ] if supports_images else []  # fmt: skip
    return [
        flag("autocompact", "Auto-compact", "compaction.enabled",
             v.compaction.enabled if auto_compact is None else auto_compact,
             "Summarise older messages when the context window fills up"),
        *images,
        flag("auto-resize-images", "Auto-resize images", "images.autoResize", v.images.auto_resize,
             "Scale big images down to at most 2000x2000 pixels before a model sees them"),
        flag("block-images", "Block images", "images.blockImages", v.images.block_images,
             "Never send images to the model provider"),
        flag("skill-commands", "Skill commands", "enableSkillCommands", v.enable_skill_commands,
             "Offer every skill as a /skill:<name> command"),
        flag("show-hardware-cursor", "Show hardware cursor", "showHardwareCursor", v.show_hardware_cursor,
             "Show the terminal's own cursor in the editor (from the next start)"),
        number("editor-padding", "Editor padding", "editorPaddingX", (0, 1, 2, 3), v.editor_padding_x,
               "Blank columns on each side of the text you type"),
        number("output-padding", "Output padding", "outputPad", (0, 1), v.output_pad,
               "Blank columns on each side of messages and tool output"),
        number("autocomplete-max-visible", "Autocomplete max items", "autocompleteMaxVisible",
               (3, 5, 7, 10, 15, 20), v.autocomplete_max_visible, "Suggestions shown at once below the editor"),
        flag("clear-on-shrink", "Clear on shrink", "terminal.clearOnShrink", v.terminal.clear_on_shrink,
             "Blank the rows left over when the screen content gets shorter"),
        flag("terminal-progress", "Terminal progress", "terminal.showTerminalProgress",
             v.terminal.show_terminal_progress, "Report a working agent to the terminal's tab (OSC 9;4)"),
        cycle("steering-mode", "Steering mode", "steeringMode", ("one-at-a-time", "all"),
              steering_mode or v.steering_mode,
              "Messages sent while the agent works: hand over one per turn, or all together"),
        cycle("follow-up-mode", "Follow-up mode", "followUpMode", ("one-at-a-time", "all"),
              follow_up_mode or v.follow_up_mode,
              "Messages queued for after the agent stops: one per turn, or all together"),
        cycle("transport", "Transport", "transport", ("sse", "websocket", "websocket-cached", "auto"), v.transport,
              "The connection used with providers that offer more than one"),
        cycle("share-destination", "Session share destination", "sessionShareDestination",
              ("auto", "gist", "radius"), v.session_share_destination, "Where /share uploads the session"),
        cycle("http-idle-timeout", "HTTP idle timeout", "httpIdleTimeoutMs",
              tuple(label for label, _ in HTTP_IDLE_TIMEOUTS), format_idle_timeout(v.http_idle_timeout_ms),
              "How long a provider may stay silent before the request fails", _idle_timeout),
        cycle("cache-warming-mode", "Cache warming", "cacheWarming", CACHE_WARMING, v.cache_warming,
              "Keep the provider's prompt cache warm: never, while the agent runs, or also between runs"),
        flag("hide-thinking", "Hide thinking", "hideThinkingBlock",
             v.hide_thinking_block if hide_thinking is None else hide_thinking,
             "Show the model's reasoning as one collapsed line"),
        cycle("mermaid-rendering", "Mermaid diagrams", "markdown.mermaid", ("off", "final", "streaming"),
              v.markdown.mermaid, "Draw mermaid code blocks as text diagrams"),
        flag("cache-miss-notices", "Cache miss notices", "showCacheMissNotices", v.show_cache_miss_notices,
             "Say in the transcript when a response missed the prompt cache"),
        flag("collapse-changelog", "Collapse changelog", "collapseChangelog", v.collapse_changelog,
             "After an update, show a short changelog"),
        cycle("quiet-startup", "Quiet startup", "quietStartup", ("true", "header", "false"),
              "header" if v.quiet_startup == "header" else _flag(v.quiet_startup is True),
              "Print less when starting (header: only the header)", _quiet),
        flag("install-telemetry", "Install telemetry", "enableInstallTelemetry", v.enable_install_telemetry,
             "Send provider attribution headers (no install reports are sent)"),
        cycle("default-project-trust", "Default project trust", "defaultProjectTrust", tuple(TRUST_LABELS.values()),
              TRUST_LABELS.get(v.default_project_trust, "Ask"),
              "What happens in a folder with no saved trust decision", _trust),
        cycle("double-escape-action", "Double-escape action", "doubleEscapeAction", DOUBLE_ESCAPE_ACTIONS,
              v.double_escape_action, "What two presses of Escape open when the editor is empty"),
        cycle("tree-filter-mode", "Tree filter mode", "treeFilterMode", TREE_FILTER_MODES, v.tree_filter_mode,
              "The filter /tree starts with"),
        SettingItem("warnings", "Warnings", "warnings", (), "configure", "Turn single warnings on or off",
                    submenu=SUBMENU_WARNINGS),
        SettingItem("model-thinking", "Default thinking level per model", "modelThinkingLevels", (),
                    thinking_overrides_summary(overrides), "A thinking level of its own for a model",
                    submenu=SUBMENU_MODEL_THINKING),
        cycle("tui-mode", "TUI mode", "tuiMode", ("regular", "fullscreen"), tui_mode or v.tui_mode,
              "Fullscreen, or the terminal's own scrollback (switches at once)"),
        cycle("fullscreen-exit-output", "Fullscreen exit output", "fullscreenExitOutput",
              ("transcript", "resume-hint"), v.fullscreen_exit_output,
              "On leaving fullscreen, print the conversation or only how to resume it"),
        cycle("fullscreen-scrollbar", "Fullscreen scrollbar", "fullscreenScrollbar", ("auto", "always", "hidden"),
              v.fullscreen_scrollbar, "When fullscreen mode draws its scrollbar"),
        flag("fullscreen-copy-on-select", "Fullscreen copy on select", "fullscreenCopyOnSelect",
             v.fullscreen_copy_on_select, "Copy text to the clipboard as soon as it is selected with the mouse"),
        cycle("fullscreen-wheel-scroll-lines", "Fullscreen wheel scrolling", "fullscreenWheelScrollLines",
              wheel_choices, str(wheel), "Lines one mouse-wheel step scrolls (auto: faster on fast spins)", _wheel),
        SettingItem("theme", "Theme", "theme", (), theme or v.theme, "The colours of the interface",
                    submenu=SUBMENU_THEME),
    ]  # fmt: skip
