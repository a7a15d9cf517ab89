"""The key table as prompt_toolkit key bindings.

``build_key_bindings(keymap, handlers)`` binds every key of every action that has a handler.
Several actions may share a key (``ctrl+d`` deletes forward *and* quits on an empty editor;
``up`` moves the cursor *and* the selection): their handlers run in the order of ``handlers``
until one returns something other than ``False``, so a handler declines by returning ``False``.
When every handler declines a printable key (``shift+l`` outside the tree selector), it is typed.

prompt_toolkit has no key for a modified Enter, ``ctrl+backspace`` or ``ctrl+shift+<letter>``;
terminals that can tell them apart (``keyboard_protocol.py``) send CSI-u (``ESC [ 13 ; 2 u``) or
xterm modifyOtherKeys (``ESC [ 27 ; 2 ; 13 ~``) sequences, which the input parser (``pt_input.py``)
delivers as private key sequences (``ESC F24 <key>``) that no terminal sends. A private sequence
nothing binds is swallowed rather than replayed as an Escape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from pi_harness.tui.keybindings import KeyMap

ActionHandler = Callable[[], bool | None]
TextHandler = Callable[[str], None]
# Sees every key first with its name and raw data (``key_id``); True consumes it.
KeyHook = Callable[[str, str], bool]

_SPECIAL: dict[str, Keys | str] = {
    "escape": Keys.Escape, "enter": Keys.ControlM, "tab": Keys.ControlI, "space": " ",
    "backspace": Keys.ControlH, "delete": Keys.Delete, "insert": Keys.Insert, "home": Keys.Home, "end": Keys.End,
    "pageUp": Keys.PageUp, "pageDown": Keys.PageDown, "up": Keys.Up, "down": Keys.Down, "left": Keys.Left,
    "right": Keys.Right, **{f"f{n}": Keys(f"f{n}") for n in range(1, 13)},
}  # fmt: skip
# ctrl+- arrives as ctrl+_ (0x1f). ctrl+backspace is told apart only by the extended key reports.
# ctrl+[ is Escape in every legacy terminal; the kitty protocol reports it apart, and it stays Escape.
_CTRL_SYMBOLS = {"]": Keys("c-]"), "\\": Keys("c-\\"), "^": Keys("c-^"), "_": Keys("c-_"), "-": Keys("c-_"),
                 "@": Keys.ControlAt, "space": Keys.ControlAt, "[": Keys.Escape}  # fmt: skip
_MOVEMENT = ("up", "down", "left", "right", "home", "end", "delete", "insert", "pageUp", "pageDown")
_PRIVATE_SHIFT = Keys.F24
_PRIVATE_CTRL = Keys.F23
_PRIVATE_CTRL_SHIFT = Keys.F22

_PRIVATE_MARKS = {frozenset({"shift"}): _PRIVATE_SHIFT, frozenset({"ctrl"}): _PRIVATE_CTRL,
                  frozenset({"ctrl", "shift"}): _PRIVATE_CTRL_SHIFT}  # fmt: skip
_PRIVATE_BASES = frozenset({"enter", "backspace", "tab", "escape", "space"})

PtKeys = tuple[Keys | str, ...]


def _base(key: str) -> Keys | str:
    if key in _SPECIAL:
        return _SPECIAL[key]
    return key


def _movement(key: str, prefix: str) -> Keys | str:
    name = {"pageUp": "pageup", "pageDown": "pagedown"}.get(key, key)
    return Keys(f"{prefix}-{name}")


def to_pt_keys(spec: str) -> PtKeys | None:
    """prompt_toolkit keys for a normalised key spec, or None when prompt_toolkit cannot see it."""
    *modifiers, key = spec.split("+") if not spec.endswith("++") else [*spec[:-2].split("+"), "+"]
    mods = set(modifiers)
    if "super" in mods:
        return None
    prefix: PtKeys = (Keys.Escape,) if "alt" in mods else ()
    mods.discard("alt")
    if not mods:
        return (*prefix, _base(key))
    if mods == {"shift"}:
        if key == "tab":
            return (*prefix, Keys.BackTab)
        if key in _MOVEMENT:
            return (*prefix, _movement(key, "s"))
        if len(key) == 1 and key.isalpha():
            return (*prefix, key.upper())
    elif mods == {"ctrl"}:
        if len(key) == 1 and (key.isalpha() or key.isdigit()):
            return (*prefix, Keys(f"c-{key}"))
        if key in _CTRL_SYMBOLS:
            return (*prefix, _CTRL_SYMBOLS[key])
        if key in _MOVEMENT:
            return (*prefix, _movement(key, "c"))
    elif mods == {"ctrl", "shift"}:
        if key in _MOVEMENT:
            return (*prefix, _movement(key, "c-s"))
        if len(key) == 1 and key.isalpha():
            return (*prefix, Keys.Escape, _PRIVATE_CTRL_SHIFT, Keys(f"c-{key}"))
    private = _PRIVATE_MARKS.get(frozenset(mods))
    if private is not None and key in _PRIVATE_BASES:
        # Only the kitty protocol or modifyOtherKeys can report these (ctrl+backspace, shift+enter).
        return (*prefix, Keys.Escape, private, _base(key))
    return None


def _register_extended_sequences() -> None:
    """Route CSI-u / modifyOtherKeys forms of modified Enter and ctrl+shift+letter to private keys."""
    modifier_codes = {2: _PRIVATE_SHIFT, 5: _PRIVATE_CTRL, 6: _PRIVATE_CTRL_SHIFT}
    for modifier, private in modifier_codes.items():
        for sequence in (f"\x1b[13;{modifier}u", f"\x1b[27;{modifier};13~"):
            ANSI_SEQUENCES[sequence] = (Keys.Escape, private, Keys.ControlM)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        target = (Keys.Escape, _PRIVATE_CTRL_SHIFT, Keys(f"c-{letter}"))
        for code in (ord(letter), ord(letter.upper())):
            ANSI_SEQUENCES[f"\x1b[{code};6u"] = target
            ANSI_SEQUENCES[f"\x1b[27;6;{code}~"] = target
    ANSI_SEQUENCES["\x1b[13;3u"] = (Keys.Escape, Keys.ControlM)  # alt+enter in CSI-u form
    # prompt_toolkit 3.0 has ctrl+shift+up and ctrl+shift+down swapped; terminals send A for up.
    ANSI_SEQUENCES["\x1b[1;6A"] = Keys.ControlShiftUp
    ANSI_SEQUENCES["\x1b[1;6B"] = Keys.ControlShiftDown


_register_extended_sequences()


_NAMES: dict[str, str] = {
    "c-m": "enter", "c-j": "enter", "c-i": "tab", "s-tab": "shift+tab", "c-h": "backspace", "c-@": "ctrl+space",
    "escape": "escape", "pageup": "pageUp", "pagedown": "pageDown", "c-_": "ctrl+-", " ": "space",
}  # fmt: skip
_PRIVATE_MODS = {_PRIVATE_SHIFT.value: "shift", _PRIVATE_CTRL.value: "ctrl", _PRIVATE_CTRL_SHIFT.value: "ctrl+shift"}


def key_id(event: KeyPressEvent) -> str:
    """The key of ``event`` in the key table's notation (``up``, ``ctrl+c``, ``alt+x``, ``a``, ``shift+enter``)."""
    keys = [press.key.value if isinstance(press.key, Keys) else press.key for press in event.key_sequence]
    prefix = ""
    if len(keys) >= 3 and keys[0] == "escape" and keys[1] in _PRIVATE_MODS:
        prefix, keys = _PRIVATE_MODS[keys[1]] + "+", keys[2:]
    elif len(keys) >= 2 and keys[0] == "escape":
        prefix, keys = "alt+", keys[1:]
    last = keys[-1] if keys else ""
    if last in _NAMES:
        name = _NAMES[last]
    elif last.startswith(("c-s-", "s-", "c-")) and len(last) > 2:
        mods, _, base = last.rpartition("-")
        words = {"c": "ctrl", "s": "shift"}
        name = "+".join(words[m] for m in mods.split("-")) + "+" + _NAMES.get(base, base)
        if prefix == "ctrl+shift+" and name.startswith("ctrl+"):
            prefix, name = "", "ctrl+shift+" + name[len("ctrl+") :]
    else:
        name = last
    if prefix and name.startswith(prefix):
        return name
    return prefix + name


