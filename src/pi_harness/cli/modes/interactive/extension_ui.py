"""``ctx.ui`` in interactive mode (``docs/extensions.md``): dialogs as overlays over the editor.

Dialogs stack (an extension may ask while a selector is open) and resolve to their documented
defaults on cancel, timeout (seconds; the title counts down) or when the caller's signal fires
(``False`` for confirm, ``None`` otherwise). ``custom(factory)`` shows an extension's own
component: ``factory(context, done)`` gets the render context (theme, key table) and a ``done``
callback, and returns an object with ``render(width)`` and optionally ``handle_action(action)``
and ``handle_text(text)``; ``done(value)`` closes it and ``custom`` returns the value.
``set_widget(key, content)`` takes lines, a component (``render(width)``) or a factory
``factory(context)`` returning one. ``set_footer``, ``set_header`` and ``set_editor_component``
are not offered: the footer, header and editor are pi-harness's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pi_harness.ai.abort import AbortSignal
from pi_harness.cli.modes.interactive.shell import Overlay, Shell
from pi_harness.tui.components.dialogs import ConfirmDialog, InputDialog, SelectDialog
from pi_harness.tui.theme import Theme, ThemeSpec

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

T = TypeVar("T")
Dialog = ConfirmDialog | SelectDialog | InputDialog


class _CustomOverlay:
    """An extension component as an overlay: keys it does not declare are ignored."""

    def __init__(self, component: Any) -> None:
        self.component = component

    def render(self, width: int) -> list[str]:
        return [str(line) for line in self.component.render(width)]

    def handle_action(self, action: str) -> bool:
        handler = getattr(self.component, "handle_action", None)
        return bool(handler(action)) if callable(handler) else False

    def handle_text(self, text: str) -> bool:
        handler = getattr(self.component, "handle_text", None)
        return bool(handler(text)) if callable(handler) else False

    def tick(self) -> bool:
        handler = getattr(self.component, "tick", None)
        return bool(handler()) if callable(handler) else False


class InteractiveExtensionUI:
    def __init__(self, mode: ModeContext) -> None:
        self._mode = mode

    @property
    def _shell(self) -> Shell:
        return self._mode.shell

    async def _dialog(
        self, build: Callable[[Callable[[T], None]], Dialog], signal: AbortSignal | None, default: T
    ) -> T:
        if signal is not None and signal.aborted:
            return default
        shown: list[Dialog] = []

        def make(done: Callable[[T], None]) -> Overlay:
            dialog = build(done)
            shown.append(dialog)
            return dialog

        def dismiss(_reason: Any) -> None:
            for dialog in shown:
                dialog.dismiss()

        if signal is not None:
            signal.add_listener(dismiss)
        try:
            return await self._shell.ask(make)
        finally:
            if signal is not None:
                signal.remove_listener(dismiss)

    # --- dialogs -------------------------------------------------------------------------------

    async def select(
        self, title: str, options: list[str], *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> str | None:
        context = self._shell.context
        return await self._dialog(
            lambda done: SelectDialog(title, list(options), context, on_result=done, timeout=timeout), signal, None
        )

    async def confirm(
        self, title: str, message: str = "", *, signal: AbortSignal | None = None, timeout: float | None = None
    ) -> bool:
        context = self._shell.context
        return await self._dialog(
            lambda done: ConfirmDialog(title, message, context, on_result=done, timeout=timeout), signal, False
        )

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> str | None:
        context = self._shell.context
        return await self._dialog(
            lambda done: InputDialog(title, context, placeholder=placeholder, on_result=done, timeout=timeout),
            signal,
            None,
        )

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        context = self._shell.context
        return await self._dialog(
            lambda done: InputDialog(title, context, prefill=prefill, multiline=True, on_result=done), None, None
        )

    async def custom(self, factory: Any, **options: Any) -> Any:
        context = self._shell.context
        return await self._shell.ask(lambda done: _CustomOverlay(factory(context, done)))

    # --- status around the editor ----------------------------------------------------------------

    def notify(self, message: str, type: str = "info") -> None:
        self._shell.toast(message, type)

    def set_status(self, key: str, text: str | None) -> None:
        self._shell.status.set(key, text)
        self._shell.refresh()

    def set_widget(self, key: str, lines: Any, *, placement: str = "aboveEditor") -> None:
        content: Any = lines
        if callable(lines) and not hasattr(lines, "render"):
            content = lines(self._shell.context)  # a factory of a component
        if isinstance(content, str):
            content = [content]
        elif isinstance(content, Sequence):
            content = [str(line) for line in content]
        self._shell.widgets.set(key, content, placement)
        self._shell.refresh()

    def set_working_message(self, text: str | None = None) -> None:
        self._shell.working.message = text or None
        self._shell.refresh()

    def set_title(self, title: str) -> None:
        self._shell.set_title(title)

    # --- the editor ------------------------------------------------------------------------------

    def set_editor_text(self, text: str) -> None:
        self._shell.editor.set_text(text)
        self._shell.refresh()

    def get_editor_text(self) -> str:
        return self._shell.editor.text

    def paste_to_editor(self, text: str) -> None:
        self._shell.editor.paste(text)
        self._shell.refresh()

    # --- display state ---------------------------------------------------------------------------

    def get_tools_expanded(self) -> bool:
        return self._shell.context.expand_tools

    def set_tools_expanded(self, expanded: bool) -> None:
        self._mode.set_tools_expanded(expanded)

    @property
    def theme(self) -> Theme:
        return self._shell.theme

    def get_theme(self) -> Theme:
        return self._shell.theme

    def get_all_themes(self) -> list[dict[str, Any]]:
        registry = self._mode.themes
        return [{"name": name, "path": registry.path_of(name)} for name in registry.names()]

    def set_theme(self, theme: str | ThemeSpec) -> dict[str, Any]:
        """Switch to a theme by name (or a ``ThemeSpec``) for this run; settings are not changed."""
        error = self._mode.apply_theme(theme)
        return {"success": True} if error is None else {"success": False, "error": error}
