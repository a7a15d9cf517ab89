"""Extension components on the screen: the component protocol, overlays and their handles.

An extension's component is any object with ``render(width) -> list[str]`` (the rows, ANSI styles
allowed; rows wider than ``width`` are cut). Optional members, looked up when needed:

* ``handle_input(key)``: the key in the key table's notation (``"up"``, ``"enter"``, ``"a"``,
  ``"ctrl+c"``). Returning ``False`` passes the key on (to the built-in handling of that key);
  any other value (``None`` included) consumes it;
* ``invalidate()``: called when the theme or the display state changed, so cached rows go;
* ``tick()``: called about ten times a second; returning True redraws (animations, games);
* ``dispose()``: called once when the component is taken off the screen.

Older components answering ``handle_action(action)`` / ``handle_text(text)`` (key-table actions
and typed text) keep working. ``OverlayOptions`` place a component shown with
``ctx.ui.custom(..., overlay=True)``; an ``OverlayHandle`` hides, shows or closes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pi_harness.tui.ansi import truncate


def call_optional(component: object, name: str, *args: object) -> object:
    """``component.name(*args)`` when the component has it; ``None`` otherwise."""
    method = getattr(component, name, None)
    return method(*args) if callable(method) else None


def dispose(component: object) -> None:
    call_optional(component, "dispose")


@dataclass
class OverlayOptions:
    """Where an overlay sits: ``width`` in cells or ``"50%"``, ``anchor`` ``left|center|right``,
    ``max_height`` in rows, ``margin`` cells kept free on each side."""

    width: int | str | None = None
    anchor: str = "center"
    max_height: int | None = None
    margin: int = 0

    @classmethod
    def from_value(cls, value: object) -> OverlayOptions:
        if isinstance(value, OverlayOptions):
            return value
        if not isinstance(value, Mapping):
            return cls()
        width = value.get("width")
        max_height = value.get("max_height", value.get("maxHeight"))
        margin = value.get("margin", 0)
        return cls(
            width=width if isinstance(width, int | str) else None,
            anchor=str(value.get("anchor", "center")),
            max_height=max_height if isinstance(max_height, int) else None,
            margin=margin if isinstance(margin, int) else 0,
        )

    def inner_width(self, width: int) -> int:
        available = max(1, width - 2 * max(0, self.margin))
        wanted = self.width
        if isinstance(wanted, str) and wanted.endswith("%"):
            try:
                return max(1, min(available, int(available * float(wanted[:-1]) / 100)))
            except ValueError:
                return available
        if isinstance(wanted, int) and wanted > 0:
            return min(available, wanted)
        return available

    def place(self, rows: list[str], width: int) -> list[str]:
        inner = self.inner_width(width)
        if self.max_height is not None:
            rows = rows[: max(0, self.max_height)]
        free = max(0, width - inner)
        left = {"left": min(self.margin, free), "right": max(0, free - self.margin)}.get(self.anchor, free // 2)
        placed = []
        for row in rows:
            cut = truncate(row, inner)
            placed.append(" " * left + cut if left else cut)
        return placed


class OverlayHandle:
    """What ``on_handle`` receives: hide, show or close the overlay from outside."""

    def __init__(self, overlay: ComponentOverlay, close: Callable[[], None]) -> None:
        self._overlay = overlay
        self._close = close

    def hide(self) -> None:
        self._overlay.hidden = True

    def show(self) -> None:
        self._overlay.hidden = False

    def set_hidden(self, hidden: bool) -> None:
        self._overlay.hidden = hidden

    def is_hidden(self) -> bool:
        return self._overlay.hidden

    def close(self) -> None:
        self._close()


class ComponentOverlay:
    """An extension component shown instead of the editor (or, as an overlay, placed by options)."""

    def __init__(self, component: object, options: object = None, *, overlay: bool = False) -> None:
        self.component = component
        self.overlay = overlay
        # A callable gives fresh options at every frame (an overlay that follows the terminal size).
        self._options = options
        self.hidden = False

    @property
    def options(self) -> OverlayOptions:
        value = self._options() if callable(self._options) else self._options
        return OverlayOptions.from_value(value)

    def render(self, width: int) -> list[str]:
        if self.hidden:
            return []
        options = self.options if self.overlay else OverlayOptions()
        inner = options.inner_width(width)
        rows = self.component.render(inner)  # type: ignore[attr-defined]  # the protocol's one required member
        return options.place([str(row) for row in rows], width)

    @property
    def reads_keys(self) -> bool:
        return callable(getattr(self.component, "handle_input", None))

    def handle_input(self, key: str) -> bool:
        return call_optional(self.component, "handle_input", key) is not False

    def handle_action(self, action: str) -> bool:
        return bool(call_optional(self.component, "handle_action", action))

    def handle_text(self, text: str) -> bool:
        return bool(call_optional(self.component, "handle_text", text))

    def tick(self) -> bool:
        return bool(call_optional(self.component, "tick"))

    def invalidate(self) -> None:
        call_optional(self.component, "invalidate")

    def dispose(self) -> None:
        dispose(self.component)


class GuardedComponent:
    """An extension's footer, header, editor or widget: a failing ``render`` draws one error row
    instead of taking the screen down; every other member is the component's own."""

    def __init__(self, component: object, label: str) -> None:
        self.component = component
        self.label = label

    def __getattr__(self, name: str) -> object:
        return getattr(self.component, name)

    def render(self, width: int) -> list[str]:
        try:
            rows = self.component.render(width)  # type: ignore[attr-defined]  # the protocol's one required member
            return [truncate(str(row), width) for row in rows]
        except Exception as error:  # the extension's bug, shown where its component would be
            return [truncate(f"[{self.label} failed: {error}]", width)]
