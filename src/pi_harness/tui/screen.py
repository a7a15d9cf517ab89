"""The bottom of the screen, composed: live transcript, status of the run, the editor and the footer.

From top to bottom: the live transcript blocks, the working indicator, toasts, queued
messages, widgets above the editor, then either an overlay (selector or dialog) or the editor
with its suggestions, widgets below the editor, the footer and the status entries. When it
does not fit, the live transcript gives up its top lines first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_harness.tui.components.autocomplete import Autocomplete
from pi_harness.tui.components.base import Component
from pi_harness.tui.components.dialogs import StatusBar, Toasts, Widgets
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.notices import WorkingIndicator
from pi_harness.tui.components.queue import QueueView
from pi_harness.tui.transcript import Transcript


@dataclass
class ScreenFrame:
    lines: list[str]
    cursor: tuple[int, int] | None = None  # (row, column) of the editor's cursor in ``lines``


@dataclass
class BottomPane:
    transcript: Transcript
    editor: EditorView
    footer: Component  # the built-in ``Footer`` or an extension's (``ctx.ui.set_footer``)
    queue: QueueView | None = None
    autocomplete: Autocomplete | None = None
    working: WorkingIndicator | None = None
    toasts: Toasts | None = None
    status: StatusBar | None = None
    widgets: Widgets = field(default_factory=Widgets)
    overlay: Component | None = None  # a selector or dialog shown instead of the editor
    show_working: bool = False
    editor_component: Component | None = None  # an extension's editor (``ctx.ui.set_editor_component``)
    show_status: bool = True  # an extension's footer shows the status entries itself, or not at all
    fixed_height: int = 0  # rows below the live transcript in the last frame

    def render_fixed(self, width: int) -> tuple[list[str], list[str], tuple[int, int] | None]:
        """Everything below the live transcript: the rows above the editor, the rest, and the
        editor's cursor (relative to the rest)."""
        upper: list[str] = []
        if self.show_working and self.working is not None:
            upper.extend(self.working.render(width))
        for part in (self.toasts, self.queue):
            if part is not None:
                upper.extend(part.render(width))
        upper.extend(self.widgets.render_placement("aboveEditor", width))
        cursor: tuple[int, int] | None = None
        if self.overlay is not None and not getattr(self.overlay, "hidden", False):
            middle = self.overlay.render(width)
        else:
            middle = self.editor.render(width) if self.editor_component is None else self.editor_component.render(width)
            editor_cursor = self.editor.cursor if self.editor_component is None else _cursor_of(self.editor_component)
            if editor_cursor is not None:
                cursor = editor_cursor
            if self.autocomplete is not None:
                middle.extend(self.autocomplete.render(width))
        lower = self.widgets.render_placement("belowEditor", width) + self.footer.render(width)
        if self.status is not None and self.show_status:
            lower.extend(self.status.render(width))
        return upper, [*middle, *lower], cursor

    def render_bottom(self, width: int, height: int | None = None) -> ScreenFrame:
        """The fixed part alone (fullscreen mode draws the live transcript in its own area);
        when taller than ``height`` its top rows go first."""
        upper, rest, cursor = self.render_fixed(width)
        lines = [*upper, *rest]
        cursor = (cursor[0] + len(upper), cursor[1]) if cursor else None
        self.fixed_height = len(lines)
        if height is not None and len(lines) > height:
            cut = len(lines) - height
            lines = lines[cut:]
            cursor = (cursor[0] - cut, cursor[1]) if cursor and cursor[0] >= cut else None
        return ScreenFrame(lines, cursor)

    def render(self, width: int, height: int | None = None) -> ScreenFrame:
        upper, rest, cursor = self.render_fixed(width)
        fixed = [*upper, *rest]
        self.fixed_height = len(fixed)
        live = self.transcript.render_live(width)
        live.append("")  # a blank row between the conversation and what follows
        if height is not None and len(live) + len(fixed) > height:
            live = live[max(0, len(live) - max(0, height - len(fixed))) :]
        lines = live + fixed
        if height is not None and len(lines) > height:
            cut = len(lines) - height
            lines = lines[cut:]
            cursor = (cursor[0] + len(live) + len(upper) - cut, cursor[1]) if cursor else None
            if cursor is not None and cursor[0] < 0:
                cursor = None
        elif cursor is not None:
            cursor = (cursor[0] + len(live) + len(upper), cursor[1])
        return ScreenFrame(lines, cursor)

    def live_budget(self, height: int) -> int:
        """How many live transcript rows fit above the fixed part (for ``take_finished(live_limit=…)``)."""
        return max(3, height - self.fixed_height - 1)


def _cursor_of(component: Component) -> tuple[int, int] | None:
    """Where an extension's editor puts the terminal cursor (its ``cursor`` after ``render``), if it says."""
    cursor: Any = getattr(component, "cursor", None)
    if isinstance(cursor, tuple) and len(cursor) == 2 and all(isinstance(v, int) for v in cursor):
        return (cursor[0], cursor[1])
    return None
