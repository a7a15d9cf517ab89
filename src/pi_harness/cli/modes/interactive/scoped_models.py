"""``/scoped-models``: which models ``app.model.cycleForward`` (Ctrl+P) cycles through, in which order.

Enter toggles the selected model, ``app.models.enableAll``/``clearAll`` select all or none,
``app.models.toggleProvider`` toggles every model of the selected one's provider, and
``reorderUp``/``reorderDown`` move an enabled model in the cycle. Escape applies the scope to
this session; ``app.models.save`` also stores it as ``enabledModels`` in the settings. An empty
scope cycles through every model with credentials.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.model_selector import model_key
from pi_harness.tui.components.selector import SelectItem, Selector

ScopeResult = tuple[list[str], bool]  # enabled model keys in cycle order, and whether to save them


class ScopedModelsView:
    def __init__(
        self,
        models: Sequence[Mapping[str, object]],
        enabled: Sequence[str],
        context: RenderContext,
        *,
        on_done: Callable[[ScopeResult], None],
    ) -> None:
        self.context = context
        self.on_done = on_done
        self.models = {model_key(model): model for model in models}
        self.enabled = [key for key in enabled if key in self.models]
        keys = context.key
        self.selector: Selector[str] = Selector(
            [], context, title="Models to cycle through", max_visible=12, on_select=self._toggle,
            on_cancel=lambda: self.on_done((list(self.enabled), False)), empty_text="No matching models",
            hint=(f"{keys('tui.select.confirm')} toggle · {keys('app.models.enableAll')} all · "
                  f"{keys('app.models.clearAll')} none · {keys('app.models.toggleProvider')} provider · "
                  f"{keys('app.models.reorderUp')}/{keys('app.models.reorderDown')} order · "
                  f"{keys('app.models.save')} save · {keys('tui.select.cancel')} done"),
        )  # fmt: skip
        self.selector.sort_by_score = False
        self._rebuild()

    def _order(self) -> list[str]:
        return [*self.enabled, *(key for key in self.models if key not in self.enabled)]

    def _rebuild(self) -> None:
        items = []
        for key in self._order():
            model = self.models[key]
            position = f"{self.enabled.index(key) + 1}." if key in self.enabled else ""
            items.append(SelectItem(key, str(model.get("id")), f"{model.get('provider')} {position}".rstrip(),
                                    search_text=f"{key} {model.get('name', '')}",
                                    marker="✓" if key in self.enabled else "·"))  # fmt: skip
        self.selector.set_items(items)

    def _toggle(self, key: str) -> None:
        self.selector.chosen = None  # the view stays open
        if key in self.enabled:
            self.enabled.remove(key)
        else:
            self.enabled.append(key)
        self._rebuild()

    def _toggle_provider(self) -> None:
        item = self.selector.selected
        if item is None:
            return
        provider = self.models[item.value].get("provider")
        keys = [key for key, model in self.models.items() if model.get("provider") == provider]
        if all(key in self.enabled for key in keys):
            self.enabled = [key for key in self.enabled if key not in keys]
        else:
            self.enabled += [key for key in keys if key not in self.enabled]

    def _move(self, delta: int) -> None:
        item = self.selector.selected
        if item is None or item.value not in self.enabled:
            return
        index = self.enabled.index(item.value)
        target = index + delta
        if 0 <= target < len(self.enabled):
            self.enabled[index], self.enabled[target] = self.enabled[target], self.enabled[index]

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        if action == "app.models.save":
            self.on_done((list(self.enabled), True))
        elif action == "app.models.enableAll":
            self.enabled = list(self.models)
        elif action == "app.models.clearAll":
            self.enabled = []
        elif action == "app.models.toggleProvider":
            self._toggle_provider()
        elif action in ("app.models.reorderUp", "app.models.reorderDown"):
            self._move(-1 if action.endswith("Up") else 1)
        else:
            return self.selector.handle_action(action)
        self._rebuild()
        return True

    def render(self, width: int) -> list[str]:
        return self.selector.render(width)
