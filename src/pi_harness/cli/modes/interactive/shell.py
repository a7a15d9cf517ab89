"""The screen of interactive mode: every component, the prompt_toolkit view and the overlay stack.

The shell exists before the session does (the trust prompt and the ``--resume`` picker run in
it), so it knows nothing about sessions: keys go to ``dispatch(action)``, typed text to
``type_text`` and pasted text to ``paste_text``, which the interactive mode replaces once the
session runs. Overlays (selectors, dialogs, extension components) stack; the newest is drawn
instead of the editor and receives the keys. ``ask`` shows one and waits for its answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from prompt_toolkit.key_binding import DynamicKeyBindings, KeyBindings, KeyBindingsBase, merge_key_bindings

from pi_harness.cli.modes.interactive.key_order import ACTION_ORDER
from pi_harness.cli.modes.interactive.view_switch import ViewSwitch
from pi_harness.cli.modes.interactive.views import RecordingView, Terminal, View, build_view
from pi_harness.tui.components.autocomplete import Autocomplete, CommandInfo
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.dialogs import ConfirmDialog, InputDialog, SelectDialog, StatusBar, Toasts, Widgets
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.footer import Footer, FooterData, git_branch
from pi_harness.tui.components.notices import Notice, NoticeKind, WorkingIndicator
from pi_harness.tui.components.queue import QueueView
from pi_harness.tui.file_index import FileIndex
from pi_harness.tui.keybindings import KeyMap
from pi_harness.tui.keyboard_protocol import KeyboardProtocol
from pi_harness.tui.pt_input import keyboard_protocol_for
from pi_harness.tui.pt_keys import build_key_bindings
from pi_harness.tui.screen import BottomPane
from pi_harness.tui.theme import Theme
from pi_harness.tui.transcript import Transcript
from pi_harness.tui.ui_settings import UiSettings, screen_capabilities

T = TypeVar("T")
TICK_SECONDS = 0.1
__all__ = ["Overlay", "RecordingView", "Shell", "Terminal"]


class Overlay(Protocol):
    """A selector, dialog or extension component shown instead of the editor."""

    def render(self, width: int) -> list[str]: ...
    def handle_action(self, action: str) -> bool: ...
    def handle_text(self, text: str) -> bool: ...


class LocationFooter(Footer):
    """Only where we are: the footer before a session exists (nothing to count yet)."""

    def render(self, width: int) -> list[str]:
        return super().render(width)[:1]


class Shell:
    def __init__(
        self,
        *,
        theme: Theme,
        keymap: KeyMap,
        ui: UiSettings,
        cwd: str,
        terminal: Terminal | None = None,
    ) -> None:
        self.ui = ui
        self.cwd = cwd
        self.context = RenderContext(
            theme,
            keymap=keymap,
            hide_thinking=ui.hide_thinking_block,
            code_block_indent=ui.code_block_indent,
            output_pad=ui.output_pad,
            mermaid=ui.mermaid,
            show_images=ui.show_images,
            capabilities=screen_capabilities(ui, os.environ),
            image_width_cells=ui.image_width_cells,
            cwd=cwd,
        )
        self.context.run_in_terminal = self.run_outside
        self.editor = Editor(cwd=cwd)
        self.editor_view = EditorView(self.editor, theme, padding_x=ui.editor_padding_x)
        self.footer = Footer(FooterData(cwd=cwd, git_branch=git_branch(cwd)), theme)
        self.queue = QueueView(self.context)
        self.files = FileIndex(cwd)
        # The commands offered after "/" change with the session; the interactive mode sets the source.
        self.command_source: Callable[[], Sequence[CommandInfo]] = tuple
        self.autocomplete = Autocomplete(
            theme, commands=self._commands, files=self.files, max_visible=ui.autocomplete_max_visible
        )
        self.working = WorkingIndicator(self.context)
        self.toasts = Toasts(self.context)
        self.status = StatusBar(self.context)
        self.widgets = Widgets()
        self.pane = BottomPane(
            Transcript(self.context),
            self.editor_view,
            self.footer,
            queue=self.queue,
            autocomplete=self.autocomplete,
            working=self.working,
            toasts=self.toasts,
            status=self.status,
            widgets=self.widgets,
        )
        self.overlays: list[Overlay] = []
        self._waiting: dict[int, tuple[Overlay, asyncio.Future[Any]]] = {}  # overlays shown by ``ask``
        # Replaced by the interactive mode; before it runs only overlays take input.
        self.dispatch: Callable[[str], bool] = self.overlay_action
        self.type_text: Callable[[str], None] = self._type_into_overlay
        self.paste_text: Callable[[str], None] = self._type_into_overlay
        self.unsupported_keys: list[str] = []
        # ``ctx.ui.on_terminal_input`` listeners: raw key data first, before any binding.
        self.input_listeners: list[Callable[[str], object]] = []
        self.base_bindings = self._build_bindings(keymap)
        self.extra_bindings: KeyBindingsBase = KeyBindings()  # extension shortcuts (they win over the table)
        self.bindings = merge_key_bindings(
            [DynamicKeyBindings(lambda: self.base_bindings), DynamicKeyBindings(lambda: self.extra_bindings)]
        )
        self.terminal = terminal or Terminal()
        self._ticker: asyncio.Task[None] | None = None
        self.printed_width: int | None = None  # regular mode: the width the scrollback was printed at
        self.view: View
        self.keyboard: KeyboardProtocol | None = None
        self.attach_view(build_view(ui, self.pane, self.bindings, self.context, self.terminal,
                                    show_hardware_cursor=ui.show_hardware_cursor))  # fmt: skip
        self.switch = ViewSwitch(self)  # ``tuiMode`` changed while running
        self._exit_requested = False  # exit() before the application ran (a signal during startup)
        self.on_tick: list[Callable[[], bool]] = []

    # --- state -------------------------------------------------------------------------------

    @property
    def transcript(self) -> Transcript:
        return self.pane.transcript

    @property
    def keymap(self) -> KeyMap:
        return self.context.keymap

    @property
    def theme(self) -> Theme:
        return self.context.theme

    @property
    def top_overlay(self) -> Overlay | None:
        """The newest overlay that is not hidden (an extension overlay can be hidden through its handle)."""
        shown = [overlay for overlay in self.overlays if not getattr(overlay, "hidden", False)]
        return shown[-1] if shown else None

    @property
    def running(self) -> bool:
        return self.view.app.is_running

    def refresh(self) -> None:
        view = self.view
        if isinstance(view, RecordingView) and not view.app.is_running:
            # Before the screen runs, finished blocks go out while the later ones are rendered.
            view.print_blocks(self.transcript.finished_blocks(view.size()[0]))
        view.refresh()

    def attach_view(self, view: View) -> None:
        """Draw with ``view`` from now on (at the start, and when ``tuiMode`` changes)."""
        self.view = view
        # Shift+Enter and friends: negotiated with the terminal each time the screen runs.
        self.keyboard = keyboard_protocol_for(view.app)
        if isinstance(view, RecordingView):
            view.app.before_render += self._rewrap_after_resize
            view.on_shrink = self._clear_after_shrink

    def _clear_after_shrink(self) -> None:
        """``terminal.clearOnShrink``: the pane got shorter; not under an extension's overlay
        (Pi keeps the rows for overlays)."""
        if self.running and not any(getattr(overlay, "overlay", False) for overlay in self.overlays):
            self.redraw_all()

    def set_clear_on_shrink(self, enabled: bool) -> None:
        self.ui = dataclasses.replace(self.ui, clear_on_shrink=enabled)
        if isinstance(self.view, RecordingView):
            self.view.clear_on_shrink = enabled

    def _commands(self) -> Sequence[CommandInfo]:
        return self.command_source()

    # --- keys --------------------------------------------------------------------------------

    def _build_bindings(self, keymap: KeyMap) -> KeyBindings:
        self.unsupported_keys.clear()
        handlers = {action: functools.partial(self._on_action, action) for action in ACTION_ORDER}
        return build_key_bindings(
            keymap,
            handlers,
            on_text=self._on_text,
            on_paste=self._on_paste,
            unsupported=self.unsupported_keys,
            on_key=self._on_key,
        )

    def set_keymap(self, keymap: KeyMap) -> None:
        """Use another key table (``/reload`` after keybindings.json changed)."""
        self.context.keymap = keymap
        self.base_bindings = self._build_bindings(keymap)
        self.context.changed()
        self.refresh()

    def _on_action(self, action: str) -> bool:
        try:
            return self.dispatch(action)
        except Exception as error:  # a failing action must not take the screen down
            self.notice("error", f"Error: {error}")
            return True

    def _on_key(self, key: str, data: str) -> bool:
        """Raw listeners, then a component that reads keys (the top overlay or an extension's
        editor) see the key first; True when one of them consumed it."""
        try:
            for listener in list(self.input_listeners):
                answer = listener(data)
                if not isinstance(answer, Mapping):
                    continue
                if answer.get("consume"):
                    self.refresh()
                    return True
                replacement = answer.get("data")
                if isinstance(replacement, str) and replacement != data:
                    # Rewritten input is typed as text (a listener mapping keys to characters).
                    self._on_text(replacement)
                    return True
            overlay = self.top_overlay
            target: Any = overlay if overlay is not None else self.pane.editor_component
            reader = getattr(target, "handle_input", None)
            if not callable(reader) or not getattr(target, "reads_keys", True):
                return False
            consumed = reader(key) is not False
        except Exception as error:  # an extension's key handler must not take the screen down
            self.notice("error", f"Error: {error}")
            return True
        if consumed:
            self.refresh()
        return consumed

    def overlay_action(self, action: str) -> bool:
        """Give the key to the top overlay; False when there is none or it declined."""
        overlay = self.top_overlay
        if overlay is None:
            return False
        handled = overlay.handle_action(action)
        if handled:
            self.refresh()
        return handled

    def _on_text(self, text: str) -> None:
        try:
            self.type_text(text)
        except Exception as error:
            self.notice("error", f"Error: {error}")
        self.refresh()

    def _on_paste(self, text: str) -> None:
        try:
            self.paste_text(text)
        except Exception as error:
            self.notice("error", f"Error: {error}")
        self.refresh()

    def _type_into_overlay(self, text: str) -> None:
        overlay = self.top_overlay
        if overlay is not None:
            paste = getattr(overlay, "handle_paste", None)
            if len(text) > 1 and callable(paste):
                paste(text)
            else:
                overlay.handle_text(text)

    # --- overlays ------------------------------------------------------------------------------

    def push_overlay(self, overlay: Overlay) -> None:
        self.overlays.append(overlay)
        self.pane.overlay = overlay
        self.refresh()

    def remove_overlay(self, overlay: Overlay) -> None:
        if overlay in self.overlays:
            self.overlays.remove(overlay)
        self.pane.overlay = self.top_overlay
        self.refresh()

    async def ask(self, build: Callable[[Callable[[T], None]], Overlay]) -> T:
        """Show the overlay ``build(done)`` until it calls ``done(value)``; returns the value."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def done(value: T) -> None:
            if not future.done():
                future.set_result(value)

        overlay = build(done)
        self._waiting[id(overlay)] = (overlay, future)
        self.push_overlay(overlay)
        try:
            return await future
        finally:
            self._waiting.pop(id(overlay), None)
            self.remove_overlay(overlay)

    def close_overlays(self) -> None:
        """Answer every open overlay with its default (quitting must not wait for an unanswered dialog)."""
        for overlay, future in list(self._waiting.values()):
            dismiss = getattr(overlay, "dismiss", None)
            if callable(dismiss):
                dismiss()  # dialogs resolve to False / None themselves
            if not future.done():
                future.set_result(None)

    async def ask_input(
        self, title: str, *, placeholder: str | None = None, prefill: str | None = None, multiline: bool = False
    ) -> str | None:
        """A text field; the text, or None when cancelled."""
        context = self.context

        def build(done: Callable[[str | None], None]) -> Overlay:
            return InputDialog(
                title, context, placeholder=placeholder, prefill=prefill, multiline=multiline, on_result=done
            )

        return await self.ask(build)

    async def ask_confirm(self, title: str, message: str = "") -> bool:
        context = self.context

        def build(done: Callable[[bool], None]) -> Overlay:
            return ConfirmDialog(title, message, context, on_result=done)

        return await self.ask(build)

    async def ask_select(self, title: str, options: Sequence[str]) -> str | None:
        context = self.context

        def build(done: Callable[[str | None], None]) -> Overlay:
            return SelectDialog(title, list(options), context, on_result=done)

        return await self.ask(build)

    # --- output ------------------------------------------------------------------------------

    def notice(self, kind: NoticeKind, text: str) -> None:
        """A line (wrapped) in the transcript: errors, confirmations, command output."""
        self.transcript.add_notice(Notice(kind, text, self.context))
        self.refresh()

    def toast(self, message: str, kind: str = "info") -> None:
        """A short-lived message above the editor."""
        self.toasts.notify(message, kind)
        self.refresh()

    def print_lines(self, lines: list[str]) -> None:
        self.view.print_above(lines)

    def redraw_all(self) -> None:
        """Clear the screen and scrollback and print the whole transcript again at the current width.

        Needed when something changes how printed blocks look (tools expanded, thinking shown,
        theme) or when the conversation itself was replaced (``/tree``, ``/new``, ``/resume``).
        """
        width, _rows = self.view.size()
        # A replaced conversation arrives as finished blocks not yet printed: they belong to the
        # history drawn now, or the next frame would draw them as a screen-high live area whose
        # rows scroll into the scrollback as stale copies.
        self.transcript.take_finished(width)
        self.view.replace_scrollback(self.transcript.render_history(width))
        self.refresh()

    def _rewrap_after_resize(self, _app: object) -> None:
        """Regular mode: the terminal does not re-wrap what we printed at another width (tmux cuts
        the old lines at the new edge), so a width change redraws the scrollback at the new width."""
        width = self.view.size()[0]
        previous, self.printed_width = self.printed_width, width
        if previous is not None and previous != width and self.running:
            asyncio.get_running_loop().call_soon(self.redraw_all)

    def set_theme(self, theme: Theme, *, redraw: bool = True) -> None:
        self.context.set_theme(theme)
        for part in [*self.overlays, *self._ticking_parts()]:  # extension components drop cached rows
            invalidate = getattr(part, "invalidate", None)
            if callable(invalidate):
                invalidate()
        self.editor_view.theme = theme
        self.footer.theme = theme
        self.autocomplete.theme = theme
        if redraw:
            self.redraw_all()

    def apply_ui(self, ui: UiSettings) -> None:
        """Settings that became known later (the project's, once it is trusted)."""
        self.ui = dataclasses.replace(ui, tui_mode=self.ui.tui_mode)  # the screen runs in its mode
        context = self.context
        context.code_block_indent = ui.code_block_indent
        context.mermaid = ui.mermaid
        context.show_images = ui.show_images
        context.set_hide_thinking(ui.hide_thinking_block)
        context.set_output_pad(ui.output_pad)
        context.set_theme(context.theme)  # drops the markdown renderer built with the old indent
        self.editor_view.padding_x = max(0, min(3, ui.editor_padding_x))
        self.autocomplete.max_visible = ui.autocomplete_max_visible
        self.set_clear_on_shrink(ui.clear_on_shrink)

    async def run_outside(self, work: Callable[[], object]) -> object:
        """Run blocking ``work`` (an editor, ``vim``, ``htop`` …) with the terminal to itself; the
        screen is erased first and drawn again afterwards."""
        from prompt_toolkit.application import run_in_terminal

        if not self.running:
            return await asyncio.to_thread(work)
        keyboard = self.keyboard
        if keyboard is not None:
            keyboard.pause()  # the other program gets the terminal's plain keys
        try:
            return await run_in_terminal(work, in_executor=True)
        finally:
            if keyboard is not None:
                keyboard.resume()

    async def suspend(self) -> bool:
        """Ctrl+Z: stop the process (the shell's job control); the screen returns on ``fg``."""
        if not hasattr(signal, "SIGTSTP"):
            return False

        def stop() -> None:
            os.kill(0, signal.SIGTSTP)  # the whole process group, as a shell would

        await self.run_outside(stop)
        return True

    def set_title(self, title: str) -> None:
        self.view.app.output.set_title(title)

    def write_raw(self, sequence: str) -> None:
        """An escape sequence for the terminal itself (not drawn on the screen), sent at once."""
        output = self.view.app.output
        output.write_raw(sequence)
        output.flush()

    # --- running -------------------------------------------------------------------------------

    async def _tick(self) -> None:
        """Spinner frames, dialog countdowns and toast expiry, a few times a second."""
        while True:
            await asyncio.sleep(TICK_SECONDS)
            if self._exit_requested and self.running:
                self.view.exit()
                return
            changed = False
            if self.pane.show_working:
                self.working.tick(TICK_SECONDS)
                changed = True
            for overlay in [*self.overlays, *self._ticking_parts()]:  # timed dialogs count down even when covered
                tick = getattr(overlay, "tick", None)
                if callable(tick) and tick():
                    changed = True
            if self.toasts.prune():
                changed = True
            for callback in list(self.on_tick):
                changed = callback() or changed
            if changed:
                self.refresh()

    def _ticking_parts(self) -> list[object]:
        """An extension's editor, footer and widgets may animate too."""
        pane = self.pane
        parts: list[object] = [pane.footer, *self.widgets.components()]
        if pane.editor_component is not None:
            parts.append(pane.editor_component)
        return parts

    async def run(self) -> Any:
        """Run the screen until ``exit``; the ticker runs alongside. A ``tuiMode`` switch stops
        the view and the next one runs in its place."""
        self._ticker = asyncio.ensure_future(self._tick())
        try:
            while True:
                result = await self._run_view()
                if self.switch.pending is None:
                    return result
                if self._exit_requested:
                    self.switch.abandon()
                    return result
                self.switch.complete()
        finally:
            self._exit_requested = False
            self._ticker.cancel()
            self._ticker = None

    async def _run_view(self) -> Any:
        keyboard = self.keyboard
        if keyboard is not None:
            loop = asyncio.get_running_loop()

            # Pre-run callables run just before raw mode: the query goes out once it is on, or the
            # terminal would echo its answer.
            def start_if_running() -> None:
                if self.running:  # not once the screen stopped again: the answer would be echoed
                    keyboard.start()

            def start_soon() -> None:
                loop.call_soon(start_if_running)

            self.view.app.pre_run_callables.append(start_soon)
        try:
            return await self.view.run()
        finally:
            if keyboard is not None:
                keyboard.stop()

    async def run_until(self, work: Awaitable[T]) -> T:
        """Show the screen while ``work`` runs (the trust question, the ``--resume`` picker), then stop it."""
        # Start below the top-left corner: tmux copies a screen erased from there into its history.
        self.print_lines([""])
        self.pane.footer = LocationFooter(self.footer.data, self.theme)
        job = asyncio.ensure_future(work)
        await asyncio.sleep(0)  # let it put up its overlay, so the first frame already shows it
        screen = asyncio.ensure_future(self.run())
        try:
            await asyncio.wait({screen, job}, return_when=asyncio.FIRST_COMPLETED)
            if not job.done():  # the screen stopped first (it failed, or the input closed)
                job.cancel()
                screen.result()
                raise RuntimeError("the terminal closed before startup finished")
            return job.result()
        finally:
            while not self.running and not screen.done():
                await asyncio.sleep(0.01)
            self.exit(erase=True)
            await asyncio.wait({screen})
            self.pane.footer = self.footer

    def exit(self, *, erase: bool = True) -> None:
        """Stop the screen; ``erase`` removes the bottom pane so the shell prompt follows the transcript."""
        self.view.app.erase_when_done = erase
        if self.switch.pending is not None:  # the view is being replaced: the run loop stops instead
            self._exit_requested = True
            return
        if self.running:
            self.view.exit()
        else:
            self._exit_requested = True
