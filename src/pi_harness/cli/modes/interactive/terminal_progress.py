"""``terminal.showTerminalProgress``: tell the terminal's tab that the agent is working (OSC 9;4).

While a turn or a compaction runs, the indeterminate-progress sequence goes out, repeated every
second (terminals drop a progress state that is not renewed); when it ends, the clearing one. The
setting is read at each event, so ``/settings`` turns it on and off at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

ACTIVE = "\x1b]9;4;3\x07"  # OSC 9;4;3: indeterminate progress
CLEAR = "\x1b]9;4;0\x07"  # OSC 9;4;0: no progress
KEEPALIVE_SECONDS = 1.0
_STARTS = frozenset({"turn_start", "compaction_start", "auto_compaction_start"})
_ENDS = frozenset({"agent_end", "compaction_end", "auto_compaction_end"})


class TerminalProgress:
    def __init__(
        self,
        write: Callable[[str], None],
        enabled: Callable[[], bool],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.enabled = enabled
        self.clock = clock
        self.active = False
        self._sent_at = 0.0

    def _send(self, sequence: str) -> None:
        try:
            self.write(sequence)
        except Exception:  # a closed terminal: the progress is cosmetic, nothing to report
            return
        self._sent_at = self.clock()

    def handle(self, event: Mapping[str, object]) -> None:
        kind = event.get("type")
        if kind in _STARTS and self.enabled():
            self.active = True
            self._send(ACTIVE)
        elif kind in _ENDS and self.active:
            self.active = False
            self._send(CLEAR)

    def clear(self) -> None:
        """Leave the tab without a busy state (pi quits while the agent works)."""
        if self.active:
            self.active = False
            self._send(CLEAR)

    def tick(self) -> bool:
        """The keep-alive (and the clearing, when the setting was turned off meanwhile)."""
        if not self.active:
            return False
        if not self.enabled():
            self.active = False
            self._send(CLEAR)
        elif self.clock() - self._sent_at >= KEEPALIVE_SECONDS:
            self._send(ACTIVE)
        return False  # nothing on the screen changed
