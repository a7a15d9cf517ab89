"""``/model`` (Ctrl+L): pick a model among those with credentials; the current one is ticked.

Enter switches the session's model; ``app.model.saveDefault`` (Ctrl+S) also keeps it as the
default for new sessions (seed 20.6.3). The caller passes only models that have credentials.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector


def model_key(model: Mapping[str, object]) -> str:
    return f"{model.get('provider')}/{model.get('id')}"


class ModelSelector:
    def __init__(
        self,
        models: Sequence[Mapping[str, object]],
        context: RenderContext,
        *,
        current: str | None = None,
        on_select: Callable[[Mapping[str, object]], None] | None = None,
        on_save_default: Callable[[Mapping[str, object]], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        max_visible: int = 10,
        title: str = "Select a model",
    ) -> None:
        """``current`` is ``provider/id`` of the session's model."""
        self.context = context
        self.on_save_default = on_save_default
        by_key = {model_key(model): model for model in models}
        items = [
            SelectItem(
                value=key,
                label=str(model.get("id")),
                detail=str(model.get("provider")),
                search_text=f"{key} {model.get('name', '')}",
                marker="✓" if key == current else "",
            )
            for key, model in by_key.items()
        ]
        self._models = by_key
        keys = context.key
        hint = f"{keys('tui.select.confirm')} use · {keys('app.model.saveDefault')} use and save as default · "
        hint += f"{keys('tui.select.cancel')} cancel"

        def chosen(key: str) -> None:
            if on_select is not None:
                on_select(self._models[key])

        self.selector: Selector[str] = Selector(
            items,
            context,
            title=title,
            hint=hint,
            max_visible=max_visible,
            on_select=chosen,
            on_cancel=on_cancel,
            empty_text="No matching models",
            initial=current,
        )
        self.saved: Mapping[str, object] | None = None

    @property
    def done(self) -> bool:
        return self.selector.done or self.saved is not None

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        if action == "app.model.saveDefault":
            item = self.selector.selected
            if item is None:
                return True
            self.saved = self._models[item.value]
            if self.on_save_default is not None:
                self.on_save_default(self.saved)
            self.selector.confirm()
            return True
        return self.selector.handle_action(action)

    def render(self, width: int) -> list[str]:
        return self.selector.render(width)
