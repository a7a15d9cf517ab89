"""The key help under the ``/tree`` title, worded and laid out as Pi 1.4.0's.

Each item names the first key of its actions; keys sharing their modifiers are written once
(``ctrl+d/t/u/l/a``) and arrows and page keys are drawn as ``↑ ↓ ← →``, ``pgup``, ``pgdn``.
Items are joined with `` · `` and wrapped between items, each row indented by two columns.
"""

from __future__ import annotations

import re

from pi_harness.tui.ansi import visible_width, wrap
from pi_harness.tui.keybindings import KeyMap
from pi_harness.tui.theme import Theme

# (actions, label, whether the label comes before the keys)
HELP_ITEMS: tuple[tuple[tuple[str, ...], str, bool], ...] = (
    (("tui.select.up", "tui.select.down"), "move", False),
    (("tui.editor.cursorLeft", "tui.editor.cursorRight"), "page", False),
    (("app.tree.foldOrUp", "app.tree.unfoldOrDown"), "branch", False),
    (("app.message.copy",), "copy", False),
    (("app.tree.editLabel",), "label", False),
    (("app.tree.toggleLabelTimestamp",), "label time", False),
    (("app.tree.filter.default", "app.tree.filter.noTools", "app.tree.filter.userOnly",
      "app.tree.filter.labeledOnly", "app.tree.filter.all"), "filters", True),
    (("app.tree.filter.cycleForward", "app.tree.filter.cycleBackward"), "cycle", True),
)  # fmt: skip

_NAMES = (("pageUp", "pgup"), ("pageDown", "pgdn"), ("up", "↑"), ("down", "↓"), ("left", "←"), ("right", "→"))


def _compact(keys: list[str]) -> str:
    """``ctrl+d``, ``ctrl+t`` → ``ctrl+d/t`` when every key has the same modifiers."""
    if len(keys) == 1:
        return keys[0]
    split = [key.rpartition("+") for key in keys]
    prefix = split[0][0] + split[0][1]
    if prefix and all(head + plus == prefix for head, plus, _ in split):
        return prefix + "/".join(tail for _, _, tail in split)
    return "/".join(keys)


def help_keys(keymap: KeyMap, actions: tuple[str, ...]) -> str:
    keys = [keymap.spelled(found[0]) for found in (keymap.keys(action) for action in actions) if found]
    if not keys:
        return ""
    text = _compact(keys)
    for name, short in _NAMES:
        text = re.sub(rf"\b{name}\b", short, text)
    return text


def tree_help(keymap: KeyMap, theme: Theme, width: int) -> list[str]:
    items = []
    for actions, label, label_first in HELP_ITEMS:
        keys = help_keys(keymap, actions)
        items.append(label if not keys else f"{label} {keys}" if label_first else f"{keys} {label}")
    room, indent, sep = max(1, width), "  ", " · "
    rows: list[str] = []
    line = ""
    for item in items:
        start = f"{indent}{item}" if visible_width(indent + item) <= room else item
        if not line:
            line = start
        elif visible_width(f"{line}{sep}{item}") <= room:
            line = f"{line}{sep}{item}"
        else:
            rows += wrap(line.rstrip(), room)
            line = start
    if line:
        rows += wrap(line.rstrip(), room)
    return [theme.fg("muted", row) for row in rows]
