"""The fullscreen output with OSC 8 links kept to their cells.

prompt_toolkit's renderer writes a cell's zero-width escape (``write_raw``) and then its
character (``write``). For a link cell the escape opens the link; this output holds it until the
character comes, skips it when that link is already open (the cells of one link cost one
escape), and closes the open link before any character without one, before any other raw
output, and at the end of each frame. So whichever cells a frame repaints, exactly the link
cells are linked. Everything else goes to the wrapped output unchanged (prompt_toolkit's own
``ConEmuOutput`` wraps outputs the same way).
"""

from __future__ import annotations

from typing import Any, cast

from prompt_toolkit.output import Output

from pi_harness.cli.modes.interactive.fullscreen.links import LINK_OPEN

__all__ = ["LINK_CLOSE", "LinkOutput", "link_output"]

LINK_CLOSE = "\x1b]8;;\x1b\\"


class LinkOutput:
    def __init__(self, inner: Output) -> None:
        self.inner = inner
        self._write = inner.write  # called once per repainted cell: kept bound
        self._pending: str | None = None  # the escape of the cell about to be written
        self._open: str | None = None  # the link the terminal has open

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _close(self) -> None:
        if self._open is not None:
            self._open = None
            self.inner.write_raw(LINK_CLOSE)

    def write_raw(self, data: str) -> None:
        if data.startswith(LINK_OPEN) and data != LINK_CLOSE:
            self._pending = data
            return
        self._pending = None
        self._close()
        self.inner.write_raw(data)

    def write(self, data: str) -> None:
        pending = self._pending
        if pending is None:
            if self._open is not None:
                self._close()
        else:
            self._pending = None
            if pending != self._open:
                self._open = pending  # a new link also ends the one before
                self.inner.write_raw(pending)
        self._write(data)

    def flush(self) -> None:
        self._pending = None
        self._close()
        self.inner.flush()


Output.register(LinkOutput)


def link_output(inner: Output) -> Output:
    """``inner`` with link cells kept linked (see the module)."""
    return inner if isinstance(inner, LinkOutput) else cast(Output, LinkOutput(inner))