def build_key_bindings(
    keymap: KeyMap,
    handlers: Mapping[str, ActionHandler],
    *,
    on_text: TextHandler | None = None,
    on_paste: TextHandler | None = None,
    unsupported: list[str] | None = None,
    on_key: KeyHook | None = None,
) -> KeyBindings:
    """Key bindings for the actions in ``handlers`` (in priority order), plus typed and pasted text.

    Keys prompt_toolkit cannot represent are skipped and described in ``unsupported``. ``on_key``
    sees every key before the handlers (raw input listeners, components that read keys).
    """
    chains: dict[PtKeys, list[ActionHandler]] = {}
    for action, handler in handlers.items():
        for spec in keymap.keys(action):
            keys = to_pt_keys(spec)
            if keys is None:
                if unsupported is not None:
                    unsupported.append(f'{action}: "{spec}" cannot be recognised in this terminal')
                continue
            chains.setdefault(keys, []).append(handler)
    bindings = KeyBindings()
    for keys, chain in chains.items():
        bindings.add(*keys)(_chained(chain, on_text, on_key))
    _swallow_unbound_private_keys(bindings, on_key)
    if on_text is not None or on_key is not None:
        text_handler = on_text

        @bindings.add(Keys.Any)
        def _typed(event: KeyPressEvent) -> None:
            if on_key is not None and on_key(key_id(event), event.data):
                return
            data = event.data
            if text_handler is not None and data and data.isprintable():
                text_handler(data)

    if on_paste is not None:
        paste_handler = on_paste

        @bindings.add(Keys.BracketedPaste)
        def _pasted(event: KeyPressEvent) -> None:
            paste_handler(event.data)

    return bindings


def _swallow_unbound_private_keys(bindings: KeyBindings, on_key: KeyHook | None) -> None:
    """A reported key nothing binds (ctrl+enter by default) goes to the raw listeners and stops
    there; otherwise prompt_toolkit would replay its leading ESC as the Escape key (an abort)."""

    def swallow(event: KeyPressEvent) -> None:
        if on_key is not None:
            on_key(key_id(event), event.data)

    for private in _PRIVATE_MARKS.values():
        bindings.add(Keys.Escape, private, Keys.Any)(swallow)


def _chained(
    chain: list[ActionHandler], fallback: TextHandler | None, on_key: KeyHook | None = None
) -> Callable[[KeyPressEvent], Any]:
    """Run the handlers until one accepts; a printable key nobody wanted is typed text (``L`` outside /tree)."""

    def run(event: KeyPressEvent) -> None:
        if on_key is not None and on_key(key_id(event), event.data):
            return
        for handler in chain:
            if handler() is not False:
                return
        data = event.data
        if fallback is not None and data and data.isprintable():
            fallback(data)

    return run
