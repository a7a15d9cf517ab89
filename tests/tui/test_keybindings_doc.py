"""Every action of Pi 1.4.0's keybindings.md exists in our key table, with Pi's default keys
(Linux/macOS), and can be rebound in keybindings.json. The names come from the reference doc when
it is installed, otherwise from the recorded fixture (which the first test keeps honest)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_harness.tui.keybindings import DEFAULT_KEYBINDINGS, KeyMap, normalize_key

ROOT = Path(__file__).resolve().parents[2]
PI_DOC = Path("/work/pi-ref/pi/node_modules/@earendil-works/pi-coding-agent/docs/keybindings.md")
RECORDED = ROOT / "tests" / "fixtures" / "pi_1_4_keybindings.json"
OUR_DOC = ROOT / "src" / "pi_harness" / "docs" / "keybindings.md"
# Ours alone: the model selector's "keep as default" key.
OUR_EXTRAS = {"app.model.saveDefault"}
_ROW = re.compile(r"^\|\s*`([a-z]+\.[A-Za-z.]+)`\s*\|([^|]*)\|")


def parse_actions(markdown: str) -> dict[str, list[str]]:
    """Action id -> default keys from the doc's tables; what is in parentheses (other platforms) is left out."""
    actions: dict[str, list[str]] = {}
    for line in markdown.splitlines():
        match = _ROW.match(line)
        if match is None:
            continue
        defaults = re.sub(r"\([^)]*\)", "", match.group(2))
        actions[match.group(1)] = re.findall(r"`([^`]+)`", defaults)
    return actions


def pi_actions() -> dict[str, list[str]]:
    if PI_DOC.is_file():
        return parse_actions(PI_DOC.read_text(encoding="utf-8"))
    recorded: dict[str, list[str]] = json.loads(RECORDED.read_text(encoding="utf-8"))
    return recorded


@pytest.mark.skipif(not PI_DOC.is_file(), reason="Pi 1.4.0's reference package is not installed")
def test_the_recorded_names_are_pi_s() -> None:
    assert parse_actions(PI_DOC.read_text(encoding="utf-8")) == json.loads(RECORDED.read_text(encoding="utf-8"))


def test_every_pi_action_exists_with_pi_s_default_keys() -> None:
    actions = pi_actions()
    assert len(actions) > 80
    assert "app.message.copy" in actions
    missing = sorted(set(actions) - set(DEFAULT_KEYBINDINGS))
    assert missing == []
    keymap = KeyMap()
    for action, keys in actions.items():
        assert keymap.keys(action) == tuple(normalize_key(key) for key in keys), action
    assert set(DEFAULT_KEYBINDINGS) - set(actions) == OUR_EXTRAS


def test_every_pi_action_can_be_rebound_in_keybindings_json(agent_dir: Path) -> None:
    actions = pi_actions()
    overrides = {"$schema": "https://pi.dev/schemas/keybindings.schema.json", **dict.fromkeys(actions, "f5")}
    (agent_dir / "keybindings.json").write_text(json.dumps(overrides), encoding="utf-8")
    keymap = KeyMap.load(agent_dir)
    assert keymap.diagnostics == []
    assert all(keymap.keys(action) == ("f5",) for action in actions)


def test_our_keybindings_doc_lists_every_action() -> None:
    documented = OUR_DOC.read_text(encoding="utf-8")
    missing = [action for action in [*pi_actions(), *OUR_EXTRAS] if f"`{action}`" not in documented]
    assert missing == []
