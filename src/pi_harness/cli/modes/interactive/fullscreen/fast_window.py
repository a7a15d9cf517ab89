"""A prompt_toolkit container that copies the transcript area's rows onto the screen quickly.

A full-screen frame repaints every cell. prompt_toolkit's ``Window`` copies each row character
by character (about 4 µs a cell in Python), which made a keystroke cost ~20 ms with the
transcript area filling the screen. Here each row is converted to screen cells once and reused
while it stays the same (typing changes no transcript row), so a frame costs a few assignments
per cell. Rows are never wrapped (the area cuts them to its width); zero-width characters are
dropped, wide characters take two cells as prompt_toolkit expects.

The cells of OSC 8 links get the link's opening escape as their zero-width escape (see
``links``), and the frame's kitty images are recorded in screen coordinates (see ``kitty``).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindingsBase
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.mouse_events import MouseEvent

from pi_harness.cli.modes.interactive.fullscreen.area import TranscriptArea
from pi_harness.cli.modes.interactive.fullscreen.kitty import Placement
from pi_harness.cli.modes.interactive.fullscreen.links import link_escape

_ROWS_KEPT = 4_000
Cells = list[tuple[int, Char]]
Links = list[tuple[int, str]]  # (column, escape opening the link there)


class AreaContainer(Container):
    def __init__(self, area: TranscriptArea) -> None:
        self.area = area
        self._rows: OrderedDict[tuple[tuple[str, str], ...], tuple[Cells, Links]] = OrderedDict()
        self._chars: dict[tuple[str, str], Char] = {}
        self._empty = Char("", "")
        self.images: list[Placement] = []  # the area's images on the screen, in the last frame
        self.redrawn = False  # the last frame was painted from scratch (no previous screen)

    def reset(self) -> None:
        pass

    def preferred_width(self, max_available_width: int) -> Dimension:
        return Dimension()

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        return Dimension(min=1, weight=1)

    def get_key_bindings(self) -> KeyBindingsBase | None:
        return None

    def get_children(self) -> list[Container]:
        return []

    def _cells(self, row: StyleAndTextTuples) -> tuple[Cells, Links]:
        key = tuple((fragment[0], fragment[1]) for fragment in row)
        cached = self._rows.get(key)
        if cached is not None:
            self._rows.move_to_end(key)
            return cached
        cells: Cells = []
        links: Links = []
        x = 0
        chars = self._chars
        for style, text in key:
            escape = link_escape(style) if "[link=" in style else None
            for char in text:
                cell = chars.get((char, style))
                if cell is None:
                    cell = chars[char, style] = Char(char, style)
                width = cell.width
                if width <= 0:
                    continue
                if escape is not None:
                    links.append((x, escape))
                cells.append((x, cell))
                for extra in range(1, width):
                    cells.append((x + extra, self._empty))
                x += width
        self._rows[key] = (cells, links)
        if len(self._rows) > _ROWS_KEPT:
            self._rows.popitem(last=False)
        return cells, links

    def write_to_screen(
        self,
        screen: Screen,
        mouse_handlers: MouseHandlers,
        write_position: WritePosition,
        parent_style: str,
        erase_bg: bool,
        z_index: int | None,
    ) -> None:
        xpos, ypos, width, height = (
            write_position.xpos,
            write_position.ypos,
            write_position.width,
            write_position.height,
        )
        content = self.area.create_content(width, height)
        buffer = screen.data_buffer
        for y in range(min(height, content.line_count)):
            line = buffer[ypos + y]
            cells, links = self._cells(content.get_line(y))
            for x, cell in cells:
                if x < width:
                    line[xpos + x] = cell
            if links:
                escapes = screen.zero_width_escapes[ypos + y]
                for x, escape in links:
                    if x < width:
                        escapes[xpos + x] = escape
        self.images = [
            replace(image, row=ypos + image.row, column=xpos + image.column)
            for image in self.area.images
            if image.column < width
        ]
        app = get_app_or_none()
        # prompt_toolkit forgets the previous screen when it repaints everything (start, resize,
        # a new style); the renderer has decided that before the layout is written.
        self.redrawn = app is None or app.renderer._last_screen is None

        def handler(event: MouseEvent) -> object:
            local = MouseEvent(
                Point(x=event.position.x - xpos, y=event.position.y - ypos),
                event.event_type,
                event.button,
                event.modifiers,
            )
            return self.area.mouse_handler(local)

        mouse_handlers.set_mouse_handler_for_range(xpos, xpos + width, ypos, ypos + height, handler)
