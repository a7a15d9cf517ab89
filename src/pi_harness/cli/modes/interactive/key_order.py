"""The order in which the actions sharing a key are offered the key press.

Several actions share keys (``ctrl+d`` deletes forward, quits on an empty editor, deletes a
session in the picker and resets the tree filter). Actions that only mean something inside a
selector come first and decline outside it; then the application actions, which decline when
they do not apply (``app.exit`` with text in the editor); the editor operations come last.
"""

from __future__ import annotations

from pi_harness.tui.keybindings import DEFAULT_KEYBINDINGS

_SELECTOR_PREFIXES = ("tui.select.", "app.tree.", "app.models.")
_SELECTOR_ACTIONS = frozenset({
    "app.session.togglePath", "app.session.toggleSort", "app.session.toggleNamedFilter", "app.session.rename",
    "app.session.delete", "app.session.deleteNoninvasive", "app.model.saveDefault", "app.thinking.save",
})  # fmt: skip


def _rank(action: str) -> int:
    if action.startswith(_SELECTOR_PREFIXES) or action in _SELECTOR_ACTIONS:
        return 0
    if action.startswith(("app.", "tui.altScreen.")):  # fullscreen's transcript keys win over the editor's
        return 1
    if action.startswith("tui.input."):
        return 2
    return 3


ACTION_ORDER: tuple[str, ...] = tuple(sorted(DEFAULT_KEYBINDINGS, key=_rank))
SELECTOR_ACTIONS: frozenset[str] = frozenset(a for a in DEFAULT_KEYBINDINGS if _rank(a) == 0)
