"""``ctx.ui``: dialogs and status for extensions.

``HeadlessUI`` is what print and JSON modes get: every dialog resolves to its documented default
(``None``/``False``), so gates that need a decision fail closed. Interactive and RPC modes provide
their own implementations of ``ExtensionUI``. Dialog ``timeout`` values are in seconds (the RPC
protocol carries milliseconds on the wire).

What a widget shows (lines, a component or a factory of one), what ``custom`` builds and what a
theme is belong to the user interface, so they are ``object`` here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from pi_harness.ai.abort import AbortSignal


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
    async def custom(self, factory: Callable[..., object], **options: object) -> object: ...
    def get_tools_expanded(self) -> bool: ...
    def set_tools_expanded(self, expanded: bool) -> None: ...
    def get_all_themes(self) -> Sequence[Mapping[str, object]]: ...
    def get_theme(self) -> object: ...
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

    async def custom(self, factory: Callable[..., object], **options: object) -> object:
        return None

    def get_tools_expanded(self) -> bool:
        return False

    def set_tools_expanded(self, expanded: bool) -> None:
        return None

    def get_all_themes(self) -> Sequence[Mapping[str, object]]:
        return []

    def get_theme(self) -> object:
        return None

    def set_theme(self, theme: object) -> Mapping[str, object]:
        return {"success": False, "error": "UI not available"}
