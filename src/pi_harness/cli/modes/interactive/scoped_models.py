"""``/scoped-models``: which models ``app.model.cycleForward`` (Ctrl+P) cycles through, in which order.

As in Pi 1.4.0, no scope means every model is enabled (all ticked, "all enabled"). Enter toggles
the selected model, ``app.models.enableAll``/``clearAll`` enable or clear every model (those
matching the search while one is typed), ``app.models.toggleProvider`` toggles every model of
the selected one's provider, and ``reorderUp``/``reorderDown`` move an enabled model in the
cycle. As in Pi, each change applies to this session at once (``on_change``);
``app.models.save`` stores the scope as ``enabledModels`` in the settings (``on_save``) and the
view stays open; Escape closes it. Enabling every model again returns to no scope.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pi_harness.tui.ansi import truncate, wrap
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.list_cursor import centred_rows
from pi_harness.tui.components.model_selector import model_key
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.theme import inverse

# The enabled model keys in cycle order ([]: every model).
ScopeKeys = list[str]
MAX_VISIBLE = 8


class ScopedModelsView:
    def __init__(
        self,
        models: Sequence[Mapping[str, object]],
        enabled: Sequence[str],
        context: RenderContext,
        *,
        on_change: Callable[[ScopeKeys], None],
        on_save: Callable[[ScopeKeys], None],
        on_done: Callable[[None], None],
    ) -> None:
        self.context = context
        self.on_change = on_change
        self.on_save = on_save
        self.on_done = on_done
        self.models = {model_key(model): model for model in models}
        kept = [key for key in enabled if key in self.models]
        self.enabled: list[str] | None = self._normalized(kept) if kept else None  # None: every model
        self.dirty = False
        self.selector: Selector[str] = Selector(
            [], context, on_select=self._toggle, on_cancel=lambda: self.on_done(None)
        )
        self.selector.sort_by_score = False
        self._rebuild()

    def _normalized(self, keys: list[str]) -> list[str] | None:
        return None if set(keys) == set(self.models) else keys

    def _is_enabled(self, key: str) -> bool:
        return self.enabled is None or key in self.enabled

    def _order(self) -> list[str]:
        if self.enabled is None:
            return list(self.models)
        return [*self.enabled, *(key for key in self.models if key not in self.enabled)]

    def _rebuild(self) -> None:
        """New rows; the cursor stays on its row (Pi's), not on the model that may have moved."""
        position = self.selector.index
        items = []
        for key in self._order():
            model = self.models[key]
            search = f"{model.get('id')} {model.get('provider')} {model.get('name', '')}"
            items.append(SelectItem(key, str(model.get("id")), str(model.get("provider")), search_text=search))
        self.selector.set_items(items)
        self.selector.index = min(position, max(0, len(self.selector.filtered) - 1))

    def _toggle(self, key: str) -> None:
        self.selector.chosen = None  # the view stays open
        if self.enabled is None:
            self.enabled = [other for other in self.models if other != key]
        elif key in self.enabled:
            self.enabled.remove(key)
        else:
            self.enabled = self._normalized([*self.enabled, key])
        self._changed()

    def _changed(self) -> None:
        self.dirty = True
        self._rebuild()
        self.on_change(list(self.enabled or []))

    def _targets(self) -> list[str] | None:
        """The models matching the search while one is typed, else None (every model)."""
        return [item.value for item in self.selector.filtered] if self.selector.query else None

    def _enable(self, targets: list[str] | None) -> None:
        if self.enabled is not None:
            self.enabled = self._normalized(
                [*self.enabled, *(key for key in targets or self.models if key not in self.enabled)]
            )

    def _clear(self, targets: list[str] | None) -> None:
        if self.enabled is None:
            self.enabled = [key for key in self.models if targets is not None and key not in targets]
        else:
            self.enabled = [key for key in self.enabled if targets is not None and key not in targets]

    def _toggle_provider(self) -> None:
        item = self.selector.selected
        if item is None:
            return
        provider = self.models[item.value].get("provider")
        keys = [key for key, model in self.models.items() if model.get("provider") == provider]
        if all(self._is_enabled(key) for key in keys):
            self._clear(keys)
        else:
            self._enable(keys)

    def _move(self, delta: int) -> None:
        item = self.selector.selected
        if self.enabled is None or item is None or item.value not in self.enabled:
            return
        index = self.enabled.index(item.value)
        target = index + delta
        if 0 <= target < len(self.enabled):
            self.enabled[index], self.enabled[target] = self.enabled[target], self.enabled[index]
            self.selector.index += delta  # the cursor moves with the model

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        if action == "app.models.save":
            self.on_save(list(self.enabled or []))
            self.dirty = False
            return True
        if action == "app.models.enableAll":
            self._enable(self._targets())
        elif action == "app.models.clearAll":
            self._clear(self._targets())
        elif action == "app.models.toggleProvider":
            self._toggle_provider()
        elif action in ("app.models.reorderUp", "app.models.reorderDown"):
            self._move(-1 if action.endswith("Up") else 1)
        else:
            return self.selector.handle_action(action)
        self._changed()
        return True

    # --- drawing -----------------------------------------------------------------------------

    def _list(self) -> list[str]:
        theme, selector = self.context.theme, self.selector
        items, index = selector.filtered, selector.index
        if not items:
            return [theme.fg("muted", "  No matching models")]
        lines = []
        shown = centred_rows(index, len(items), MAX_VISIBLE)
        for position in shown:
            item = items[position]
            chosen = position == index
            cursor = theme.fg("accent", "→ ") if chosen else "  "
            tick = theme.fg("accent", "✓ ") if self._is_enabled(item.value) else "  "
            name = theme.fg("accent", item.label) if chosen else item.label
            lines.append(f"{cursor}{tick}{name}{theme.fg('muted', f' [{item.detail}]')}")
        if len(shown) < len(items):
            lines.append(theme.fg("muted", f"  ({index + 1}/{len(items)})"))
        selected = self.models[items[index].value]
        lines += ["", theme.fg("muted", f"  Model Name: {selected.get('name') or selected.get('id')}")]
        return lines

    def _hint(self) -> str:
        show = self.context.key_display
        count = "all enabled" if self.enabled is None else f"{len(self.enabled)}/{len(self.models)} enabled"
        parts = [
            f"{show('tui.select.confirm')} toggle", f"{show('app.models.enableAll')} all",
            f"{show('app.models.clearAll')} clear", f"{show('app.models.toggleProvider')} provider",
            f"{show('app.models.reorderUp')}/{show('app.models.reorderDown')} reorder",
            f"{show('app.models.save')} save", count,
        ]  # fmt: skip
        theme = self.context.theme
        text = theme.fg("dim", "  " + " · ".join(parts))
        return text + theme.fg("dim", " ") + theme.fg("warning", "(unsaved)") if self.dirty else text

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("border", "─" * max(1, width))
        note = f"Session-only. {self.context.key_display('app.models.save')} to save to settings."
        lines = [
            rule, "", theme.style("Model Configuration", "accent", bold=True), theme.fg("muted", note), "",
            "> " + self.selector.query + inverse(" "), "", *self._list(), "",
        ]  # fmt: skip
        return [*(truncate(line, width) for line in lines), *wrap(self._hint(), width), rule]
