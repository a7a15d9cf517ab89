"""The key table: every action of the interactive UI and the keys bound to it.

Action ids and default keys are Pi's (``tui.*`` for editor/list primitives, ``app.*`` for the
application). ``<agentDir>/keybindings.json`` overrides the keys of any action
(``{"app.tools.expand": "ctrl+e", "tui.input.newLine": ["shift+enter", "ctrl+j"]}``); the
pre-namespaced ids of older configs (``expandTools``, ``cursorUp`` …) are accepted and migrated.
No key is bound anywhere else: the UI asks this table.

Keys are written ``modifier+key`` with modifiers ``ctrl``, ``shift``, ``alt`` (and ``super``) in
any order; ``esc``/``return`` are aliases of ``escape``/``enter``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from pi_harness.coding.config.paths import KEYBINDINGS_FILE

_EDITOR: dict[str, tuple[str, ...]] = {
    "tui.editor.cursorUp": ("up",),
    "tui.editor.cursorDown": ("down",),
    "tui.editor.cursorLeft": ("left", "ctrl+b"),
    "tui.editor.cursorRight": ("right", "ctrl+f"),
    "tui.editor.cursorWordLeft": ("alt+left", "ctrl+left", "alt+b"),
    "tui.editor.cursorWordRight": ("alt+right", "ctrl+right", "alt+f"),
    "tui.editor.cursorLineStart": ("home", "ctrl+a"),
    "tui.editor.cursorLineEnd": ("end", "ctrl+e"),
    "tui.editor.jumpForward": ("ctrl+]",),
    "tui.editor.jumpBackward": ("ctrl+alt+]",),
    "tui.editor.pageUp": ("pageUp", "ctrl+pageUp"),
    "tui.editor.pageDown": ("pageDown", "ctrl+pageDown"),
    "tui.editor.historyPrevious": (),
    "tui.editor.historyNext": (),
    "tui.editor.deleteCharBackward": ("backspace",),
    "tui.editor.deleteCharForward": ("delete", "ctrl+d"),
    "tui.editor.deleteWordBackward": ("ctrl+w", "alt+backspace"),
    "tui.editor.deleteWordForward": ("alt+d", "alt+delete"),
    "tui.editor.deleteToLineStart": ("ctrl+u",),
    "tui.editor.deleteToLineEnd": ("ctrl+k",),
    "tui.editor.yank": ("ctrl+y",),
    "tui.editor.yankPop": ("alt+y",),
    "tui.editor.undo": ("ctrl+-",),
    # ctrl+j is our addition: most terminals cannot tell shift+enter from enter.
    "tui.input.newLine": ("shift+enter", "ctrl+j"),
    "tui.input.submit": ("enter",),
    "tui.input.tab": ("tab",),
    "tui.input.copy": ("ctrl+c",),
    "tui.select.up": ("up",),
    "tui.select.down": ("down",),
    "tui.select.pageUp": ("pageUp",),
    "tui.select.pageDown": ("pageDown",),
    "tui.select.confirm": ("enter",),
    "tui.select.cancel": ("escape", "ctrl+c"),
}

# Fullscreen mode's transcript (they decline in regular mode, so the editor keeps PageUp/PageDown).
_FULLSCREEN: dict[str, tuple[str, ...]] = {
    "tui.altScreen.pageUp": ("pageUp",),
    "tui.altScreen.pageDown": ("pageDown",),
    "tui.altScreen.halfPageUp": (),
    "tui.altScreen.halfPageDown": (),
    "tui.altScreen.lineUp": (),
    "tui.altScreen.lineDown": (),
    "tui.altScreen.previousPrompt": ("ctrl+shift+up", "ctrl+up"),
    "tui.altScreen.nextPrompt": ("ctrl+shift+down", "ctrl+down"),
    "tui.altScreen.search": ("ctrl+shift+f",),
    "tui.altScreen.searchNext": ("enter", "ctrl+g"),
    "tui.altScreen.searchPrevious": ("shift+enter", "ctrl+shift+g"),
    "tui.altScreen.searchClose": ("escape",),
    "tui.altScreen.top": ("ctrl+home",),
    "tui.altScreen.bottom": ("ctrl+end",),
}

_APP: dict[str, tuple[str, ...]] = {
    "app.interrupt": ("escape",),
    "app.clear": ("ctrl+c",),
    "app.exit": ("ctrl+d",),
    "app.suspend": ("ctrl+z",),
    "app.editor.external": ("ctrl+g",),
    "app.clipboard.pasteImage": ("ctrl+v",),
    "app.session.new": (),
    "app.session.tree": (),
    "app.session.fork": (),
    "app.session.resume": (),
    "app.session.togglePath": ("ctrl+p",),
    "app.session.toggleSort": ("ctrl+s",),
    "app.session.toggleNamedFilter": ("ctrl+n",),
    "app.session.rename": ("ctrl+r",),
    "app.session.delete": ("ctrl+d",),
    "app.session.deleteNoninvasive": ("ctrl+backspace",),
    "app.model.select": ("ctrl+l",),
    "app.model.cycleForward": ("ctrl+p",),
    "app.model.cycleBackward": ("shift+ctrl+p",),
    # In the model selector: keep the chosen model as the default for new sessions (seed 20.6.3).
    "app.model.saveDefault": ("ctrl+s",),
    "app.thinking.cycle": ("shift+tab",),
    "app.thinking.toggle": ("ctrl+t",),
    # In a thinking-level selector: keep the level as the default.
    "app.thinking.save": ("ctrl+s",),
    "app.tools.expand": ("ctrl+o",),
    "app.message.copy": ("ctrl+x",),
    "app.message.followUp": ("alt+enter",),
    "app.message.dequeue": ("alt+up",),
    "app.tree.foldOrUp": ("ctrl+left", "alt+left"),
    "app.tree.unfoldOrDown": ("ctrl+right", "alt+right"),
    "app.tree.editLabel": ("shift+l",),
    "app.tree.toggleLabelTimestamp": ("shift+t",),
    "app.tree.filter.default": ("ctrl+d",),
    "app.tree.filter.noTools": ("ctrl+t",),
    "app.tree.filter.userOnly": ("ctrl+u",),
    "app.tree.filter.labeledOnly": ("ctrl+l",),
    "app.tree.filter.all": ("ctrl+a",),
    "app.tree.filter.cycleForward": ("ctrl+o",),
    "app.tree.filter.cycleBackward": ("shift+ctrl+o",),
    "app.models.save": ("ctrl+s",),
    "app.models.enableAll": ("ctrl+a",),
    "app.models.clearAll": ("ctrl+x",),
    "app.models.toggleProvider": ("ctrl+p",),
    "app.models.reorderUp": ("alt+up",),
    "app.models.reorderDown": ("alt+down",),
}

DEFAULT_KEYBINDINGS: Mapping[str, tuple[str, ...]] = {**_EDITOR, **_FULLSCREEN, **_APP}

DESCRIPTIONS: Mapping[str, str] = {
    "tui.input.submit": "Send the message (steer while the agent works)",
    "tui.input.newLine": "Insert a new line",
    "tui.input.tab": "Complete a path or command",
    "app.message.followUp": "Queue a follow-up message",
    "app.message.dequeue": "Move queued messages back to the editor",
    "app.interrupt": "Abort the agent (twice: the double-escape action)",
    "app.clear": "Clear the editor (twice: quit)",
    "app.exit": "Quit when the editor is empty",
    "app.suspend": "Suspend to the background",
    "app.model.select": "Open the model selector",
    "app.model.cycleForward": "Next scoped model",
    "app.model.cycleBackward": "Previous scoped model",
    "app.thinking.cycle": "Next thinking level",
    "app.thinking.toggle": "Show or hide thinking blocks",
    "app.tools.expand": "Expand or collapse tool output",
    "app.message.copy": "Copy the selection, or the last assistant message",
    "app.editor.external": "Edit the message in the external editor",
    "app.clipboard.pasteImage": "Paste an image from the clipboard",
}

# Ids used before actions were namespaced; keybindings.json files may still use them.
LEGACY_ACTION_IDS: Mapping[str, str] = {
    **{name.rsplit(".", 1)[1]: name for name in _EDITOR if name.startswith(("tui.editor.", "tui.input."))},
    "selectUp": "tui.select.up",
    "selectDown": "tui.select.down",
    "selectPageUp": "tui.select.pageUp",
    "selectPageDown": "tui.select.pageDown",
    "selectConfirm": "tui.select.confirm",
    "selectCancel": "tui.select.cancel",
    "interrupt": "app.interrupt",
    "clear": "app.clear",
    "exit": "app.exit",
    "suspend": "app.suspend",
    "externalEditor": "app.editor.external",
    "pasteImage": "app.clipboard.pasteImage",
    "selectModel": "app.model.select",
    "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward",
    "cycleThinkingLevel": "app.thinking.cycle",
    "toggleThinking": "app.thinking.toggle",
    "expandTools": "app.tools.expand",
    "followUp": "app.message.followUp",
    "dequeue": "app.message.dequeue",
    "newSession": "app.session.new",
    "tree": "app.session.tree",
    "fork": "app.session.fork",
    "resume": "app.session.resume",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel",
    "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
    "toggleSessionPath": "app.session.togglePath",
    "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}
SCHEMA_KEY = "$schema"  # the file may name its JSON schema; it is not an action

MODIFIERS = ("ctrl", "shift", "alt", "super")
_ALIASES = {"esc": "escape", "return": "enter", "pageup": "pageUp", "pagedown": "pageDown", "del": "delete"}
SPECIAL_KEYS = frozenset({
    "escape", "enter", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end", "pageUp",
    "pageDown", "up", "down", "left", "right", *(f"f{n}" for n in range(1, 13)),
})  # fmt: skip
SYMBOL_KEYS = frozenset("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?")


def normalize_key(spec: str) -> str | None:
    """Canonical ``ctrl+shift+alt+super+key`` form, or None when the key is not valid."""
    parts = spec.strip().split("+")
    if len(parts) > 1 and parts[-1] == "" and parts[-2] == "":
        parts = [*parts[:-2], "+"]  # "ctrl++" binds the plus key
    key = parts[-1]
    modifiers = {part.lower() for part in parts[:-1]}
    if not key or not modifiers <= set(MODIFIERS) or len(modifiers) != len(parts) - 1:
        return None
    lowered = key.lower()
    key = _ALIASES.get(lowered, lowered if lowered not in ("pageup", "pagedown") else key)
    if key not in SPECIAL_KEYS and key not in SYMBOL_KEYS and not (len(key) == 1 and key.isalnum() and key.isascii()):
        return None
    return "+".join([*(m for m in MODIFIERS if m in modifiers), key])


def _normalized(keys: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for key in keys:
        normalized = normalize_key(key)
        if normalized is None:  # the table above is ours; a typo there is a bug
            raise ValueError(f"invalid default key {key!r}")
        out.append(normalized)
    return tuple(out)


_NORMALIZED_DEFAULTS = {action: _normalized(keys) for action, keys in DEFAULT_KEYBINDINGS.items()}
# How hints spell a default key whose modifiers Pi writes in another order ("shift+ctrl+p").
_SPELLINGS = {_normalized((key,))[0]: key for keys in DEFAULT_KEYBINDINGS.values() for key in keys}


@dataclass
class KeyMap:
    """Action → keys, after applying user overrides. ``diagnostics`` explains ignored entries."""

    bindings: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(_NORMALIZED_DEFAULTS))
    diagnostics: list[str] = field(default_factory=list)

    @classmethod
    def with_overrides(cls, overrides: Mapping[str, object], source: str = KEYBINDINGS_FILE) -> KeyMap:
        keymap = cls()
        for raw_action, value in overrides.items():
            if raw_action == SCHEMA_KEY:
                continue
            action = raw_action if raw_action in DEFAULT_KEYBINDINGS else LEGACY_ACTION_IDS.get(raw_action)
            if action is not None and action != raw_action and action in overrides:
                continue  # the current id wins over its old name
            if action is None:
                keymap.diagnostics.append(f'{source}: unknown action "{raw_action}"')
                continue
            specs: Iterable[object] = [value] if isinstance(value, str) else value if isinstance(value, list) else ()
            if not isinstance(value, str | list):
                keymap.diagnostics.append(f'{source}: keys of "{raw_action}" must be a string or a list of strings')
                continue
            keys: list[str] = []
            for spec in specs:
                normalized = normalize_key(spec) if isinstance(spec, str) else None
                if normalized is None:
                    keymap.diagnostics.append(f'{source}: invalid key {spec!r} for "{raw_action}"')
                elif normalized not in keys:
                    keys.append(normalized)
            keymap.bindings[action] = tuple(keys)
        return keymap

    @classmethod
    def load(cls, agent_directory: str | Path) -> KeyMap:
        """``<agentDir>/keybindings.json`` applied over the defaults; a bad file keeps the defaults."""
        path = Path(agent_directory) / KEYBINDINGS_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            return cls(diagnostics=[f"Failed to read {path}: {exc.strerror or exc}"])
        try:
            data = orjson.loads(raw.removeprefix(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError as exc:
            return cls(diagnostics=[f"Failed to parse {path}: {exc}"])
        if not isinstance(data, dict):
            return cls(diagnostics=[f"{path}: expected a JSON object of action ids to keys"])
        return cls.with_overrides(data, str(path))

    def keys(self, action: str) -> tuple[str, ...]:
        return self.bindings.get(action, ())

    @staticmethod
    def spelled(key: str) -> str:
        """A key as hints write it: a default key as the table spells it (``shift+ctrl+p``)."""
        return _SPELLINGS.get(key, key)

    def label(self, action: str) -> str:
        """How hints name the action's keys, all of them joined with "/" as Pi's hints do
        (``escape/ctrl+c``), or "" when it is unbound."""
        return "/".join(self.spelled(key) for key in self.keys(action))

    def display_label(self, action: str) -> str:
        """The capitalised form some hints use (``Escape/Ctrl+C``, ``Alt+Up``): every key of the
        action joined with "/", each part of a key starting with a capital; "" when unbound."""
        return "/".join(
            "+".join(part[:1].upper() + part[1:] for part in self.spelled(key).split("+")) for key in self.keys(action)
        )

    def matches(self, action: str, key: str) -> bool:
        normalized = normalize_key(key)
        return normalized is not None and normalized in self.keys(action)

    def actions_for(self, key: str, among: Sequence[str] | None = None) -> list[str]:
        normalized = normalize_key(key)
        candidates = among if among is not None else list(self.bindings)
        return [action for action in candidates if normalized in self.keys(action)]


class RepeatDetector:
    """Recognises a key pressed twice within ``window`` seconds (double Escape, Ctrl+C twice)."""

    def __init__(self, window: float = 0.5) -> None:
        self.window = window
        self._last: dict[str, float] = {}

    def press(self, action: str, now: float) -> bool:
        """Record a press; True when it is the second press within the window (the pair is consumed)."""
        previous = self._last.get(action)
        if previous is not None and now - previous <= self.window:
            del self._last[action]
            return True
        self._last[action] = now
        return False

    def reset(self, action: str | None = None) -> None:
        if action is None:
            self._last.clear()
        else:
            self._last.pop(action, None)
