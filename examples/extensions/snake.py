"""snake: the classic game in a panel over the editor, started with ``/snake``.

What it shows: ``ctx.ui.custom(factory)`` with a component that reads keys (``handle_input``)
and animates itself (``tick``, called about ten times a second by the interactive UI).
Arrow keys or ``w a s d`` steer, Space pauses, ``r`` restarts after a crash, ``q`` or Escape
leaves; ``custom`` then returns the score. The best score is kept in the session with
``pi.append_entry("snake-best", ...)`` and read back from ``ctx.session_manager`` next time.
Without the interactive UI ``/snake`` only says that it needs one.

Load it with ``pi -e examples/extensions/snake.py`` and type ``/snake``.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

WIDTH, HEIGHT = 24, 12
TICKS_PER_STEP = 2  # the UI ticks ten times a second: five moves a second
STEERING = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0),
            "w": (0, -1), "s": (0, 1), "a": (-1, 0), "d": (1, 0)}  # fmt: skip
ENTRY = "snake-best"


class SnakeGame:
    def __init__(self, theme: Any, done: Any, *, best: int = 0, rng: random.Random | None = None) -> None:
        self.theme, self.done, self.best = theme, done, best
        self.rng = rng or random.Random()
        self.restart()

    def restart(self) -> None:
        middle = (WIDTH // 2, HEIGHT // 2)
        self.body: deque[tuple[int, int]] = deque([middle, (middle[0] - 1, middle[1]), (middle[0] - 2, middle[1])])
        self.direction = self.next_direction = (1, 0)
        self.score, self.over, self.paused = 0, False, False
        self.ticks = 0
        self.food = self.place_food()

    def place_food(self) -> tuple[int, int]:
        free = [(x, y) for y in range(HEIGHT) for x in range(WIDTH) if (x, y) not in self.body]
        return self.rng.choice(free) if free else (-1, -1)

    def step(self) -> None:
        """One move of the snake: eat, grow, or crash into a wall or itself."""
        if self.over or self.paused:
            return
        self.direction = self.next_direction
        head = (self.body[0][0] + self.direction[0], self.body[0][1] + self.direction[1])
        tail = self.body[-1]
        hits_self = head in self.body and head != tail
        if not (0 <= head[0] < WIDTH and 0 <= head[1] < HEIGHT) or hits_self:
            self.over = True
            self.best = max(self.best, self.score)
            return
        self.body.appendleft(head)
        if head == self.food:
            self.score += 1
            self.food = self.place_food()
        else:
            self.body.pop()

    def tick(self) -> bool:
        self.ticks += 1
        if self.ticks % TICKS_PER_STEP:
            return False
        self.step()
        return not (self.over or self.paused)

    def handle_input(self, key: str) -> None:
        if key in ("q", "escape"):
            self.done(max(self.best, self.score))
        elif key == "space" and not self.over:
            self.paused = not self.paused
        elif key == "r" and self.over:
            self.restart()
        elif key in STEERING:
            dx, dy = STEERING[key]
            if (dx, dy) != (-self.direction[0], -self.direction[1]):  # no turning back into yourself
                self.next_direction = (dx, dy)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        head = self.body[0]
        rows = [theme.fg("accent", f" SNAKE  score {self.score}  best {max(self.best, self.score)}")]
        rows.append(" ╭" + "──" * WIDTH + "╮")
        for y in range(HEIGHT):
            cells = []
            for x in range(WIDTH):
                if (x, y) == head:
                    cells.append(theme.fg("success", "██"))
                elif (x, y) in self.body:
                    cells.append(theme.fg("success", "▓▓"))
                elif (x, y) == self.food:
                    cells.append(theme.fg("error", "◆ "))
                else:
                    cells.append("  ")
            rows.append(" │" + "".join(cells) + "│")
        rows.append(" ╰" + "──" * WIDTH + "╯")
        if self.over:
            rows.append(theme.fg("warning", " Game over! r: play again · q: quit"))
        elif self.paused:
            rows.append(theme.fg("muted", " Paused · space: resume · q: quit"))
        else:
            rows.append(theme.fg("muted", " arrows/wasd: steer · space: pause · q: quit"))
        return rows


def best_score(entries: list[Any]) -> int:
    scores = [int((e.get("data") or {}).get("best", 0)) for e in entries if e.get("customType") == ENTRY]
    return max(scores, default=0)


def extension(pi: ExtensionAPI) -> None:
    @pi.command("snake", description="Play snake")
    async def snake(args: str, ctx: ExtensionCommandContext) -> None:
        if ctx.mode not in ("tui", "interactive"):
            ctx.ui.notify("/snake needs the interactive terminal", "warning")
            return
        best = best_score(ctx.session_manager.get_entries())
        score = await ctx.ui.custom(lambda context, done: SnakeGame(context.theme, done, best=best))
        if isinstance(score, int) and score > best:
            pi.append_entry(ENTRY, {"best": score})
            ctx.ui.notify(f"New best snake score: {score}", "info")
