"""Where the fullscreen transcript is scrolled to.

``top`` is the first visible line, or None while following the end (new output scrolls into
view). Scrolling up keeps ``top`` fixed while output arrives below; scrolling back to the end
follows again.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Scroll:
    top: int | None = None
    height: int = 1  # rows of the transcript area in the last frame
    total: int = 0  # lines of the transcript in the last frame

    @property
    def following(self) -> bool:
        return self.top is None

    @property
    def last_top(self) -> int:
        return max(0, self.total - self.height)

    def first_visible(self) -> int:
        return self.last_top if self.top is None else min(self.top, self.last_top)

    def layout(self, total: int, height: int) -> int:
        """Record the frame's size; the first visible line."""
        self.total, self.height = total, max(1, height)
        if self.top is not None and self.top >= self.last_top:
            self.top = None
        return self.first_visible()

    def scroll_to(self, top: int) -> None:
        top = max(0, top)
        self.top = None if top >= self.last_top else top

    def scroll_by(self, lines: int) -> None:
        self.scroll_to(self.first_visible() + lines)

    def page(self, direction: int, fraction: float = 1.0) -> None:
        # A page keeps one line of the previous one in view, so the reader does not lose the thread.
        step = max(1, int((self.height - 1) * fraction)) if fraction < 1 else max(1, self.height - 1)
        self.scroll_by(direction * step)

    def to_end(self) -> None:
        self.top = None

    def reveal(self, line: int) -> None:
        """Scroll so ``line`` is visible, about a third from the top when it was not."""
        first = self.first_visible()
        if first <= line < first + self.height:
            return
        self.scroll_to(line - self.height // 3)
