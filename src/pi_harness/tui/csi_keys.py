"""Keys that terminals report as CSI sequences prompt_toolkit does not know, in our key notation.

Three families reach us once the keyboard protocol is negotiated (``keyboard_protocol.py``):

- the kitty keyboard protocol and CSI-u: ``ESC [ code[:shifted[:base]] [; mods[:event]] u``;
- xterm's modifyOtherKeys (what tmux sends with ``extended-keys``): ``ESC [ 27 ; mods ; code ~``;
- the legacy forms prompt_toolkit does know (``ESC [ 1 ; 5 A``) with a kitty event type appended
  (``ESC [ 1 ; 5 : 2 A`` for a repeat), which are handed back without the event type.

Modifiers are ``1 + bits`` (shift 1, alt 2, ctrl 4, super 8; caps/num lock ignored). Release
events are dropped, repeats count as presses. Everything here is pure string work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHIFT, ALT, CTRL, SUPER = 1, 2, 4, 8
_LOCKS = 64 | 128  # caps lock, num lock
_HYPER_META = 16 | 32
RELEASE = 3

_NAMED_CODES = {13: "enter", 9: "tab", 27: "escape", 127: "backspace", 8: "backspace", 32: "space", 57414: "enter"}
# The keypad's keys in kitty's private-use range, as the characters they type.
_KEYPAD = {**{57399 + n: str(n) for n in range(10)}, 57409: ".", 57410: "/", 57411: "*", 57412: "-",
           57413: "+", 57415: "="}  # fmt: skip
_SHIFT_IGNORED = frozenset({"backspace", "escape"})
_U_FORM = re.compile(r"(\d+)(?::(\d*))?(?::(\d*))?(?:;(\d*)(?::(\d+))?)?(?:;[\d:]*)?")
_MODIFY_OTHER_KEYS = re.compile(r"27;(\d+);(\d+)")
# Legacy forms with an event type or a lock modifier: "1;5:2A", "3;1:3~", "1;1:1H", "1;133A".
_LEGACY_EVENT = re.compile(r"(\d*);(\d+)(?::(\d+))?")
_KEY_FINALS = frozenset("ABCDEFHPQRS~")


@dataclass(frozen=True)
class CsiKey:
    """A decoded key: ``key`` in our notation (``shift+enter``, ``ctrl+shift+a``), or the
    character it types (``text``) when only Shift (or nothing) was held on a printable key."""

    key: str
    text: str | None = None


@dataclass(frozen=True)
class Legacy:
    """A sequence prompt_toolkit understands, rebuilt without the kitty event type."""

    sequence: str


class Dropped:
    """A key release, a modifier key alone, or a key we have no name for: nothing to deliver."""


DROPPED = Dropped()
Decoded = CsiKey | Legacy | Dropped


def _modifier_names(bits: int) -> list[str]:
    names = [("ctrl", CTRL), ("shift", SHIFT), ("alt", ALT), ("super", SUPER)]
    return [name for name, bit in names if bits & bit]


def key_from_code(code: int, bits: int, shifted: int | None = None) -> Decoded:
    """The key for a Unicode code point (or kitty functional code) and modifier bits."""
    bits &= ~_LOCKS
    if bits & _HYPER_META:
        return DROPPED  # modifiers our key notation cannot name
    name = _NAMED_CODES.get(code) or _KEYPAD.get(code)
    if name is None:
        if code < 32 or 0xE000 <= code <= 0xF8FF or code > 0x10FFFF or not chr(code).isprintable():
            return DROPPED  # control codes, modifier keys alone, media keys ...
        name = chr(code)
    if name == "space" and not bits & ~SHIFT:
        return CsiKey("space", " ")
    if name in _SHIFT_IGNORED and bits == SHIFT:
        bits = 0  # shift+backspace deletes, as in every legacy terminal
    if len(name) == 1:
        if name.isupper():  # tmux and xterm report ctrl+shift+a with the code of "A"
            name, bits = name.lower(), bits | SHIFT
        if bits & SHIFT and not name.isalpha() and shifted:
            name, bits = chr(shifted), bits & ~SHIFT  # alt+shift+1 is alt+!
        if not bits & ~SHIFT:
            typed = chr(shifted) if bits & SHIFT and shifted else name.upper() if bits & SHIFT else name
            return CsiKey(typed, typed)
    return CsiKey("+".join([*_modifier_names(bits), name]))


def _number(text: str | None, default: int) -> int:
    return int(text) if text else default


def decode_csi(params: str, final: str) -> Decoded | None:
    """Decode ``ESC [ params final``; None when it is not one of the forms above (hand it on)."""
    if final == "u":
        match = _U_FORM.fullmatch(params)
        if match is None:
            return None
        code, shifted, _base, mods, event = match.groups()
        if _number(event, 1) == RELEASE:
            return DROPPED
        return key_from_code(int(code), _number(mods, 1) - 1, int(shifted) if shifted else None)
    if final == "~":
        other = _MODIFY_OTHER_KEYS.fullmatch(params)
        if other is not None:
            return key_from_code(int(other.group(2)), int(other.group(1)) - 1)
    legacy = _LEGACY_EVENT.fullmatch(params)
    if legacy is None or final not in _KEY_FINALS:
        return None
    number, mods, event = legacy.groups()
    bits = int(mods) - 1
    # Without an event type or a lock bit it is already legacy; "R" alone is a cursor position report.
    if event is None and (final == "R" or not bits & _LOCKS):
        return None
    if event is not None and int(event) == RELEASE:
        return DROPPED
    bits &= ~_LOCKS
    if bits == 0:  # no modifier: the plain form ("ESC [ A", "ESC [ 3 ~")
        return Legacy(f"\x1b[{number if final == '~' else ''}{final}")
    return Legacy(f"\x1b[{number or '1'};{bits + 1}{final}")


def is_terminal_reply(params: str) -> bool:
    """Answers to our queries (``ESC [ ? 1 u``, ``ESC [ ? 62 ; 22 c``, ``ESC [ > 1 ; 10 ; 0 c``):
    parameters with a private marker other than ``<`` (SGR mouse reports) are never keys."""
    return params[:1] in ("?", ">", "=")
