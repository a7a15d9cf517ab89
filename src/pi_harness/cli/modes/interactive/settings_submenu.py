"""``/settings``: the submenus of the theme, the per-model thinking levels and the warnings,
built from the running session (its themes, models and settings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_harness.ai.thinking import supported_levels
from pi_harness.tui.components.settings_items import (
    SUBMENU_MODEL_THINKING,
    SUBMENU_THEME,
    SUBMENU_WARNINGS,
    SettingItem,
)
from pi_harness.tui.components.settings_submenus import (
    ModelChoice,
    ModelThinkingSubmenu,
    ThemeSubmenu,
    WarningsSubmenu,
)
from pi_harness.tui.components.settings_view import Submenu
from pi_harness.tui.theme_registry import terminal_appearance

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext


def open_settings_submenu(
    mode: ModeContext,
    item: SettingItem,
    change: Callable[[str, object], None],
    done: Callable[[str | None], None],
) -> Submenu | None:
    session = mode.session
    context = mode.shell.context
    values = session.settings.values
    if item.submenu == SUBMENU_THEME:

        def preview(name: str) -> None:
            mode.apply_theme(name)  # an unknown name keeps the theme shown
            mode.shell.refresh()

        return ThemeSubmenu(
            mode.themes.names(), item.current, context, on_change=change, done=done, on_preview=preview,
            appearance=terminal_appearance(),
        )  # fmt: skip
    if item.submenu == SUBMENU_MODEL_THINKING:
        models = [
            ModelChoice(f"{m['provider']}/{m['id']}", f"{m['id']} [{m['provider']}]",
                        tuple(supported_levels(m)) if m.get("reasoning") else ("off",))
            for m in session.model_runtime.get_available()
        ]  # fmt: skip
        model = session.model
        return ModelThinkingSubmenu(
            models, dict(values.model_thinking_levels or {}), context, on_change=change, done=done,
            current_key=f"{model['provider']}/{model['id']}" if model is not None else None,
            default_level=values.default_thinking_level,
        )  # fmt: skip
    if item.submenu == SUBMENU_WARNINGS:
        return WarningsSubmenu(values.warnings.anthropic_extra_usage, context, on_change=change, done=done)
    return None
