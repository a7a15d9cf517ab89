"""Fullscreen mode (Pi's default): the application owns the whole terminal (alternate screen).

The editor, status and footer are pinned at the bottom; above them the transcript scrolls
inside the application (keys, mouse wheel, a scrollbar) and can be searched and selected with
the mouse. Nothing goes into the terminal's scrollback while it runs; on exit the transcript is
written there once (``fullscreenExitOutput: "transcript"``), so the conversation stays readable
after quitting. The class offers what the shell needs from ``TerminalView`` (``refresh``,
``flush``, ``printed``, ``run``, ``exit``), so the rest of the interactive mode does not care
which mode runs.

Links stay OSC 8 hyperlinks in the grid (``links``, ``link_output``) and kitty images are placed
over each painted frame (``kitty``), as in Pi's fullscreen mode.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_session
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindingsBase
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.output import Output

from pi_harness.cli.modes.interactive.fullscreen.area import TranscriptArea
from pi_harness.cli.modes.interactive.fullscreen.buffer import TranscriptBuffer
from pi_harness.cli.modes.interactive.fullscreen.fast_window import AreaContainer
from pi_harness.cli.modes.interactive.fullscreen.kitty import KittyLayer
from pi_harness.cli.modes.interactive.fullscreen.link_output import link_output
from pi_harness.cli.modes.interactive.fullscreen.open_link import open_link
from pi_harness.cli.modes.interactive.fullscreen.scroll import Scroll
from pi_harness.cli.modes.interactive.fullscreen.search import SearchState
from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.pt_view import ESCAPE_TIMEOUT, LinesControl, PiApplication
from pi_harness.tui.screen import BottomPane, ScreenFrame
from pi_harness.tui.theme import Theme
from pi_harness.tui.transcript import Transcript


@dataclass(frozen=True)
class FullscreenOptions:
    scrollbar: str = "auto"  # "auto" (while scrolled up) | "always" | "hidden"
    exit_output: str = "transcript"  # "transcript" | "resume-hint"
    copy_on_select: bool = True
    wheel_lines: int | None = None  # None: "auto"
    mouse: bool = True


def key_display(spec: str) -> str:
    """``ctrl+end`` as hints show it: ``Ctrl+End``."""
    return "+".join(part[:1].upper() + part[1:] for part in spec.split("+"))


class FullscreenView:
    def __init__(
        self,
        pane: BottomPane,
        key_bindings: KeyBindingsBase,
        *,
        context: RenderContext,
        options: FullscreenOptions | None = None,
        input: Input | None = None,
        output: Output | None = None,
        show_hardware_cursor: bool = False,
        frame_interval: float = 1 / 60,
    ) -> None:
        self.pane = pane
        self.context = context
        self.options = options or FullscreenOptions()
        self.frame_interval = frame_interval
        self.buffer = TranscriptBuffer()
        self.scroll = Scroll()
        self.search: SearchState | None = None
        self.area = TranscriptArea(self)
        self.area.on_open_url = open_link
        self.bottom = LinesControl(self._render_bottom, show_cursor=show_hardware_cursor)
        self._refresh_pending = False
        self.closed = False  # replaced by the regular view: no more frames, no exit output
        self.exit_lines: Callable[[], list[str] | None] | None = None  # what to write on exit instead
        self._live: list[str] = []
        self._content: list[str] = []
        self._plain: list[str] | None = None
        self._signature: tuple[int, int, int, int] | None = None
        self._marks = 0
        self.content_version = 0
        self.container = AreaContainer(self.area)
        self.kitty = KittyLayer()
        if context.capabilities.hyperlinks:
            output = link_output(output or get_app_session().output)
        self.app: Application[Any] = PiApplication(
            layout=Layout(
                HSplit(
                    [
                        self.container,
                        Window(
                            self.bottom,
                            wrap_lines=False,
                            dont_extend_height=True,
                            always_hide_cursor=Condition(lambda: not self.bottom.show_cursor),  # live
                        ),
                    ]
                )
            ),
            key_bindings=key_bindings,
            full_screen=True,
            input=input,
            output=output,
            mouse_support=self.options.mouse,
            erase_when_done=False,
        )
        self.app.timeoutlen = ESCAPE_TIMEOUT
        self.app.ttimeoutlen = ESCAPE_TIMEOUT
        self.app.before_render += self._free_images
        self.app.after_render += self._draw_images

    # --- what the shell uses -------------------------------------------------------------------

    @property
    def transcript(self) -> Transcript:
        return self.pane.transcript

    @property
    def theme(self) -> Theme:
        return self.context.theme

    @property
    def printed(self) -> list[str]:
        """The transcript's finished blocks as displayed (regular mode: what went to the scrollback)."""
        width = self.area.width
        self.transcript.take_finished(width)
        self.buffer.sync(self.transcript, width)
        return self.buffer.lines

    def size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return size.columns, size.rows

    @property
    def show_hardware_cursor(self) -> bool:
        return self.bottom.show_cursor

    def set_show_hardware_cursor(self, enabled: bool) -> None:
        self.bottom.show_cursor = enabled

    def refresh(self) -> None:
        if not self.app.is_running or self.closed:
            return
        if not self._refresh_pending:
            self._refresh_pending = True
            asyncio.get_running_loop().call_later(self.frame_interval, self._refresh_now)

    def _refresh_now(self) -> None:
        self._refresh_pending = False
        self.app.invalidate()

    def invalidate(self) -> None:
        self.app.invalidate()

    def print_above(self, lines: list[str]) -> None:
        """Regular mode writes into the scrollback here; the transcript area shows the transcript
        itself, so there is nothing to write."""

    def replace_scrollback(self, lines: list[str]) -> None:
        """A full redraw: render the transcript again (the lines are regular mode's)."""
        self.buffer.invalidate()
        self.refresh()

    async def flush(self) -> None:
        self._refresh_now()

    def close(self) -> None:
        """The regular view takes over (``tuiMode`` changed): it prints the transcript itself."""
        self.closed = True

    async def run(self) -> Any:
        try:
            return await self.app.run_async()
        finally:
            self.write_exit_output()

    def exit(self, result: Any = None) -> None:
        future = self.app.future
        if self.app.is_running and future is not None and not future.done():  # not twice (a switch, then quit)
            self.app.exit(result=result)

    def key_label(self, action: str) -> str:
        keys = self.context.keymap.keys(action)
        return key_display(keys[0]) if keys else ""

    # --- content -------------------------------------------------------------------------------

    def content(self, width: int) -> list[str]:
        """Every line of the transcript area at ``width``: the finished blocks, then the live ones."""
        transcript = self.transcript
        transcript.take_finished(width)
        changed = self.buffer.sync(transcript, width)
        live = transcript.render_live(width)
        if transcript.behind:
            self.refresh()  # the streaming answer has more to draw: the next frame goes on
        live.append("")  # a blank row between the conversation and the editor
        signature = (id(self.buffer.lines), len(self.buffer.lines), hash(tuple(live)), width)
        if changed or signature != self._signature:
            self._signature = signature
            self._live = live
            self._content = [*self.buffer.lines, *live]
            self._plain = None
            self.content_version += 1
        if len(self.buffer.marks) > self._marks:
            self.scroll.to_end()  # the user sent a message: show where the answer comes
        self._marks = len(self.buffer.marks)
        return self._content

    def measure(self) -> None:
        """Bring the scroll position's idea of the transcript up to date before moving it (output
        may have arrived since the last frame was drawn)."""
        self.scroll.layout(len(self.content(self.area.width)), self.scroll.height)

    def plain_content(self) -> list[str]:
        if self._plain is None:
            self._plain = [*self.buffer.plain(), *(strip_ansi(line) for line in self._live)]
        return self._plain

    def _draw_images(self, _app: object = None) -> None:
        """After a frame: place the transcript's kitty images over it."""
        if not self.app.is_done:
            container = self.container
            self._write(self.kitty.frame(container.images, redraw=container.redrawn, covered=self.area.covered))

    def _free_images(self, _app: object = None) -> None:
        """Before a frame: free the images before the last one (prompt_toolkit leaves the alternate
        screen right after it); before one entering the alternate screen, forget them (it is new)."""
        if self.app.is_done:
            self._write(self.kitty.clear())
        elif not self.app.renderer._in_alternate_screen:
            self.kitty.forget()

    def _write(self, escapes: str) -> None:
        if escapes:
            self.app.output.write_raw(escapes)
            self.app.output.flush()

    def _render_bottom(self, width: int, height: int) -> ScreenFrame:
        rows = self.size()[1]
        # The transcript area keeps a few rows even under a tall selector.
        return self.pane.render_bottom(width, max(1, min(height, rows - 3)))

    def write_exit_output(self) -> None:
        """The transcript as last displayed (already rendered: a long session must not be rendered
        again at another width just to quit)."""
        if self.options.exit_output != "transcript" or self.closed:
            return
        # After a stretch in regular mode the scrollback already has part of it (``view_switch``).
        lines = self.exit_lines() if self.exit_lines is not None else None
        if lines is None:
            lines = self.content(self.area.width)
        if not any(line.strip() for line in lines):
            return
        output = self.app.output
        output.write_raw("\r\n".join(lines) + "\r\n")
        output.flush()
