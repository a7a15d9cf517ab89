"""prompt_toolkit glue: the bottom pane drawn under the scrollback, and printing into the scrollback.

The application is not full-screen: prompt_toolkit redraws only the pane's lines at the bottom
of the terminal, and finished transcript blocks are written above it with ``run_in_terminal`` so
they become ordinary terminal scrollback. Components produce ANSI lines; ``LinesControl``
converts each line to prompt_toolkit fragments once (lines that did not change between frames
come from a cache) and hands prompt_toolkit only the rows of the current frame.

When the pane gets shorter (a suggestion list closes), the rows it used stay empty at the
bottom of the terminal. With ``clear_on_shrink`` (``terminal.clearOnShrink``, as Pi's renderer)
the view then asks for a full redraw (``on_shrink``): the scrollback is printed again, so the
conversation moves down and the pane ends on the last row again.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application, get_app_or_none, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, merge_key_bindings
from prompt_toolkit.key_binding.bindings.cpr import load_cpr_bindings
from prompt_toolkit.key_binding.bindings.mouse import load_mouse_bindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import GetLinePrefixCallable, UIContent, UIControl
from prompt_toolkit.output import Output

from pi_harness.tui.colors import to_hex
from pi_harness.tui.screen import BottomPane, ScreenFrame
from pi_harness.tui.transcript import Transcript

# Escape alone must act quickly (abort); real escape sequences arrive within a few milliseconds.
ESCAPE_TIMEOUT = 0.05
# Non-SGR escapes are dropped: OSC (links, iTerm2 images) and APC (kitty images) cannot be
# carried by prompt_toolkit's cell grid; the same lines printed into the scrollback keep them.
_SGR_RE = re.compile(r"\x1b\[([0-9;:]*)m|\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x1b]*\x1b\\")
_NORMAL = ("ansiblack", "ansired", "ansigreen", "ansiyellow", "ansiblue", "ansimagenta", "ansicyan", "ansigray")
_BRIGHT = ("ansibrightblack", "ansibrightred", "ansibrightgreen", "ansibrightyellow", "ansibrightblue",
           "ansibrightmagenta", "ansibrightcyan", "ansiwhite")  # fmt: skip
_FLAGS = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink", 7: "reverse", 8: "hidden", 9: "strike"}
_FLAGS_OFF = {22: ("bold", "dim"), 23: ("italic",), 24: ("underline",), 25: ("blink",), 27: ("reverse",),
              28: ("hidden",), 29: ("strike",)}  # fmt: skip
_CACHE_LIMIT = 20_000
CLEAR_SCREEN_AND_SCROLLBACK = "\x1b[H\x1b[2J\x1b[3J"


def _basic_color(code: int) -> str:
    base = code % 10
    return (_BRIGHT if code >= 90 else _NORMAL)[base]


class _Sgr:
    __slots__ = ("bg", "fg", "flags")

    def __init__(self) -> None:
        self.fg: str | None = None
        self.bg: str | None = None
        self.flags: set[str] = set()

    def apply(self, params: str) -> None:
        codes = [int(p) if p.isdigit() else 0 for p in params.replace(":", ";").split(";")] if params else [0]
        index = 0
        while index < len(codes):
            code = codes[index]
            index += 1
            if code == 0:
                self.fg, self.bg = None, None
                self.flags.clear()
            elif code in _FLAGS:
                self.flags.add(_FLAGS[code])
            elif code in _FLAGS_OFF:
                self.flags.difference_update(_FLAGS_OFF[code])
            elif code == 39:
                self.fg = None
            elif code == 49:
                self.bg = None
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.fg = _basic_color(code)
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.bg = _basic_color(code)
            elif code in (38, 48) and index < len(codes):
                mode = codes[index]
                color: str | None = None
                if mode == 5 and index + 1 < len(codes):
                    color = to_hex(codes[index + 1])
                    index += 2
                elif mode == 2 and index + 3 < len(codes):
                    color = "#{:02x}{:02x}{:02x}".format(*codes[index + 1 : index + 4])
                    index += 4
                else:
                    index += 1
                if code == 38:
                    self.fg = color
                else:
                    self.bg = color

    def style(self) -> str:
        parts = sorted(self.flags)
        if self.fg:
            parts.append(f"fg:{self.fg}")
        if self.bg:
            parts.append(f"bg:{self.bg}")
        return " ".join(parts)


def ansi_to_fragments(line: str) -> StyleAndTextTuples:
    """One ANSI line as prompt_toolkit (style, text) fragments; non-SGR escapes are dropped."""
    if "\x1b" not in line:
        return [("", line)]
    state = _Sgr()
    fragments: StyleAndTextTuples = []
    position = 0
    for match in _SGR_RE.finditer(line):
        if match.start() > position:
            fragments.append((state.style(), line[position : match.start()]))
        if match.group(1) is not None or match.group(0).endswith("[m"):
            state.apply(match.group(1) or "")
        position = match.end()
    if position < len(line):
        fragments.append((state.style(), line[position:]))
    return fragments


class PiApplication(Application[Any]):
    """prompt_toolkit's application without the per-key costs of editing prompt_toolkit buffers.

    Nothing here focuses a prompt_toolkit ``Buffer`` (our editor draws itself), so its emacs, vi
    and page-navigation bindings, which only act while a buffer has the focus, never fire; yet
    each key walked them all to find that out. Only the mouse and cursor-position-report
    bindings are kept. And the key processor asks for ``current_buffer`` twice per key, where
    prompt_toolkit built a fresh empty ``Buffer`` each time; one is kept instead. Together they
    were about half the cost of every key of a 200-character burst.
    """

    _dummy: Buffer | None = None

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._default_bindings = merge_key_bindings([load_mouse_bindings(), load_cpr_bindings()])
        self._page_navigation_bindings = KeyBindings()

    @property
    def current_buffer(self) -> Buffer:
        focused = self.layout.current_buffer
        if focused is not None:
            return focused
        if self._dummy is None:
            self._dummy = Buffer(name="dummy-buffer")
        return self._dummy


class LinesControl(UIControl):
    """A UI control that shows the lines of ``render(width, height)`` and its cursor."""

    def __init__(self, render: Callable[[int, int], ScreenFrame], *, show_cursor: bool = False) -> None:
        self.render = render
        self.show_cursor = show_cursor
        self._fragments: OrderedDict[str, StyleAndTextTuples] = OrderedDict()
        self._frame_key: tuple[int, int, int] | None = None
        self._frame: ScreenFrame | None = None

    def frame(self, width: int, height: int) -> ScreenFrame:
        app = get_app_or_none()
        key = (width, height, app.render_counter if app is not None else -1)
        if key != self._frame_key or self._frame is None or app is None:
            self._frame = self.render(width, height)
            self._frame_key = key
        return self._frame

    def fragments(self, line: str) -> StyleAndTextTuples:
        cached = self._fragments.get(line)
        if cached is None:
            cached = self._fragments[line] = ansi_to_fragments(line)
            if len(self._fragments) > _CACHE_LIMIT:
                self._fragments.popitem(last=False)
        return cached

    def is_focusable(self) -> bool:
        return True

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: GetLinePrefixCallable | None
    ) -> int | None:
        return len(self.frame(width, max_available_height).lines)

    def create_content(self, width: int, height: int | None) -> UIContent:
        frame = self.frame(width, height if height is not None else 10_000)
        rows = [self.fragments(line) for line in frame.lines]
        cursor = Point(x=frame.cursor[1], y=frame.cursor[0]) if frame.cursor else None
        return UIContent(
            get_line=lambda index: rows[index] if index < len(rows) else [],
            line_count=len(rows),
            cursor_position=cursor,
            show_cursor=self.show_cursor and cursor is not None,
        )


class TerminalView:
    """Runs the bottom pane in a prompt_toolkit application and prints finished blocks above it.

    After feeding events to the transcript (or changing any component), call ``refresh()``: it
    moves finished transcript lines into the scrollback and redraws the pane. While the
    application runs, refreshes are coalesced to one per ``frame_interval`` so a fast stream of
    deltas costs one render per frame, not one per delta.
    """

    def __init__(
        self,
        pane: BottomPane,
        key_bindings: KeyBindingsBase,
        *,
        input: Input | None = None,
        output: Output | None = None,
        show_hardware_cursor: bool = False,
        frame_interval: float = 1 / 60,
        clear_on_shrink: bool = False,
    ) -> None:
        self.pane = pane
        self.frame_interval = frame_interval
        self._refresh_pending = False
        self.clear_on_shrink = clear_on_shrink
        self.on_shrink: Callable[[], None] | None = None  # the full redraw (the shell's)
        self.closed = False  # replaced by another view: draws and prints nothing any more
        self._rows_printed = 0  # lines printed since the last full redraw
        self._rows_most = 0  # the most rows (printed + pane) since then
        self.control = LinesControl(self._render, show_cursor=show_hardware_cursor)
        self.app: Application[Any] = PiApplication(
            # dont_extend_height: draw only the pane, never pad it to the rows left below the cursor.
            layout=Layout(
                Window(
                    self.control,
                    wrap_lines=False,
                    # Read at each frame: /settings turns the cursor on and off live (Pi).
                    always_hide_cursor=Condition(lambda: not self.control.show_cursor),
                    dont_extend_height=True,
                )
            ),
            key_bindings=key_bindings,
            full_screen=False,
            input=input,
            output=output,
            mouse_support=False,
            erase_when_done=False,
        )
        self.app.timeoutlen = ESCAPE_TIMEOUT
        self.app.ttimeoutlen = ESCAPE_TIMEOUT
        self._pending: list[str] = []
        self._printer: asyncio.Task[None] | None = None
        self._height = 24

    @property
    def transcript(self) -> Transcript:
        return self.pane.transcript

    def size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return size.columns, size.rows

    def _render(self, width: int, height: int) -> ScreenFrame:
        # One row less than the screen: a pane as tall as the terminal leaves prompt_toolkit no row
        # to return to, and the next print above it pushes the whole frame into the scrollback.
        height = max(1, min(height, self.size()[1] - 1))
        self._height = height
        frame = self.pane.render(width, height)
        if self.transcript.behind:
            self.refresh()  # the streaming answer has more to draw: the next frame goes on
        self._note_rows(len(frame.lines))
        return frame

    def _note_rows(self, pane_rows: int) -> None:
        """Ask for the full redraw when everything drawn (printed and pane) got shorter than it was."""
        rows = self._rows_printed + pane_rows
        if rows >= self._rows_most:
            self._rows_most = rows
        elif self.clear_on_shrink and self.on_shrink is not None and not self.closed:
            self._rows_most = rows  # once: the redraw starts counting again
            try:
                asyncio.get_running_loop().call_soon(self.on_shrink)
            except RuntimeError:  # drawn outside the event loop (a test rendering a frame)
                pass

    @property
    def show_hardware_cursor(self) -> bool:
        return self.control.show_cursor

    def set_show_hardware_cursor(self, enabled: bool) -> None:
        self.control.show_cursor = enabled

    def refresh(self) -> None:
        """Print what the transcript finished into the scrollback, then redraw the pane (soon)."""
        if self.closed:
            return
        if not self.app.is_running:
            self._refresh_now()
            return
        if not self._refresh_pending:
            self._refresh_pending = True
            asyncio.get_running_loop().call_later(self.frame_interval, self._refresh_now)

    def _refresh_now(self) -> None:
        self._refresh_pending = False
        if self.closed:
            return
        width, rows = self.size()
        lines = self.transcript.take_finished(width, live_limit=self.pane.live_budget(rows))
        if lines:
            self.print_above(lines)
        self.app.invalidate()

    def print_above(self, lines: list[str]) -> None:
        """Queue lines for the scrollback; they are written in order, between two frames."""
        if self.closed:
            return
        self._rows_printed += len(lines)
        self._pending.extend(lines)
        if not self.app.is_running:
            self._write(self._take_pending())
            return
        if self._printer is None or self._printer.done():
            self._printer = asyncio.get_running_loop().create_task(self._drain())

    def replace_scrollback(self, lines: list[str]) -> None:
        """Clear the screen and the scrollback, then print ``lines`` (a full redraw)."""
        self._rows_printed = self._rows_most = 0
        first = CLEAR_SCREEN_AND_SCROLLBACK + (lines[0] if lines else "")
        self.print_above([first, *lines[1:]])

    def close(self) -> None:
        """Another view takes over the terminal: nothing is drawn or printed from here on."""
        self.closed = True

    async def flush(self) -> None:
        """Print what the transcript finished and wait until everything queued is written."""
        self._refresh_now()
        while self._printer is not None and not self._printer.done():
            await self._printer

    @property
    def printing(self) -> bool:
        """Lines are still queued for the scrollback (a long conversation at startup)."""
        return bool(self._pending) or (self._printer is not None and not self._printer.done())

    def _take_pending(self) -> list[str]:
        lines, self._pending = self._pending, []
        return lines

    async def _drain(self) -> None:
        while self._pending:
            lines = self._take_pending()
            await run_in_terminal(functools.partial(self._write, lines))

    def _write(self, lines: list[str]) -> None:
        if not lines:
            return
        output = self.app.output
        output.write_raw("\r\n".join(lines) + "\r\n")
        output.flush()

    async def run(self) -> Any:
        return await self.app.run_async()

    def exit(self, result: Any = None) -> None:
        future = self.app.future
        if self.app.is_running and future is not None and not future.done():  # not twice (a switch, then quit)
            self.app.exit(result=result)
