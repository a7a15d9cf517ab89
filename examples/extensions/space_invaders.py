"""space-invaders: defend the bottom of the screen, started with ``/invaders``.

What it shows: a real-time game as a custom component, like ``snake``: ``tick`` moves the
invaders and the shots, ``handle_input`` moves the cannon (left/right or ``a``/``d``) and fires
(Space or ``w``); ``p`` pauses, ``r`` restarts, ``q`` or Escape leaves and ``custom`` returns the
score. Invaders march sideways, step down at the edges and speed up as their ranks thin out;
they drop bombs now and then. You win when none is left, and lose when one reaches your row
or a bomb hits you. Terminals report key presses but not releases here, so the cannon moves
one cell per key press (holding a key repeats it).

Load it with ``pi -e examples/extensions/space_invaders.py`` and type ``/invaders``.
"""

from __future__ import annotations

import random
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

WIDTH, HEIGHT = 40, 16
ROWS, COLUMNS = 3, 8


class InvadersGame:
    def __init__(self, theme: Any, done: Any, *, rng: random.Random | None = None) -> None:
        self.theme, self.done = theme, done
        self.rng = rng or random.Random()
        self.restart()

    def restart(self) -> None:
        self.invaders = {(2 + 4 * c, 1 + 2 * r) for r in range(ROWS) for c in range(COLUMNS)}
        self.cannon = WIDTH // 2
        self.shots: list[tuple[int, int]] = []
        self.bombs: list[tuple[int, int]] = []
        self.heading = 1
        self.clock = 0
        self.score = 0
        self.state = "playing"  # playing, paused, won, lost

    @property
    def march_every(self) -> int:
        """Ticks between invader steps: fewer invaders march faster."""
        return max(1, 1 + len(self.invaders) // 6)

    def step(self) -> None:
        if self.state != "playing":
            return
        self.clock += 1
        self.shots = [(x, y - 1) for x, y in self.shots if y > 0]
        for shot in list(self.shots):
            if shot in self.invaders:
                self.invaders.discard(shot)
                self.shots.remove(shot)
                self.score += 10
        self.bombs = [(x, y + 1) for x, y in self.bombs if y < HEIGHT - 1]
        if any(x == self.cannon and y == HEIGHT - 1 for x, y in self.bombs):
            self.state = "lost"
            return
        if self.clock % self.march_every == 0:
            self.march()
        if not self.invaders:
            self.state = "won"
        elif max(y for _x, y in self.invaders) >= HEIGHT - 1:
            self.state = "lost"
        elif self.rng.random() < 0.15:
            x, y = self.rng.choice(sorted(self.invaders))
            self.bombs.append((x, y + 1))

    def march(self) -> None:
        xs = [x for x, _y in self.invaders]
        if not xs:
            return
        if (self.heading > 0 and max(xs) >= WIDTH - 1) or (self.heading < 0 and min(xs) <= 0):
            self.invaders = {(x, y + 1) for x, y in self.invaders}
            self.heading = -self.heading
        else:
            self.invaders = {(x + self.heading, y) for x, y in self.invaders}

    def tick(self) -> bool:
        self.step()
        return self.state == "playing"

    def handle_input(self, key: str) -> None:
        if key in ("q", "escape"):
            self.done(self.score)
        elif key == "r":
            self.restart()
        elif key == "p" and self.state in ("playing", "paused"):
            self.state = "paused" if self.state == "playing" else "playing"
        elif self.state != "playing":
            return
        elif key in ("left", "a"):
            self.cannon = max(0, self.cannon - 1)
        elif key in ("right", "d"):
            self.cannon = min(WIDTH - 1, self.cannon + 1)
        elif key in ("space", "w", "up") and len(self.shots) < 3:
            self.shots.append((self.cannon, HEIGHT - 2))

    def render(self, width: int) -> list[str]:
        theme = self.theme
        rows = [theme.fg("accent", f" SPACE INVADERS  score {self.score}  left {len(self.invaders)}")]
        rows.append(" ┌" + "─" * WIDTH + "┐")
        for y in range(HEIGHT):
            line = []
            for x in range(WIDTH):
                if (x, y) in self.invaders:
                    line.append(theme.fg("error", "W"))
                elif (x, y) in self.shots:
                    line.append(theme.fg("accent", "|"))
                elif (x, y) in self.bombs:
                    line.append(theme.fg("warning", "*"))
                elif y == HEIGHT - 1 and x == self.cannon:
                    line.append(theme.fg("success", "A"))
                else:
                    line.append(" ")
            rows.append(" │" + "".join(line) + "│")
        rows.append(" └" + "─" * WIDTH + "┘")
        hints = {"playing": "←/→ move · space fire · p pause · q quit", "paused": "Paused · p resume · q quit",
                 "won": "You saved the planet! r again · q quit", "lost": "They landed. r again · q quit"}  # fmt: skip
        rows.append(theme.fg("muted", " " + hints[self.state]))
        return rows


def extension(pi: ExtensionAPI) -> None:
    @pi.command("invaders", description="Play space invaders")
    async def invaders(args: str, ctx: ExtensionCommandContext) -> None:
        if ctx.mode not in ("tui", "interactive"):
            ctx.ui.notify("/invaders needs the interactive terminal", "warning")
            return
        score = await ctx.ui.custom(lambda context, done: InvadersGame(context.theme, done))
        ctx.ui.notify(f"Space invaders score: {score}", "info")
