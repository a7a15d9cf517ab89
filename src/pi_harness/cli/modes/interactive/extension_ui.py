"""``ctx.ui`` in interactive mode (``docs/extensions.md``): dialogs as overlays over the editor.

Dialogs stack (an extension may ask while a selector is open) and resolve to their documented
defaults on cancel, timeout (seconds; the title counts down) or when the caller's signal fires
(``False`` for confirm, ``None`` otherwise). ``custom(factory)`` shows an extension's own
component (the protocol of ``pi_harness.tui.components.custom``): ``factory(context, done)`` gets
the render context (theme, key table) and a ``done`` callback; ``done(value)`` closes it and
``custom`` returns the value. ``set_widget(key, content)`` takes lines, a component or a factory
``factory(context)`` returning one. ``set_footer``, ``set_header`` and ``set_editor_component``
replace the built-in parts until called with ``None``; ``docs/extensions-ui.md`` has the details.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pi_harness.ai.abort import AbortSignal
from pi_harness.cli.modes.interactive.shell import Overlay, Shell
from pi_harness.tui.components.base import Component
from pi_harness.tui.components.custom import ComponentOverlay, GuardedComponent, OverlayHandle, dispose
from pi_harness.tui.components.dialogs import ConfirmDialog, InputDialog, SelectDialog
from pi_harness.tui.components.footer import FooterData
from pi_harness.tui.theme import Theme, ThemeSpec

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

T = TypeVar("T")
Dialog = ConfirmDialog | SelectDialog | InputDialog


class FooterSource:
    """What an extension's footer reads besides ``ctx``: the git branch, the status entries and
    the built-in footer's figures (``data``: model, tokens, cost, context use)."""

    def __init__(self, shell: Shell) -> None:
        self._shell = shell

    @property
    def git_branch(self) -> str | None:
        return self._shell.footer.data.git_branch

    @property
    def statuses(self) -> dict[str, str]:
        return dict(self._shell.status.entries)

    @property
    def data(self) -> FooterData:
        return self._shell.footer.data


class InteractiveExtensionUI:
    def __init__(self, mode: ModeContext) -> None:
        self._mode = mode
        self._editor_factory: Callable[..., Any] | None = None
        self._builtin_header: Component | None = None

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
        del placeholder  # Pi 1.4.0's input dialog does not show it either
        return await self._dialog(
            lambda done: InputDialog(title, context, on_result=done, timeout=timeout),
            signal,
            None,
        )

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        context = self._shell.context
        return await self._dialog(
            lambda done: InputDialog(title, context, prefill=prefill, multiline=True, on_result=done), None, None
        )

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: object = None,
        on_handle: Callable[[OverlayHandle], None] | None = None,
    ) -> Any:
        shell = self._shell
        context = shell.context
        loop = asyncio.get_running_loop()
        result: asyncio.Future[Any] = loop.create_future()

        shown: ComponentOverlay | None = None

        def done(value: Any) -> None:
            if not result.done():
                result.set_result(value)
            if shown is not None:  # at once: keys already typed after this one go to what is below
                shell.remove_overlay(shown)

        component = factory(context, done)
        if inspect.isawaitable(component):
            component = await component
        shown = ComponentOverlay(component, overlay_options, overlay=overlay)
        if on_handle is not None:
            on_handle(OverlayHandle(shown, lambda: done(None)))
        shell.push_overlay(shown)
        try:
            return await result
        finally:
            shell.remove_overlay(shown)
            shown.dispose()

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
        elif content is not None:
            content = GuardedComponent(content, f"widget {key}")
        previous = self._shell.widgets.get(key)
        if previous is not None and previous is not content:
            dispose(previous)
        self._shell.widgets.set(key, content, placement)
        self._shell.refresh()

    def set_working_message(self, text: str | None = None) -> None:
        self._shell.working.message = text or None
        self._shell.refresh()

    def set_working_visible(self, visible: bool) -> None:
        self._shell.working.visible = bool(visible)
        self._shell.refresh()

    def set_working_indicator(self, frames: Sequence[str] | None = None, *, interval_ms: int | None = None) -> None:
        interval = interval_ms / 1000 if isinstance(interval_ms, int | float) and interval_ms > 0 else None
        self._shell.working.set_indicator(None if frames is None else [str(f) for f in frames], interval)
        self._shell.refresh()

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        context = self._shell.context
        context.hidden_thinking_label = label or None
        context.changed()
        self._shell.refresh()

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        listeners = self._shell.input_listeners
        listeners.append(handler)

        def unsubscribe() -> None:
            if handler in listeners:
                listeners.remove(handler)

        return unsubscribe

    # --- replacing the built-in parts ---------------------------------------------------------------

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        shell = self._shell
        pane = shell.pane
        if pane.footer is not shell.footer:
            dispose(pane.footer)
        if factory is None:
            pane.footer, pane.show_status = shell.footer, True
        else:
            footer = GuardedComponent(factory(shell.context, FooterSource(shell)), "extension footer")
            pane.footer, pane.show_status = footer, False
        shell.refresh()

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        """The block above the conversation; the transcript is drawn again with it."""
        mode, shell = self._mode, self._shell
        current = mode.header
        if self._builtin_header is None:
            self._builtin_header = current
        elif current is not self._builtin_header:
            dispose(current)
        new = self._builtin_header if factory is None else GuardedComponent(factory(shell.context), "extension header")
        mode.header = new
        replaced = current is not None and new is not None and shell.transcript.replace_component(current, new)
        if current is None and new is not None:  # no header yet: the new one goes on top
            shell.transcript.history.insert(0, new)
            replaced = True
        if replaced:
            shell.redraw_all()
        else:
            shell.refresh()

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        shell = self._shell
        pane = shell.pane
        if pane.editor_component is not None:
            dispose(pane.editor_component)
        self._editor_factory = factory
        pane.editor_component = (
            None if factory is None else GuardedComponent(factory(shell.context, shell.editor_view), "extension editor")
        )
        shell.refresh()

    def get_editor_component(self) -> Callable[..., Any] | None:
        return self._editor_factory

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        self._shell.autocomplete.add_provider(factory)

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

    def get_theme(self, name: str | None = None) -> Theme | None:
        """The current theme, or the theme ``name`` loaded without switching to it (None if unknown)."""
        if name is None:
            return self._shell.theme
        if self._mode.themes.get(name) is None:
            return None
        return self._mode.themes.create(name)

    def get_all_themes(self) -> list[dict[str, Any]]:
        registry = self._mode.themes
        return [{"name": name, "path": registry.path_of(name)} for name in registry.names()]

    def set_theme(self, theme: str | ThemeSpec) -> dict[str, Any]:
        """Switch to a theme by name (or a ``ThemeSpec``) for this run; settings are not changed."""
        error = self._mode.apply_theme(theme)
        return {"success": True} if error is None else {"success": False, "error": error}
