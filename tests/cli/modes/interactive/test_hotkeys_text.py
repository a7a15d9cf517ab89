"""``/hotkeys``'s tables: Pi 1.4.0's rows, keys in their capitalised form, extension shortcuts last.

Observed in Pi 1.4.0 (80 columns, default keys): the Navigation table starts with
``Up / Down / Left/Ctrl+B / Right/Ctrl+F`` (Move cursor / browse history), Other has
``Ctrl+P / Shift+Ctrl+P`` (Cycle models) and ends with ``/``, ``!`` and ``!!``.
"""

from __future__ import annotations

from pi_harness.cli.modes.interactive.hotkeys import hotkeys_markdown
from pi_harness.tui.keybindings import KeyMap


def test_tables_name_every_key_as_pi_does() -> None:
    text = hotkeys_markdown(KeyMap())
    assert text.startswith("**Navigation**\n| Key | Action |\n|-----|--------|\n")
    assert "| `Up` / `Down` / `Left/Ctrl+B` / `Right/Ctrl+F` | Move cursor / browse history |" in text
    assert "| `Ctrl+P` / `Shift+Ctrl+P` | Cycle models |" in text
    assert "| `Escape` | Cancel autocomplete / abort streaming |" in text
    assert text.endswith("| `!!` | Run bash command (excluded from context) |")
    assert "**Extensions**" not in text


def test_extension_shortcuts_and_overridden_keys() -> None:
    keymap = KeyMap.with_overrides({"app.model.select": ["ctrl+k", "alt+m"]})
    text = hotkeys_markdown(keymap, [("ctrl+shift+x", "Do the thing")])
    assert "| `Ctrl+K/Alt+M` | Open model selector |" in text
    assert text.endswith("**Extensions**\n| Key | Action |\n|-----|--------|\n| `Ctrl+Shift+X` | Do the thing |")
