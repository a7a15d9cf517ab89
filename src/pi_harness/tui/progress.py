"""OSC 9;4: the terminal's own progress indicator (a busy tab or taskbar entry) while the agent works.

Only sent when ``terminal.showTerminalProgress`` is on. The indeterminate state is repeated once
a second, as Pi does, because some terminals drop it after a while without news.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["PROGRESS_ACTIVE", "PROGRESS_CLEAR", "TerminalProgress"]

PROGRESS_ACTIVE = "\x1b]9;4;3\x07"
PROGRESS_CLEAR = "\x1b]9;4;0\x07"
KEEPALIVE_SECONDS = 1.0


class TerminalProgress:
    def __init__(
        self, write: Callable[[str], None], *, enabled: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.write = write
        self.enabled = enabled
        self.clock = clock
        self.active = False
        self._last = 0.0

    def set(self, active: bool) -> None:
        if not self.enabled:
            return
        if active:
            self.write(PROGRESS_ACTIVE)
            self._last = self.clock()
        elif self.active:
            self.write(PROGRESS_CLEAR)
        self.active = active

    def tick(self) -> None:
        """Repeat the busy state once a second while it is on."""
        if self.enabled and self.active and self.clock() - self._last >= KEEPALIVE_SECONDS:
            self.write(PROGRESS_ACTIVE)
            self._last = self.clock()
