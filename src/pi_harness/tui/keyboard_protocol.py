"""Asking the terminal to report modified keys (Shift+Enter, Ctrl+Enter, Ctrl+Shift+letters).

Legacy terminals send the same byte for Enter and Shift+Enter. At start we push kitty keyboard
protocol flags (disambiguate, event types, alternate keys: 7) and query them with ``ESC [ ? u``,
followed by a Primary Device Attributes query (``ESC [ c``) that every terminal answers: a
non-zero flags reply means the kitty protocol is on; a zero reply, or the DA answer with no
flags reply before it, means the terminal does not know it, and xterm's modifyOtherKeys mode 2
(``ESC [ > 4 ; 2 m``; what tmux's ``extended-keys`` listens for) is enabled instead. No timeout:
the DA answer is the sentinel.

Leaving restores both (pop the flags with ``ESC [ < u``, ``ESC [ > 4 ; 0 m``): on exit, on a
crash (``atexit``), and around suspending or handing the terminal to another program.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable
from typing import Literal

KITTY_FLAGS = 7
PUSH_FLAGS = f"\x1b[>{KITTY_FLAGS}u"
POP_FLAGS = "\x1b[<u"
QUERY_FLAGS = "\x1b[?u"
DEVICE_ATTRIBUTES = "\x1b[c"
MODIFY_OTHER_KEYS_ON = "\x1b[>4;2m"
MODIFY_OTHER_KEYS_OFF = "\x1b[>4;0m"

Mode = Literal["none", "kitty", "modifyOtherKeys"]


class KeyboardProtocol:
    """The negotiation's state. ``write`` sends to the terminal (and flushes); ``fd`` is where a
    crash writes the restoring sequences, when the normal path did not run."""

    def __init__(self, write: Callable[[str], None], fd: int | None = None) -> None:
        self._write = write
        self._fd = fd
        self.mode: Mode = "none"
        self.pushed = False
        self.active = False  # between start() and stop()
        self._pending_attributes = 0  # DA answers owed to our queries (stale ones arrive after a restart)
        self._paused_mode: Mode | None = None

    def start(self) -> None:
        """Push the flags and ask what the terminal made of them."""
        if self.active:
            return
        self.active = True
        self.pushed = True
        self.mode = "none"
        self._pending_attributes += 1
        self._write(PUSH_FLAGS + QUERY_FLAGS + DEVICE_ATTRIBUTES)
        atexit.register(self._restore_at_exit)

    def on_reply(self, params: str, final: str) -> bool:
        """A terminal reply (``?1u``, ``?62;22c``); True when it answered our query."""
        if final == "u" and params.startswith("?") and params[1:].isdigit():
            if not self.active:
                return True
            if int(params[1:]) != 0:
                self._disable_modify_other_keys()
                self.mode = "kitty"
            else:
                self._enable_modify_other_keys()
            return True
        if final == "c" and params.startswith("?"):
            if self._pending_attributes == 0:
                return False  # someone else's query
            self._pending_attributes -= 1
            if self.active and self.mode == "none":
                self._enable_modify_other_keys()
            return True
        return False

    def restore_sequence(self) -> str:
        sequence = POP_FLAGS if self.pushed else ""
        if self.mode == "modifyOtherKeys":
            sequence += MODIFY_OTHER_KEYS_OFF
        return sequence

    def stop(self) -> None:
        """Give the terminal back as we found it."""
        if not self.active:
            return
        sequence = self.restore_sequence()
        self.active, self.pushed, self.mode = False, False, "none"
        atexit.unregister(self._restore_at_exit)
        if sequence:
            self._write(sequence)

    def pause(self) -> None:
        """Before suspending or running another program in the terminal."""
        if self.active:
            self._paused_mode = self.mode
            self.stop()

    def resume(self) -> None:
        """After ``pause``: switch the negotiated mode on again (the terminal did not change)."""
        mode, self._paused_mode = self._paused_mode, None
        if mode is None:
            return
        if mode == "none":  # the answer had not arrived yet: ask again
            self.start()
            return
        self.active = True
        self.pushed = mode == "kitty"
        self.mode = mode
        atexit.register(self._restore_at_exit)
        self._write(PUSH_FLAGS if mode == "kitty" else MODIFY_OTHER_KEYS_ON)

    def _enable_modify_other_keys(self) -> None:
        if self.mode == "none":
            self.mode = "modifyOtherKeys"
            self._write(MODIFY_OTHER_KEYS_ON)

    def _disable_modify_other_keys(self) -> None:
        if self.mode == "modifyOtherKeys":
            self._write(MODIFY_OTHER_KEYS_OFF)
        self.mode = "none"

    def _restore_at_exit(self) -> None:
        if not self.active or self._fd is None:
            return
        try:
            os.write(self._fd, self.restore_sequence().encode("ascii"))
        except OSError:
            pass  # the terminal is already gone
        self.active = False
