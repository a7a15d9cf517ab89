"""The transcript of fullscreen mode as one list of rendered lines, kept at the area's width.

In regular mode finished blocks are written into the terminal's scrollback and forgotten; here
they stay in the application, so the buffer renders the transcript's history blocks itself,
appending the blocks that finished since the last frame and rendering everything again when
the width, the look (``RenderContext.generation``) or the transcript object changed. User
messages are marked so ``previousPrompt``/``nextPrompt`` can jump between them.
"""

from __future__ import annotations

from pi_harness.tui.components.user_message import UserMessageView
from pi_harness.tui.transcript import Transcript


class TranscriptBuffer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.marks: list[int] = []  # first line of each user message
        self._key: tuple[int, int, int] | None = None
        self._blocks = 0  # history blocks rendered into ``lines``
        self._plain: list[str] | None = None

    def sync(self, transcript: Transcript, width: int) -> bool:
        """Bring the lines up to date; True when the lines changed."""
        key = (id(transcript), width, transcript.context.generation)
        history = transcript.history
        if key != self._key or self._blocks > len(history):
            self._key = key
            self.lines, self.marks, self._blocks = [], [], 0
        if self._blocks == len(history) and self.lines:
            return False
        changed = self._blocks < len(history) or not self.lines
        for component in history[self._blocks :]:
            rendered = component.render(width)
            if not rendered:
                continue
            self.lines.append("")  # blocks are separated by a blank line, as in the scrollback
            if isinstance(component, UserMessageView):
                self.marks.append(len(self.lines))
            self.lines.extend(rendered)
        self._blocks = len(history)
        if changed:
            self._plain = None
        return changed

    def invalidate(self) -> None:
        """Render everything again on the next ``sync`` (a full redraw was asked for)."""
        self._key = None

    def plain(self) -> list[str]:
        """The lines without styles (search and copy work on what the user reads)."""
        if self._plain is None:
            from pi_harness.tui.ansi import strip_ansi

            self._plain = [strip_ansi(line) for line in self.lines]
        return self._plain
