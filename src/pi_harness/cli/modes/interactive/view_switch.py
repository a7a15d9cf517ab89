"""``tuiMode`` changed in ``/settings``: the screen moves to the other view while pi runs, as in Pi.

Nothing the user sees belongs to a view: the transcript, editor, queue, footer, status and
overlays are the shell's, so a switch only replaces the prompt_toolkit application drawing them.
The running view is closed (it draws and prints nothing more) and stopped: regular mode first
prints what is finished and erases its pane; fullscreen mode leaves the alternate screen without
its exit output. The shell's run loop then builds the other view with the same key bindings and
terminal, binds the keyboard protocol and hooks to it, and runs it; the ticker and the terminal
progress write through whatever view is current, so they follow by themselves.

Entering regular mode prints the finished transcript into the scrollback: all of it when regular
mode had not run yet (what was on the terminal before pi stays above it); after an earlier regular
stretch only the blocks finished since then, as the terminal still shows the others, unless the
width or the look changed meanwhile or a streaming answer had been half printed: then the screen
and scrollback are cleared and everything is printed again (Pi's full redraw).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView
from pi_harness.cli.modes.interactive.views import RecordingView, View, build_view
from pi_harness.tui.pt_view import CLEAR_SCREEN_AND_SCROLLBACK
from pi_harness.tui.ui_settings import UiSettings, screen_capabilities

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.shell import Shell

CLOSE_OVERLAYS = "Close active overlays before changing TUI mode"


def mode_of(view: View) -> str:
    return "fullscreen" if isinstance(view, FullscreenView) else "regular"


@dataclass(frozen=True)
class LeftRegular:
    """What regular mode left in the scrollback when fullscreen mode took over."""

    transcript: int  # id() of the transcript then
    width: int
    generation: int  # the render context's, as fullscreen mode started
    blocks: int  # history blocks printed
    partial: bool  # a streaming answer had lines printed: they would come twice
    printed: tuple[str, ...]  # the regular view's record (``/debug``)


class ViewSwitch:
    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.pending: UiSettings | None = None  # the settings of the view to run next
        self.left: LeftRegular | None = None
        self._leaving: asyncio.Task[None] | None = None

    def request(self, ui: UiSettings, *, keep: object = None) -> bool:
        """Switch to ``ui.tui_mode``; False (nothing changes) while an overlay other than ``keep``
        (the settings list asking) is open."""
        shell = self.shell
        if self.pending is None and ui.tui_mode == mode_of(shell.view):
            shell.ui = ui
            return True
        if any(overlay is not keep for overlay in shell.overlays):
            return False
        self.pending = ui
        if not shell.running:
            self.complete()
        elif self._leaving is None:
            self._leaving = asyncio.ensure_future(self._leave(shell.view))
        return True

    async def _leave(self, view: View) -> None:
        shell = self.shell
        if isinstance(view, RecordingView):
            await view.flush()  # the scrollback gets everything finished until now
            view.close()
            transcript = shell.transcript
            self.left = LeftRegular(
                transcript=id(transcript),
                width=view.size()[0],
                generation=shell.context.generation,
                blocks=len(transcript.history),
                partial=transcript.uncommit_live(),
                printed=tuple(view.printed),
            )
            view.app.erase_when_done = True
        view.close()
        view.exit()

    def complete(self) -> None:
        """The old view stopped: build the new one and make it the shell's."""
        shell = self.shell
        ui, self.pending, self._leaving = self.pending, None, None
        if ui is None:
            return
        old = shell.view
        old.close()
        width = old.size()[0]
        context = shell.context
        look_kept = self.left is not None and self.left.generation == context.generation
        capabilities = screen_capabilities(ui, os.environ)
        if capabilities != context.capabilities:
            context.capabilities = capabilities
            context.set_theme(context.theme)  # drops the markdown renderer made for the old ones
        shell.ui = ui
        view = build_view(ui, shell.pane, shell.bindings, context, shell.terminal,
                          show_hardware_cursor=old.show_hardware_cursor)  # fmt: skip
        shell.attach_view(view)
        if isinstance(view, RecordingView):
            self._print_transcript(view, width, look_kept)
        elif self.left is not None:
            self.left = dataclasses.replace(self.left, generation=context.generation)
            view.exit_lines = self._exit_lines
        shell.refresh()

    def _regular_lines(self, width: int, look_kept: bool) -> tuple[list[str], bool]:
        """The finished transcript for the scrollback at ``width``, and whether it follows what an
        earlier regular stretch left there (False: the screen and scrollback are to be cleared)."""
        transcript = self.shell.transcript
        left, self.left = self.left, None
        transcript.take_finished(width)
        if left is None:
            return transcript.render_history(width), True
        if (look_kept and not left.partial and left.transcript == id(transcript) and left.width == width
                and left.blocks <= len(transcript.history)):  # fmt: skip
            return transcript.render_history(width, left.blocks), True
        return transcript.render_history(width), False

    def _exit_lines(self) -> list[str] | None:
        """Quitting fullscreen after a regular stretch: the scrollback gets only what it lacks, as
        Pi's exit output, which goes through its regular renderer."""
        shell = self.shell
        width = shell.view.size()[0]
        look_kept = self.left is not None and self.left.generation == shell.context.generation
        lines, follows = self._regular_lines(width, look_kept)
        lines += shell.transcript.render_live(width)
        if not follows:
            lines = [CLEAR_SCREEN_AND_SCROLLBACK + (lines[0] if lines else ""), *lines[1:]]
        return lines

    def _print_transcript(self, view: RecordingView, width: int, look_kept: bool) -> None:
        left = self.left
        lines, follows = self._regular_lines(width, look_kept)
        self.shell.printed_width = width
        if not follows:
            view.replace_scrollback(lines)
            return
        if left is not None:
            view.printed.extend(left.printed)
        view.print_above(lines)

    def abandon(self) -> None:
        """pi quits while a switch is under way: the old view's exit output still goes out."""
        self.pending, self._leaving = None, None
        view = self.shell.view
        if isinstance(view, FullscreenView):
            view.closed = False
            view.write_exit_output()
