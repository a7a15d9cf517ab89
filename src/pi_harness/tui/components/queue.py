"""Messages waiting for the agent (``queue_update``), shown above the editor as Pi 1.4.0 shows them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_harness.tui.ansi import truncate
from pi_harness.tui.components.base import RenderContext


class QueueView:
    def __init__(self, context: RenderContext) -> None:
        self.context = context
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    def set(self, steering: Sequence[str], follow_up: Sequence[str]) -> None:
        self.steering = list(steering)
        self.follow_up = list(follow_up)

    def update_from_event(self, event: Mapping[str, object]) -> None:
        steering, follow_up = event.get("steering"), event.get("followUp")
        self.set(
            [str(s) for s in steering] if isinstance(steering, list) else [],
            [str(s) for s in follow_up] if isinstance(follow_up, list) else [],
        )

    @property
    def empty(self) -> bool:
        return not self.steering and not self.follow_up

    def render(self, width: int) -> list[str]:
        if self.empty:
            return []
        theme = self.context.theme
        lines = [""]  # Pi 1.4.0: a blank row, the messages, then the hint, all dim and one column in
        for label, texts in (("Steering", self.steering), ("Follow-up", self.follow_up)):
            for text in texts:
                one_line = " ".join(text.split())
                lines.append(truncate(" " + theme.fg("dim", f"{label}: {one_line}"), width))
        hint = f" ↳ {self.context.key_display('app.message.dequeue')} to edit all queued messages"
        lines.append(truncate(theme.fg("dim", hint), width))
        return lines
