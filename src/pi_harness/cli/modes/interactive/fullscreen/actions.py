"""The ``tui.altScreen.*`` actions: scrolling, jumping between prompts and search.

Each handler declines (returns False) in regular mode, so the next action bound to the same
key gets it (PageUp then moves the editor's cursor a page, Escape interrupts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.clipboard import copy_text
from pi_harness.cli.modes.interactive.fullscreen.search import SearchOverlay, SearchState
from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenView

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

Handler = Callable[[], bool | None]

SCROLL_ACTIONS = (
    "tui.altScreen.pageUp", "tui.altScreen.pageDown", "tui.altScreen.halfPageUp", "tui.altScreen.halfPageDown",
    "tui.altScreen.lineUp", "tui.altScreen.lineDown", "tui.altScreen.previousPrompt", "tui.altScreen.nextPrompt",
    "tui.altScreen.top", "tui.altScreen.bottom",
)  # fmt: skip


def scroll(view: FullscreenView, action: str) -> bool:
    """Move the transcript for one of ``SCROLL_ACTIONS``; False for any other action."""
    view.measure()
    position = view.scroll
    name = action.removeprefix("tui.altScreen.")
    if name in ("pageUp", "pageDown"):
        position.page(-1 if name == "pageUp" else 1)
    elif name in ("halfPageUp", "halfPageDown"):
        position.page(-1 if name == "halfPageUp" else 1, 0.5)
    elif name in ("lineUp", "lineDown"):
        position.scroll_by(-1 if name == "lineUp" else 1)
    elif name == "top":
        position.scroll_to(0)
    elif name == "bottom":
        position.to_end()
    elif name in ("previousPrompt", "nextPrompt"):
        first = position.first_visible()
        marks = view.buffer.marks
        if name == "previousPrompt":
            earlier = [mark for mark in marks if mark < first]
            if earlier:
                position.scroll_to(earlier[-1])
        else:
            later = [mark for mark in marks if mark > first]
            if later:
                position.scroll_to(later[0])
            else:
                position.to_end()
    else:
        return False
    view.invalidate()
    return True


def fullscreen_handlers(mode: ModeContext) -> dict[str, Handler]:
    def view() -> FullscreenView | None:
        current = mode.shell.view
        return current if isinstance(current, FullscreenView) else None

    def scroller(action: str) -> Handler:
        def run() -> bool:
            current = view()
            return current is not None and scroll(current, action)

        return run

    def search() -> bool:
        current = view()
        if current is None:
            return False
        open_search(mode, current)
        return True

    current = view()
    if current is not None:
        current.area.on_copy = lambda text: copy_selection(mode, text)
    handlers: dict[str, Handler] = {action: scroller(action) for action in SCROLL_ACTIONS}
    handlers["tui.altScreen.search"] = search
    # Outside a search these decline: Enter submits, Escape interrupts.
    for action in ("tui.altScreen.searchNext", "tui.altScreen.searchPrevious", "tui.altScreen.searchClose"):
        handlers[action] = lambda: False
    return handlers


def copy_selection(mode: ModeContext, text: str) -> None:
    mode.spawn(copy_text(mode, text))
    mode.shell.toast("Copied the selection")


def open_search(mode: ModeContext, view: FullscreenView) -> None:
    shell = mode.shell
    state = view.search = SearchState()

    def changed() -> None:
        view.invalidate()

    def step(direction: int) -> None:
        match = state.step(direction)
        if match is not None:
            view.scroll.reveal(match[0])
        view.invalidate()

    def close() -> None:
        view.search = None
        shell.remove_overlay(overlay)

    overlay = SearchOverlay(
        state, shell.editor_view, on_change=changed, on_step=step, on_close=close,
        on_scroll=lambda action: scroll(view, action),
    )  # fmt: skip
    shell.push_overlay(overlay)
