"""``/thinking``: pick a thinking level among those the current model supports.

The current level is ticked and selected, the level of ``defaultThinkingLevel`` is marked
``default``. Typing filters the levels; ``tui.select.confirm`` (Enter) sets the level for this
session, ``app.thinking.save`` (Ctrl+S) also keeps it as ``defaultThinkingLevel``, and
``tui.select.cancel`` closes the list. The hint line names the keys as they are bound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector

TITLE = "Thinking Level"
LEVEL_DESCRIPTIONS: Mapping[str, str] = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning (~1k tokens)",
    "low": "Light reasoning (~2k tokens)",
    "medium": "Moderate reasoning (~8k tokens)",
    "high": "Deep reasoning (~16k tokens)",
    "xhigh": "Extra-high reasoning (~32k tokens)",
    "max": "Maximum reasoning",
}


class ThinkingChoice(NamedTuple):
    level: str
    as_default: bool  # chosen with ``app.thinking.save``: also the default for new sessions


def describe(level: str, default_level: str | None) -> str:
    text = LEVEL_DESCRIPTIONS.get(level, "")
    return f"{text} · default" if level == default_level else text


class ThinkingSelector:
    def __init__(
        self,
        levels: Sequence[str],
        context: RenderContext,
        *,
        current: str | None,
        default_level: str | None,
        on_done: Callable[[ThinkingChoice | None], None],
    ) -> None:
        """``levels``: the model's levels, in order; ``on_done`` gets the choice or ``None``."""
        self.context = context
        self.on_done = on_done
        self.choice: ThinkingChoice | None = None
        items = [
            SelectItem(level, level, describe(level, default_level), marker="✓" if level == current else " ")
            for level in levels
        ]
        self.selector: Selector[str] = Selector(
            items,
            context,
            max_visible=len(items),
            on_select=lambda level: self._finish(level, as_default=False),
            on_cancel=lambda: on_done(None),
            initial=current,
        )

    @property
    def done(self) -> bool:
        return self.selector.done or self.choice is not None

    def _finish(self, level: str, *, as_default: bool) -> None:
        self.choice = ThinkingChoice(level, as_default)
        self.on_done(self.choice)

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        if action == "app.thinking.save":
            item = self.selector.selected
            if item is not None and not self.done:
                self._finish(item.value, as_default=True)
            return True
        return self.selector.handle_action(action)

    def hint(self) -> str:
        keys = self.context.key_display  # capitalised, as Pi's keyDisplayText
        return (
            f"{keys('tui.select.confirm')} to select · {keys('app.thinking.save')} to set as default · "
            f"{keys('tui.select.cancel')} to cancel"
        )

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("borderAccent", "─" * width)
        cycle = f"{self.context.key('app.thinking.cycle')} cycles thinking levels in-session"
        return [
            rule,
            truncate(theme.style(TITLE, "accent", bold=True), width),
            truncate(theme.fg("muted", cycle), width),
            "",
            *self.selector.header_lines(width),
            *self.selector.body_lines(width),
            "",
            truncate(theme.fg("dim", "  " + self.hint()), width),
            rule,
        ]
