"""``ctx.ui``: dialogs and status for extensions (extensions.md section 7.3).

``HeadlessUI`` is what print and JSON modes get: every dialog resolves to its documented default
(``None``/``False``), so gates that need a decision fail closed. Interactive and RPC modes provide
their own implementations of ``ExtensionUI``. Dialog ``timeout`` values are in seconds (the RPC
protocol carries milliseconds on the wire).
"""

from __future__ import annotations

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
    def set_widget(self, key: str, lines: Any, *, placement: str = "aboveEditor") -> None: ...
    def set_working_message(self, text: str | None = None) -> None: ...
    def set_title(self, title: str) -> None: ...
    def set_editor_text(self, text: str) -> None: ...
    def get_editor_text(self) -> str: ...
    def paste_to_editor(self, text: str) -> None: ...
    async def custom(self, factory: Any, **options: Any) -> Any: ...
    def get_tools_expanded(self) -> bool: ...
    def set_tools_expanded(self, expanded: bool) -> None: ...
    def get_all_themes(self) -> list[Any]: ...
    def get_theme(self) -> Any: ...
    def set_theme(self, theme: Any) -> dict[str, Any]: ...


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

    def set_widget(self, key: str, lines: Any, *, placement: str = "aboveEditor") -> None:
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

    async def custom(self, factory: Any, **options: Any) -> Any:
        return None

    def get_tools_expanded(self) -> bool:
        return False

    def set_tools_expanded(self, expanded: bool) -> None:
        return None

    def get_all_themes(self) -> list[Any]:
        return []

    def get_theme(self) -> Any:
        return None

    def set_theme(self, theme: Any) -> dict[str, Any]:
        return {"success": False, "error": "UI not available"}
