"""``/model`` (Ctrl+L): pick a model among those with credentials; the current one is ticked.

Enter switches the session's model; ``app.model.saveDefault`` (Ctrl+S) also keeps it as the
default for new sessions (seed 20.6.3). The caller passes only models that have credentials.

Drawn as Pi 1.4.0 draws it: a note (or, with scoped models, the ``Scope: all | scoped`` line
that Tab switches), the search line, up to ten models centred on the selection as
``→ ✓ id [provider] · default``, the selected model's name, and the key hint. The current model
comes first, the default second, the rest by provider.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.list_cursor import centred_rows
from pi_harness.tui.components.selector import SelectItem, Selector
from pi_harness.tui.theme import inverse

MAX_VISIBLE = 10
NO_SCOPE_NOTE = "Only showing models from configured providers. Use /login to add providers."


def model_key(model: Mapping[str, object]) -> str:
    return f"{model.get('provider')}/{model.get('id')}"


class ModelSelector:
    def __init__(
        self,
        models: Sequence[Mapping[str, object]],
        context: RenderContext,
        *,
        current: str | None = None,
        default: str | None = None,
        scoped: Sequence[str] = (),
        on_select: Callable[[Mapping[str, object]], None] | None = None,
        on_save_default: Callable[[Mapping[str, object]], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
    ) -> None:
        """``current``/``default`` are ``provider/id``; ``scoped`` the keys of the scoped models."""
        self.context = context
        self.on_save_default = on_save_default
        self.current = current
        self.default = default
        by_key = {model_key(model): model for model in models}
        rank = {key: (key != current, key != default, str(model.get("provider"))) for key, model in by_key.items()}
        self._models = dict(sorted(by_key.items(), key=lambda pair: rank[pair[0]]))
        self.scoped = [key for key in scoped if key in by_key]
        self.scope = "scoped" if self.scoped else "all"

        def chosen(key: str) -> None:
            if on_select is not None:
                on_select(self._models[key])

        self.selector: Selector[str] = Selector(
            self._items(), context, on_select=chosen, on_cancel=on_cancel, initial=current
        )
        self.saved: Mapping[str, object] | None = None

    def _items(self) -> list[SelectItem[str]]:
        keys = self.scoped if self.scope == "scoped" else list(self._models)
        items = []
        for key in keys:
            model = self._models[key]
            search = f"{model.get('id')} {model.get('provider')} {model.get('name', '')}"
            if key == self.default:
                search += " default"
            items.append(SelectItem(key, str(model.get("id")), str(model.get("provider")), search_text=search))
        return items

    @property
    def done(self) -> bool:
        return self.selector.done or self.saved is not None

    def handle_text(self, text: str) -> bool:
        return self.selector.handle_text(text)

    def handle_action(self, action: str) -> bool:
        if action == "tui.input.tab":
            if self.scoped:
                self.scope = "all" if self.scope == "scoped" else "scoped"
                self.selector.set_items(self._items())
                if self.current is not None:
                    self.selector.select_value(self.current)
            return True
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

    # --- drawing -----------------------------------------------------------------------------

    def _header(self) -> list[str]:
        theme, keys = self.context.theme, self.context.key
        if not self.scoped:
            return [theme.fg("warning", NO_SCOPE_NOTE)]
        names = [theme.fg("accent" if self.scope == name else "muted", name) for name in ("all", "scoped")]
        return [
            theme.fg("muted", "Scope: ") + names[0] + theme.fg("muted", " | ") + names[1],
            theme.fg("dim", keys("tui.input.tab")) + theme.fg("muted", " scope") + theme.fg("muted", " (all/scoped)"),
        ]

    def _list(self) -> list[str]:
        theme, selector = self.context.theme, self.selector
        items, index = selector.filtered, selector.index
        lines = []
        shown = centred_rows(index, len(items), MAX_VISIBLE)
        for position in shown:
            item = items[position]
            chosen = position == index
            cursor = theme.fg("accent", "→ ") if chosen else "  "
            tick = theme.fg("accent", "✓ ") if item.value == self.current else "  "
            name = theme.fg("accent", item.label) if chosen else item.label
            badge = theme.fg("muted", " · default") if item.value == self.default else ""
            lines.append(f"{cursor}{tick}{name} {theme.fg('muted', f'[{item.detail}]')}{badge}")
        if len(shown) < len(items):
            lines.append(theme.fg("muted", f"  ({index + 1}/{len(items)})"))
        selected = selector.selected
        if selected is None:
            lines.append(theme.fg("muted", "  No matching models"))
        else:
            title = self._models[selected.value].get("name") or selected.label
            lines += ["", theme.fg("muted", f"  Model Name: {title}")]
        return lines

    def render(self, width: int) -> list[str]:
        theme, show = self.context.theme, self.context.key_display
        rule = theme.fg("border", "─" * max(1, width))
        search = "> " + self.selector.query + inverse(" ")
        lines = [rule, "", *self._header(), "", search, "", *self._list(), ""]
        if self.on_save_default is not None:
            hint = f"  {show('tui.select.confirm')} to select · {show('app.model.saveDefault')} to set as default · "
            lines.append(theme.fg("dim", hint + f"{show('tui.select.cancel')} to cancel"))
        lines.append(rule)
        return [truncate(line, width) for line in lines]
