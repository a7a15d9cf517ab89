"""``ctx.ui``: dialogs and status for extensions.

``HeadlessUI`` is what print and JSON modes get: every dialog resolves to its documented default
(``None``/``False``), so gates that need a decision fail closed. Interactive and RPC modes provide
their own implementations of ``ExtensionUI``. Dialog ``timeout`` values are in seconds (the RPC
protocol carries milliseconds on the wire).

What a widget shows (lines, a component or a factory of one), what ``custom`` builds and what a
theme is belong to the user interface, so they are ``object`` here. The members are Pi's
``ExtensionUIContext`` in snake_case; ``docs/extensions-ui.md`` describes each one and the
component protocol the factories return (``pi_harness.tui.components.custom``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from pi_harness.ai.abort import AbortSignal

# What ``on_terminal_input`` listeners get (the raw key data) and may answer: ``{"consume": True}``.
TerminalInputHandler = Callable[[str], Mapping[str, object] | None]


class ExtensionUI(Protocol):
    async def select(
        self, title: str, options: list[str], *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> str | None: ...
    async def confirm(
        self, title: str, message: str = "", *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool: ...
    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None: ...
    async def editor(self, title: str, prefill: str | None = None) -> str | None: ...
    def notify(self, message: str, type: str = "info") -> None: ...
    def set_status(self, key: str, text: str | None) -> None: ...
    def set_widget(self, key: str, lines: object, *, placement: str = "aboveEditor") -> None: ...
    def set_working_message(self, text: str | None = None) -> None: ...
    def set_title(self, title: str) -> None: ...
    def set_editor_text(self, text: str) -> None: ...
    def get_editor_text(self) -> str: ...
    def paste_to_editor(self, text: str) -> None: ...
    async def custom(
        self,
        factory: Callable[..., object],
        *,
        overlay: bool = False,
        overlay_options: object = None,
        on_handle: Callable[[object], None] | None = None,
    ) -> object: ...
    def on_terminal_input(self, handler: TerminalInputHandler) -> Callable[[], None]: ...
    def set_working_visible(self, visible: bool) -> None: ...
    def set_working_indicator(self, frames: Sequence[str] | None = None, *, interval_ms: int | None = None) -> None: ...
    def set_hidden_thinking_label(self, label: str | None = None) -> None: ...
    def set_footer(self, factory: Callable[..., object] | None) -> None: ...
    def set_header(self, factory: Callable[..., object] | None) -> None: ...
    def set_editor_component(self, factory: Callable[..., object] | None) -> None: ...
    def get_editor_component(self) -> Callable[..., object] | None: ...
    def add_autocomplete_provider(self, factory: Callable[[object], object]) -> None: ...
    @property
    def theme(self) -> object: ...
    def get_tools_expanded(self) -> bool: ...
    def set_tools_expanded(self, expanded: bool) -> None: ...
    def get_all_themes(self) -> Sequence[Mapping[str, object]]: ...
    def get_theme(self, name: str | None = None) -> object: ...
    # A theme name or the interactive UI's own theme object, a type of the UI layer above this
    # one; ``Any`` because each UI narrows the parameter to what it accepts.
    def set_theme(self, theme: Any) -> Mapping[str, object]: ...


class HeadlessUI:
    """No user interface: dialogs return their defaults, the rest does nothing."""

    async def select(
        self, title: str, options: list[str], *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> str | None:
        return None

    async def confirm(
        self, title: str, message: str = "", *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool:
        return False

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    def notify(self, message: str, type: str = "info") -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: object, *, placement: str = "aboveEditor") -> None:
        return None

    def set_working_message(self, text: str | None = None) -> None:
        return None

    def set_title(self, title: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        return ""

    def paste_to_editor(self, text: str) -> None:
        return None

    async def custom(
        self,
        factory: Callable[..., object],
        *,
        overlay: bool = False,
        overlay_options: object = None,
        on_handle: Callable[[object], None] | None = None,
    ) -> object:
        return None

    def on_terminal_input(self, handler: TerminalInputHandler) -> Callable[[], None]:
        return _nothing

    def set_working_visible(self, visible: bool) -> None:
        return None

    def set_working_indicator(self, frames: Sequence[str] | None = None, *, interval_ms: int | None = None) -> None:
        return None

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        return None

    def set_footer(self, factory: Callable[..., object] | None) -> None:
        return None

    def set_header(self, factory: Callable[..., object] | None) -> None:
        return None

    def set_editor_component(self, factory: Callable[..., object] | None) -> None:
        return None

    def get_editor_component(self) -> Callable[..., object] | None:
        return None

    def add_autocomplete_provider(self, factory: Callable[[object], object]) -> None:
        return None

    @property
    def theme(self) -> object:
        return None

    def get_tools_expanded(self) -> bool:
        return False

    def set_tools_expanded(self, expanded: bool) -> None:
        return None

    def get_all_themes(self) -> Sequence[Mapping[str, object]]:
        return []

    def get_theme(self, name: str | None = None) -> object:
        return None

    def set_theme(self, theme: object) -> Mapping[str, object]:
        return {"success": False, "error": "UI not available"}


def _nothing() -> None:
    return None
