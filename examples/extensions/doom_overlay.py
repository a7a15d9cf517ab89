"""doom-overlay: a first-person maze in a floating overlay, started with ``/doom-overlay``.

Pi's example runs the DOOM engine (compiled to WebAssembly) inside an overlay. A DOOM engine
is out of reach for a Python example without extra dependencies, so this one draws a small
first-person raycaster instead: the same idea (a real-time 3D view redrawn every tick in an
overlay over the conversation), with walls shaded by distance. Find the exit ``E``.

What it shows: ``ctx.ui.custom(factory, overlay=True, overlay_options={"width": "80%", ...})``:
the overlay is centred and sized relative to the terminal, and the component is asked for rows
of that width. ``w``/``s`` or up/down walk, ``a``/``d`` or left/right turn, ``m`` shows the map,
``q`` or Escape leaves (``custom`` returns whether you escaped).

Load it with ``pi -e examples/extensions/doom_overlay.py`` and type ``/doom-overlay``.
"""

from __future__ import annotations

import math
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

MAZE = (
    "##########",
    "#........#",
    "#.##.###.#",
    "#.#....#.#",
    "#.#.##.#.#",
    "#...#..#.#",
    "###.#.##.#",
    "#...#....#",
    "#.####.#E#",
    "##########",
)
VIEW_ROWS = 14
FIELD_OF_VIEW = math.pi / 3
SHADES = "█▓▒░"
TURN = math.pi / 8
STEP = 0.5


class MazeView:
    def __init__(self, theme: Any, done: Any) -> None:
        self.theme, self.done = theme, done
        self.x, self.y, self.angle = 1.5, 1.5, 0.0
        self.show_map = False
        self.escaped = False
        self._drawn: tuple[tuple[object, ...], list[str]] | None = None  # the last frame and what it showed

    def wall(self, x: float, y: float) -> str:
        row, col = int(y), int(x)
        if not (0 <= row < len(MAZE) and 0 <= col < len(MAZE[0])):
            return "#"
        return MAZE[row][col]

    def cast(self, angle: float) -> tuple[float, str]:
        """Distance to the first wall (or exit) along ``angle``, marching in small steps."""
        dx, dy, distance = math.cos(angle), math.sin(angle), 0.0
        while distance < 16:
            distance += 0.05
            cell = self.wall(self.x + dx * distance, self.y + dy * distance)
            if cell in "#E":
                return distance * math.cos(angle - self.angle), cell  # no fish-eye
        return 16.0, "#"

    def handle_input(self, key: str) -> None:
        if key in ("q", "escape"):
            self.done(self.escaped)
        elif key in ("a", "left"):
            self.angle -= TURN
        elif key in ("d", "right"):
            self.angle += TURN
        elif key == "m":
            self.show_map = not self.show_map
        elif key in ("w", "up", "s", "down") and not self.escaped:
            sign = 1 if key in ("w", "up") else -1
            nx, ny = self.x + math.cos(self.angle) * STEP * sign, self.y + math.sin(self.angle) * STEP * sign
            cell = self.wall(nx, ny)
            if cell != "#":
                self.x, self.y = nx, ny
            self.escaped = cell == "E"

    def render(self, width: int) -> list[str]:
        """The view is drawn again only when the player moved or the width changed (casting is costly)."""
        state = (width, self.x, self.y, self.angle, self.show_map, self.escaped)
        if self._drawn is None or self._drawn[0] != state:
            self._drawn = (state, self.draw(width))
        return self._drawn[1]

    def draw(self, width: int) -> list[str]:
        theme = self.theme
        if self.escaped:
            return [theme.style(" You found the exit! Press q to leave.", "success", bold=True)]
        columns = max(10, width)
        hits = [self.cast(self.angle - FIELD_OF_VIEW / 2 + FIELD_OF_VIEW * c / columns) for c in range(columns)]
        rows = []
        for r in range(VIEW_ROWS):
            line = []
            for distance, cell in hits:
                half = VIEW_ROWS / (2 * max(distance, 0.3))
                top, bottom = VIEW_ROWS / 2 - half, VIEW_ROWS / 2 + half
                if top <= r <= bottom:
                    shade = SHADES[min(len(SHADES) - 1, int(distance / 2))]
                    line.append(theme.fg("success", shade) if cell == "E" else shade)
                else:
                    line.append("." if r > VIEW_ROWS / 2 else " ")
            rows.append("".join(line))
        if self.show_map:
            for y, maze_row in enumerate(MAZE):
                rows.append("".join("@" if (int(self.x), int(self.y)) == (x, y) else c for x, c in enumerate(maze_row)))
        rows.append(theme.fg("muted", "w/s walk · a/d turn · m map · q quit"))
        return rows


def extension(pi: ExtensionAPI) -> None:
    @pi.command("doom-overlay", description="A first-person maze in an overlay")
    async def doom(args: str, ctx: ExtensionCommandContext) -> None:
        if ctx.mode not in ("tui", "interactive"):
            ctx.ui.notify("/doom-overlay needs the interactive terminal", "warning")
            return
        escaped = await ctx.ui.custom(
            lambda context, done: MazeView(context.theme, done),
            overlay=True,
            overlay_options={"width": "80%", "anchor": "center", "max_height": VIEW_ROWS + len(MAZE) + 1},
        )
        ctx.ui.notify("You escaped the maze!" if escaped else "Maze left unfinished", "info")
