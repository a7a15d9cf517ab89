"""The submenus of ``/settings``: the theme picker, the per-model thinking levels, the warnings.

Each is shown in place of the settings list until it calls ``done(shown)``; ``shown`` is the new
text of the item's value (``None``: unchanged). Changes are reported as they are made through
``on_change(key, value)``, the same callback the list uses.

The theme picker previews the theme under the cursor (``on_preview``) and restores the theme it
started with when cancelled. Choosing ``automatic`` switches to a light/dark pair, saved as
``"<light>/<dark>"`` (Pi's syntax).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.components.settings_items import thinking_overrides_summary
from pi_harness.tui.theme import SYSTEM_THEME

AUTOMATIC = "/"  # the item that switches to a light/dark pair (no theme name contains "/")
CLEAR_OVERRIDE = "__clear__"

OnChange = Callable[[str, object], None]
Done = Callable[[str | None], None]


def _hint(context: RenderContext, *, searchable: bool = False) -> str:
    keys = context.key
    text = f"{keys('tui.select.confirm')} select · {keys('tui.select.cancel')} back"
    return ("type to filter · " + text) if searchable else text


class _Watched:
    """A ``Selector`` whose cursor moves are reported (the theme preview follows the cursor)."""

    def __init__(self, selector: Selector[str], on_move: Callable[[str], None] | None = None) -> None:
        self.selector = selector
        self.on_move = on_move

    def _after(self, before: str | None) -> None:
        selected = self.selector.selected
        if self.on_move is not None and selected is not None and selected.value != before and not self.selector.done:
            self.on_move(selected.value)

    def handle_action(self, action: str) -> bool:
        before = self.selector.selected.value if self.selector.selected else None
        handled = self.selector.handle_action(action)
        self._after(before)
        return handled

    def handle_text(self, text: str) -> bool:
        before = self.selector.selected.value if self.selector.selected else None
        handled = self.selector.handle_text(text)
        self._after(before)
        return handled

    def render(self, width: int) -> list[str]:
        return self.selector.render(width)


class ThemeSubmenu:
    def __init__(
        self,
        names: Sequence[str],
        current: str,
        context: RenderContext,
        *,
        on_change: OnChange,
        done: Done,
        on_preview: Callable[[str], None] | None = None,
        appearance: str = "dark",
    ) -> None:
        self.names = list(names)
        self.context = context
        self.original = current
        self.on_change = on_change
        self.done = done
        self.preview = on_preview or (lambda _name: None)
        self.appearance = appearance
        light, slash, dark = current.partition("/")
        fallback = SYSTEM_THEME if SYSTEM_THEME in self.names else (self.names[0] if self.names else current)
        if slash and light and dark:
            self.light, self.dark = light, dark
            self.single = light if appearance == "light" else dark
        else:
            self.single = current if current in self.names else fallback
            self.light = self.dark = self.single
        self.view: _Watched
        if slash:
            self._show_automatic()
        else:
            self._show_single()

    @property
    def pair(self) -> str:
        return f"{self.light}/{self.dark}"

    def _theme_items(self, current: str) -> list[SelectItem[str]]:
        return [
            SelectItem(name, name, "your terminal's colours" if name == SYSTEM_THEME else "",
                       marker="✓" if name == current else " ")
            for name in self.names
        ]  # fmt: skip

    def _show_single(self) -> None:
        items = self._theme_items(self.single)
        system = [item for item in items if item.value == SYSTEM_THEME]
        rest = [item for item in items if item.value != SYSTEM_THEME]
        automatic = SelectItem(AUTOMATIC, "automatic", "one theme for a light terminal, one for a dark", marker=" ")
        selector = Selector(
            [*system, automatic, *rest], self.context, title="Theme", initial=self.single, filterable=False,
            hint=_hint(self.context), on_select=self._single_chosen, on_cancel=self._cancel,
        )  # fmt: skip
        self.view = _Watched(selector, lambda value: self.preview(self.pair if value == AUTOMATIC else value))

    def _single_chosen(self, value: str) -> None:
        if value == AUTOMATIC:
            self.preview(self.pair)
            self._show_automatic()
            return
        self.single = value
        self.on_change("theme", value)
        self.done(value)

    def _show_automatic(self, select: str | None = None) -> None:
        items = [
            SelectItem("light", "Light theme", self.light),
            SelectItem("dark", "Dark theme", self.dark),
            SelectItem("apply", "Apply", "save and go back"),
            SelectItem("single", "Change mode", "one theme for every terminal"),
        ]
        selector = Selector(
            items, self.context, title="Automatic theme\nThe terminal's light or dark background picks one",
            filterable=False, hint=_hint(self.context), on_select=self._automatic_chosen, on_cancel=self._cancel,
            initial=select,
        )  # fmt: skip
        self.view = _Watched(selector)

    def _automatic_chosen(self, value: str) -> None:
        if value == "apply":
            self.on_change("theme", self.pair)
            self.done(self.pair)
        elif value == "single":
            self.single = self.light if self.appearance == "light" else self.dark
            self.preview(self.single)
            self._show_single()
        else:
            self._pick_for(value)

    def _pick_for(self, which: str) -> None:
        current = self.light if which == "light" else self.dark

        def chosen(name: str) -> None:
            if which == "light":
                self.light = name
            else:
                self.dark = name
            self.preview(self.pair)
            self._show_automatic(select=which)

        def back() -> None:
            self.preview(self.pair)
            self._show_automatic(select=which)

        selector = Selector(
            self._theme_items(current), self.context, title=f"{which.capitalize()} theme", initial=current,
            filterable=False, hint=_hint(self.context), on_select=chosen, on_cancel=back,
        )  # fmt: skip
        self.view = _Watched(selector, self.preview)

    def _cancel(self) -> None:
        self.preview(self.original)
        self.done(None)

    def handle_action(self, action: str) -> bool:
        return self.view.handle_action(action)

    def handle_text(self, text: str) -> bool:
        return self.view.handle_text(text)

    def render(self, width: int) -> list[str]:
        return self.view.render(width)


@dataclass(frozen=True)
class ModelChoice:
    key: str  # "<provider>/<id>"
    label: str  # "<id> [<provider>]"
    levels: tuple[str, ...]  # the levels the model supports


class ModelThinkingSubmenu:
    """Pick a model, then its level; back to the models after each choice until Escape."""

    def __init__(
        self,
        models: Sequence[ModelChoice],
        overrides: Mapping[str, str],
        context: RenderContext,
        *,
        on_change: OnChange,
        done: Done,
        current_key: str | None = None,
        default_level: str = "medium",
    ) -> None:
        self.models = list(models)
        self.overrides = dict(overrides)
        self.context = context
        self.on_change = on_change
        self.done = done
        self.default_level = default_level
        self.last_key = current_key
        self.view: Selector[str]
        self._show_models()

    def _show_models(self) -> None:
        # The current model first, then by provider (Pi's order).
        ordered = sorted(self.models, key=lambda m: (m.key != self.last_key, m.key.partition("/")[0]))
        items = [SelectItem(m.key, m.label, self.overrides.get(m.key, "")) for m in ordered]
        if not items:
            items = [SelectItem("", "No models available", "sign in to a provider or set an API key first")]
        self.view = Selector(
            items, self.context, title="Thinking level per model", initial=self.last_key,
            hint=_hint(self.context, searchable=True), on_select=self._model_chosen,
            on_cancel=lambda: self.done(thinking_overrides_summary(self.overrides)),
        )  # fmt: skip

    def _model_chosen(self, key: str) -> None:
        model = next((m for m in self.models if m.key == key), None)
        if model is None:
            self.view.chosen = None  # nothing to configure: stay
            return
        self.last_key = key
        active = self.overrides.get(key)
        items = [SelectItem(level, level, marker="✓" if level == active else " ") for level in model.levels]
        if active is not None:
            items.append(SelectItem(CLEAR_OVERRIDE, "(clear override)", f"back to the default ({self.default_level})",
                                    marker=" "))  # fmt: skip
        self.view = Selector(
            items, self.context, title=f"Thinking level for {model.label}", initial=active, filterable=False,
            hint=_hint(self.context), on_select=lambda level: self._level_chosen(key, level),
            on_cancel=self._show_models,
        )  # fmt: skip

    def _level_chosen(self, key: str, level: str) -> None:
        if level == CLEAR_OVERRIDE:
            self.overrides.pop(key, None)
            self.on_change("modelThinkingLevels", (key, None))
        else:
            self.overrides[key] = level
            self.on_change("modelThinkingLevels", (key, level))
        self._show_models()

    def handle_action(self, action: str) -> bool:
        return self.view.handle_action(action)

    def handle_text(self, text: str) -> bool:
        return self.view.handle_text(text)

    def render(self, width: int) -> list[str]:
        return self.view.render(width)


class WarningsSubmenu:
    """One switch per warning (Pi 1.4.0 has one: Anthropic's paid extra usage)."""

    def __init__(self, anthropic_extra_usage: bool, context: RenderContext, *, on_change: OnChange, done: Done) -> None:
        self.context = context
        self.anthropic_extra_usage = anthropic_extra_usage
        self.on_change = on_change
        self.view = Selector(
            self._items(), context, title="Warnings", filterable=False, hint=_hint(context),
            on_select=self._toggle, on_cancel=lambda: done(None),
        )  # fmt: skip

    def _items(self) -> list[SelectItem[str]]:
        shown = "true" if self.anthropic_extra_usage else "false"
        return [SelectItem("anthropicExtraUsage", "Anthropic extra usage", shown,
                           search_text="warn before a subscription sign-in may use paid extra usage")]  # fmt: skip

    def _toggle(self, key: str) -> None:
        self.view.chosen = None  # the list stays open
        self.anthropic_extra_usage = not self.anthropic_extra_usage
        self.on_change(f"warnings.{key}", self.anthropic_extra_usage)
        self.view.set_items(self._items())

    def handle_action(self, action: str) -> bool:
        return self.view.handle_action(action)

    def handle_text(self, text: str) -> bool:
        if text == " ":  # Space changes the value, as in the settings list
            self.view.confirm()
            return True
        return self.view.handle_text(text)

    def render(self, width: int) -> list[str]:
        return self.view.render(width)
