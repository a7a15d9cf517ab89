"""The two views the shell can draw with, built from the settings: regular and fullscreen.

Both take the same bottom pane, key bindings and terminal; which one runs follows ``tuiMode``
(``--tui-mode`` for one run), and ``view_switch.py`` replaces one with the other while pi runs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindingsBase
from prompt_toolkit.output import Output

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenOptions, FullscreenView
from pi_harness.cli.modes.interactive.scrollback_print import print_while_rendering
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.pt_view import TerminalView
from pi_harness.tui.screen import BottomPane
from pi_harness.tui.ui_settings import UiSettings

PRINTED_LINES_KEPT = 50_000


@dataclass
class Terminal:
    """Where the screen reads keys and writes output (the process's terminal when ``None``)."""

    input: Input | None = None
    output: Output | None = None


class RecordingView(TerminalView):
    """A ``TerminalView`` that remembers what it printed into the scrollback (for ``/debug`` and tests)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.printed: deque[str] = deque(maxlen=PRINTED_LINES_KEPT)

    def print_above(self, lines: list[str]) -> None:
        self.printed.extend(lines)
        super().print_above(lines)

    def print_blocks(self, blocks: Iterable[list[str]]) -> None:
        """Print blocks rendered one by one as ``blocks`` is iterated; before the screen runs
        (a resumed conversation) a thread writes them meanwhile (``scrollback_print``)."""
        if self.app.is_running:
            for lines in blocks:
                self.print_above(lines)
            return

        def recorded() -> Iterator[list[str]]:
            for lines in blocks:
                self.printed.extend(lines)
                yield lines

        self._write(self._take_pending())
        print_while_rendering(recorded(), self._write)

    def replace_scrollback(self, lines: list[str]) -> None:
        self.printed.clear()
        super().replace_scrollback(lines)


View = RecordingView | FullscreenView


def fullscreen_options(ui: UiSettings) -> FullscreenOptions:
    return FullscreenOptions(
        scrollbar=ui.fullscreen_scrollbar,
        exit_output=ui.fullscreen_exit_output,
        copy_on_select=ui.fullscreen_copy_on_select,
        wheel_lines=ui.fullscreen_wheel_scroll_lines,
    )


def build_view(
    ui: UiSettings,
    pane: BottomPane,
    bindings: KeyBindingsBase,
    context: RenderContext,
    terminal: Terminal,
    *,
    show_hardware_cursor: bool,
) -> View:
    if ui.tui_mode == "fullscreen":
        return FullscreenView(
            pane,
            bindings,
            context=context,
            options=fullscreen_options(ui),
            input=terminal.input,
            output=terminal.output,
            show_hardware_cursor=show_hardware_cursor,
        )
    return RecordingView(
        pane,
        bindings,
        input=terminal.input,
        output=terminal.output,
        show_hardware_cursor=show_hardware_cursor,
        clear_on_shrink=ui.clear_on_shrink,
    )
