"""prompt_toolkit's input parser, taught the extended key reports (``csi_keys.py``).

``ExtendedKeysParser`` sits in front of prompt_toolkit's VT100 parser: it collects each
``ESC [ ... final`` sequence, delivers the kitty / CSI-u / modifyOtherKeys forms as the key
presses the key table binds (``pt_keys.to_pt_keys``), hands terminal replies (``ESC [ ? 1 u``,
``ESC [ ? 62 c``) to the keyboard protocol instead of typing them, and passes everything else
(plain text, legacy sequences, bracketed pastes, mouse reports) on unchanged and in order.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress

from pi_harness.tui.csi_keys import CsiKey, Dropped, Legacy, decode_csi, is_terminal_reply
from pi_harness.tui.keyboard_protocol import KeyboardProtocol
from pi_harness.tui.pt_keys import to_pt_keys

ReplyHandler = Callable[[str, str], bool]
_MAX_SEQUENCE = 64  # longer "sequences" are garbage: hand them on instead of waiting forever
_X10_MOUSE_BYTES = 3


class ExtendedKeysParser(Vt100Parser):
    def __init__(self, feed_key_callback: Callable[[KeyPress], None], on_reply: ReplyHandler | None = None) -> None:
        self._pending = ""  # an ESC, or an unfinished "ESC [ ..."
        self._raw_left = 0  # bytes of an X10 mouse report, passed on as they are
        self.on_reply = on_reply
        super().__init__(feed_key_callback)

    def reset(self, request: bool = False) -> None:
        self._pending = ""
        self._raw_left = 0
        super().reset(request)

    def feed(self, data: str) -> None:
        index, size = 0, len(data)
        while index < size:
            if self._in_bracketed_paste:  # prompt_toolkit collects the paste and feeds us the rest
                super().feed(data[index:])
                return
            if not self._pending and not self._raw_left:
                escape = data.find("\x1b", index)
                end = size if escape < 0 else escape
                if end > index:
                    super().feed(data[index:end])
                    index = end
                    continue
            char = data[index]
            index += 1
            self._take(char)

    def _take(self, char: str) -> None:
        pending = self._pending
        if self._raw_left:
            self._raw_left -= 1
            super().feed(char)
        elif not pending:
            self._pending = char  # an ESC (plain text never gets here)
        elif pending == "\x1b":
            if char == "[":
                self._pending = "\x1b["
            elif char == "\x1b":
                super().feed(pending)  # ESC ESC: the first is prompt_toolkit's (alt+escape, ESC ESC [ A)
            else:
                self._pending = ""
                super().feed(pending + char)
        elif " " <= char <= "?" and len(pending) < _MAX_SEQUENCE:
            self._pending = pending + char  # parameter and intermediate bytes
        else:
            self._pending = ""
            self._finish(pending + char)

    def _finish(self, sequence: str) -> None:
        params, final = sequence[2:-1], sequence[-1]
        if not "@" <= final <= "~":
            super().feed(sequence)
            return
        if is_terminal_reply(params):
            if self.on_reply is not None:
                self.on_reply(params, final)
            return
        if final == "M" and not params:
            self._raw_left = _X10_MOUSE_BYTES
            super().feed(sequence)
            return
        decoded = decode_csi(params, final)
        if decoded is None:
            super().feed(sequence)
        elif isinstance(decoded, Legacy):
            super().feed(decoded.sequence)
        elif isinstance(decoded, CsiKey):
            self._deliver(decoded, sequence)
        else:
            assert isinstance(decoded, Dropped)

    def _deliver(self, key: CsiKey, raw: str) -> None:
        if key.text is not None:
            self.feed_key_callback(KeyPress(key.text, key.text))
            return
        keys = to_pt_keys(key.key)
        if keys is None:
            return  # a key the key table cannot bind (super+k, ctrl+shift+=)
        last = len(keys) - 1
        for position, pt_key in enumerate(keys):
            # The raw sequence rides on the last press: that is the ``data`` key handlers and
            # raw input listeners see; it is never printable, so it is never typed.
            self.feed_key_callback(KeyPress(pt_key, raw if position == last else ""))

    def flush(self) -> None:
        pending, self._pending = self._pending, ""
        if pending:
            super().feed(pending)
        super().flush()


def install_extended_keys(pt_input: Input, on_reply: ReplyHandler | None = None) -> bool:
    """Put the parser in front of ``pt_input``'s; False when the input has no VT100 parser (Windows)."""
    parser = getattr(pt_input, "vt100_parser", None)
    if not isinstance(parser, Vt100Parser):
        return False
    if isinstance(parser, ExtendedKeysParser):
        parser.on_reply = on_reply
        return True
    setattr(pt_input, "vt100_parser", ExtendedKeysParser(parser.feed_key_callback, on_reply))  # noqa: B010
    return True


def keyboard_protocol_for(app: Application[Any]) -> KeyboardProtocol | None:
    """Install the parser on ``app``'s input and, when its output is a terminal, a keyboard
    protocol to negotiate while the application runs (None otherwise: nothing to ask)."""
    protocol: KeyboardProtocol | None = None
    output = app.output
    try:
        fd: int | None = output.fileno()
        tty = fd is not None and os.isatty(fd)
    except (NotImplementedError, OSError, ValueError):  # a DummyOutput, a closed stream
        fd, tty = None, False
    if tty:

        def write(text: str) -> None:
            output.write_raw(text)
            output.flush()

        protocol = KeyboardProtocol(write, fd)
    if not install_extended_keys(app.input, protocol.on_reply if protocol is not None else None):
        return None  # no VT100 input: the replies could not be read
    return protocol
