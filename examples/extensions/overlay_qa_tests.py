"""overlay-qa-tests: one command per overlay option, to check placement and behaviour by eye.

Commands (each overlay closes with Escape or ``q``):

* ``/overlay-anchors``: the overlay jumps between the anchors ``left``, ``center`` and
  ``right`` with the left/right arrows (options given as a function, read at every frame);
* ``/overlay-margins``: a right-anchored overlay with ``margin`` cells kept free, +/- change it;
* ``/overlay-percent``: widths in per cent of the terminal (25 %, 50 %, 75 %, 100 %), up/down;
* ``/overlay-maxheight``: 40 numbered rows cut to ``max_height`` (up/down change it);
* ``/overlay-stack``: Enter opens another overlay on top of this one, three deep; each closes
  back to the one below;
* ``/overlay-toggle``: ``on_handle`` gets the overlay's handle; Space hides it (the editor shows
  again while it stays open) and shows it once more; the handle closes it too;
* ``/overlay-animation``: a bouncing ball driven by ``tick`` to show redraws at ten frames a second.

Pi's version also anchors vertically (top/bottom and corners) and offsets by rows; here an
overlay always sits where the editor is, so only horizontal placement is offered.

Load it with ``pi -e examples/extensions/overlay_qa_tests.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

ANCHORS = ("left", "center", "right")
PERCENTS = ("25%", "50%", "75%", "100%")


class Panel:
    """A framed panel; subclasses say what is inside and which keys they take."""

    title = "overlay"

    def __init__(self, theme: Any, done: Any) -> None:
        self.theme, self.done = theme, done

    def body(self) -> list[str]:
        return []

    def keys(self, key: str) -> None:
        return None

    def handle_input(self, key: str) -> None:
        if key in ("escape", "q"):
            self.done(None)
        else:
            self.keys(key)

    def render(self, width: int) -> list[str]:
        inner = max(1, width - 2)
        top = self.theme.fg("borderAccent", "┌" + f" {self.title} ".center(inner, "─")[:inner] + "┐")
        rows = [("│" + row[:inner].ljust(inner) + "│") for row in self.body()]
        return [top, *rows, self.theme.fg("borderAccent", "└" + "─" * inner + "┘")]


class AnchorPanel(Panel):
    title = "anchors"

    def __init__(self, theme: Any, done: Any) -> None:
        super().__init__(theme, done)
        self.index = 1

    def options(self) -> dict[str, Any]:
        return {"width": 30, "anchor": ANCHORS[self.index]}

    def body(self) -> list[str]:
        return [f"anchor: {ANCHORS[self.index]}", "←/→ move · q close"]

    def keys(self, key: str) -> None:
        if key in ("left", "right"):
            self.index = max(0, min(2, self.index + (1 if key == "right" else -1)))


class MarginPanel(Panel):
    title = "margins"

    def __init__(self, theme: Any, done: Any) -> None:
        super().__init__(theme, done)
        self.margin = 4

    def options(self) -> dict[str, Any]:
        return {"width": 30, "anchor": "right", "margin": self.margin}

    def body(self) -> list[str]:
        return [f"margin: {self.margin}", "+/- change · q close"]

    def keys(self, key: str) -> None:
        if key in ("+", "-"):
            self.margin = max(0, self.margin + (1 if key == "+" else -1))


class PercentPanel(Panel):
    title = "percent"

    def __init__(self, theme: Any, done: Any) -> None:
        super().__init__(theme, done)
        self.index = 1

    def options(self) -> dict[str, Any]:
        return {"width": PERCENTS[self.index]}

    def body(self) -> list[str]:
        return [f"width: {PERCENTS[self.index]}", "↑/↓ change · q close"]

    def keys(self, key: str) -> None:
        if key in ("up", "down"):
            self.index = max(0, min(3, self.index + (1 if key == "up" else -1)))


class MaxHeightPanel(Panel):
    title = "max height"

    def __init__(self, theme: Any, done: Any) -> None:
        super().__init__(theme, done)
        self.max_height = 8

    def options(self) -> dict[str, Any]:
        return {"width": 30, "max_height": self.max_height}

    def body(self) -> list[str]:
        return [f"row {n} of 40 (max {self.max_height})" for n in range(1, 41)]

    def keys(self, key: str) -> None:
        if key in ("up", "down"):
            self.max_height = max(3, self.max_height + (1 if key == "down" else -1))


class StackPanel(Panel):
    def __init__(self, theme: Any, done: Any, depth: int, open_next: Any) -> None:
        super().__init__(theme, done)
        self.depth, self.open_next = depth, open_next
        self.title = f"stack level {depth}"

    def body(self) -> list[str]:
        return ["enter: open one more" if self.depth < 3 else "the top of the stack", "q: close this one"]

    def keys(self, key: str) -> None:
        if key == "enter" and self.depth < 3:
            self.open_next(self.depth + 1)


class TogglePanel(Panel):
    title = "toggle"

    def body(self) -> list[str]:
        return ["space: hide (space again shows me)", "q: close"]


class BouncePanel(Panel):
    title = "animation"

    def __init__(self, theme: Any, done: Any) -> None:
        super().__init__(theme, done)
        self.position, self.heading, self.frames = 0, 1, 0

    def tick(self) -> bool:
        self.frames += 1
        if not 0 <= self.position + self.heading < 20:
            self.heading = -self.heading
        self.position += self.heading
        return True

    def body(self) -> list[str]:
        return [" " * self.position + "●", f"frame {self.frames}"]


def extension(pi: ExtensionAPI) -> None:
    async def show(ctx: ExtensionCommandContext, panel_type: type[Panel]) -> None:
        panels: list[Any] = []

        def build(context: Any, done: Any) -> Panel:
            panels.append(panel_type(context.theme, done))
            return panels[-1]

        await ctx.ui.custom(build, overlay=True, overlay_options=lambda: panels[-1].options() if panels else {})

    @pi.command("overlay-anchors", description="Overlay anchors left, center, right")
    async def anchors(args: str, ctx: ExtensionCommandContext) -> None:
        await show(ctx, AnchorPanel)

    @pi.command("overlay-margins", description="Overlay margin")
    async def margins(args: str, ctx: ExtensionCommandContext) -> None:
        await show(ctx, MarginPanel)

    @pi.command("overlay-percent", description="Overlay widths in per cent")
    async def percent(args: str, ctx: ExtensionCommandContext) -> None:
        await show(ctx, PercentPanel)

    @pi.command("overlay-maxheight", description="Overlay max_height")
    async def maxheight(args: str, ctx: ExtensionCommandContext) -> None:
        await show(ctx, MaxHeightPanel)

    @pi.command("overlay-stack", description="Overlays stacked three deep")
    async def stack(args: str, ctx: ExtensionCommandContext) -> None:
        async def open_level(depth: int) -> None:
            def build(context: Any, done: Any) -> Panel:
                # The next level opens while this one stays open underneath.
                return StackPanel(
                    context.theme, done, depth, lambda d: opened.append(asyncio.ensure_future(open_level(d)))
                )

            await ctx.ui.custom(build, overlay=True, overlay_options={"width": 24 + 6 * depth})

        opened: list[asyncio.Task[None]] = []
        await open_level(1)
        for task in opened:
            task.cancel()

    @pi.command("overlay-toggle", description="Hide and show an overlay through its handle")
    async def toggle(args: str, ctx: ExtensionCommandContext) -> None:
        handles: list[Any] = []
        unsubscribe: list[Any] = []

        def on_key(data: str) -> dict[str, bool] | None:
            if data == " " and handles and handles[0].is_hidden():
                handles[0].show()
                return {"consume": True}
            return None

        class Toggle(TogglePanel):
            def keys(self, key: str) -> None:
                if key == "space" and handles:
                    handles[0].hide()

        unsubscribe.append(ctx.ui.on_terminal_input(on_key))
        try:
            await ctx.ui.custom(lambda context, done: Toggle(context.theme, done), overlay=True,
                                overlay_options={"width": 40}, on_handle=handles.append)  # fmt: skip
        finally:
            unsubscribe[0]()

    @pi.command("overlay-animation", description="A ball bouncing at ten frames a second")
    async def animation(args: str, ctx: ExtensionCommandContext) -> None:
        await ctx.ui.custom(lambda context, done: BouncePanel(context.theme, done), overlay=True,
                            overlay_options={"width": 30})  # fmt: skip
