from __future__ import annotations

import asyncio
import json
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import DummyOutput

from pi_harness.tui.keybindings import DEFAULT_KEYBINDINGS, KeyMap, RepeatDetector, normalize_key
from pi_harness.tui.pt_keys import build_key_bindings, to_pt_keys


def test_defaults_use_pis_action_names_and_keys() -> None:
    keymap = KeyMap()
    expected = {
        "tui.input.submit": ("enter",),
        "app.message.followUp": ("alt+enter",),
        "tui.input.newLine": ("shift+enter", "ctrl+j"),
        "app.message.dequeue": ("alt+up",),
        "app.interrupt": ("escape",),
        "app.clear": ("ctrl+c",),
        "app.exit": ("ctrl+d",),
        "app.model.select": ("ctrl+l",),
        "app.model.cycleForward": ("ctrl+p",),
        "app.model.cycleBackward": ("ctrl+shift+p",),
        "app.thinking.cycle": ("shift+tab",),
        "app.tools.expand": ("ctrl+o",),
        "app.thinking.toggle": ("ctrl+t",),
        "app.editor.external": ("ctrl+g",),
    }
    for action, keys in expected.items():
        assert keymap.keys(action) == keys, action
    assert keymap.label("app.tools.expand") == "ctrl+o"
    assert keymap.label("app.session.tree") == ""  # no default key
    assert set(keymap.actions_for("ctrl+d")) >= {"app.exit", "tui.editor.deleteCharForward"}


def test_every_default_key_is_valid_and_representable() -> None:
    for action, keys in DEFAULT_KEYBINDINGS.items():
        for key in keys:
            normalized = normalize_key(key)
            assert normalized is not None, (action, key)
            if normalized != "ctrl+backspace":  # indistinguishable from backspace in a terminal
                assert to_pt_keys(normalized) is not None, (action, key)


def test_key_normalisation() -> None:
    assert normalize_key("Shift+Ctrl+P") == "ctrl+shift+p"
    assert normalize_key("esc") == "escape"
    assert normalize_key("Return") == "enter"
    assert normalize_key("pageup") == "pageUp"
    assert normalize_key("ctrl++") == "ctrl++"
    assert normalize_key("hyper+x") is None
    assert normalize_key("ctrl+ctrl+x") is None
    assert normalize_key("ctrl+nope") is None


def test_user_file_overrides_defaults_and_migrates_legacy_ids(agent_dir: Path) -> None:
    (agent_dir / "keybindings.json").write_text(
        json.dumps(
            {
                "app.tools.expand": "ctrl+e",
                "cursorUp": ["up", "ctrl+p"],
                "tui.input.newLine": [],
                "app.unknown": "ctrl+q",
                "app.model.select": ["ctrl+l", "ctrl+nope"],
                "app.exit": 5,
            }
        ),
        encoding="utf-8",
    )
    keymap = KeyMap.load(agent_dir)
    assert keymap.keys("app.tools.expand") == ("ctrl+e",)
    assert keymap.keys("tui.editor.cursorUp") == ("up", "ctrl+p")
    assert keymap.keys("tui.input.newLine") == ()
    assert keymap.keys("app.model.select") == ("ctrl+l",)
    assert keymap.keys("app.exit") == ("ctrl+d",)
    text = "\n".join(keymap.diagnostics)
    assert 'unknown action "app.unknown"' in text
    assert "invalid key 'ctrl+nope' for \"app.model.select\"" in text
    assert 'keys of "app.exit" must be a string or a list of strings' in text


def test_broken_file_keeps_defaults(agent_dir: Path) -> None:
    (agent_dir / "keybindings.json").write_text("{oops", encoding="utf-8")
    keymap = KeyMap.load(agent_dir)
    assert keymap.keys("tui.input.submit") == ("enter",)
    assert keymap.diagnostics and keymap.diagnostics[0].startswith("Failed to parse")
    assert KeyMap.load(agent_dir / "nowhere").diagnostics == []


def test_prompt_toolkit_key_sequences() -> None:
    assert to_pt_keys("enter") == (Keys.ControlM,)
    assert to_pt_keys("alt+enter") == (Keys.Escape, Keys.ControlM)
    assert to_pt_keys("alt+up") == (Keys.Escape, Keys.Up)
    assert to_pt_keys("shift+tab") == (Keys.BackTab,)
    assert to_pt_keys("ctrl+-") == (Keys.ControlUnderscore,)
    assert to_pt_keys("shift+l") == ("L",)
    assert to_pt_keys("super+k") is None


def test_double_press_detection() -> None:
    detector = RepeatDetector(window=0.5)
    assert detector.press("app.interrupt", 10.0) is False
    assert detector.press("app.interrupt", 10.3) is True
    assert detector.press("app.interrupt", 10.4) is False  # the pair was consumed
    assert detector.press("app.interrupt", 11.0) is False  # too late


async def _drive(keymap: KeyMap, handlers: dict[str, object], keystrokes: list[str], **extra: object) -> None:
    with create_pipe_input() as pipe:
        bindings = build_key_bindings(keymap, handlers, **extra)  # type: ignore[arg-type]
        app: Application[None] = Application(
            layout=Layout(Window(FormattedTextControl("test"))), key_bindings=bindings, input=pipe, output=DummyOutput()
        )
        app.timeoutlen = app.ttimeoutlen = 0.02
        task = asyncio.create_task(app.run_async())
        await asyncio.sleep(0.02)
        for keystroke in keystrokes:
            pipe.send_text(keystroke)
            await asyncio.sleep(0.06)
        app.exit()
        await task


async def test_bindings_dispatch_keys_from_a_real_input() -> None:
    calls: list[str] = []
    typed: list[str] = []
    pasted: list[str] = []
    handlers = {
        "app.model.select": lambda: calls.append("select"),
        "app.message.followUp": lambda: calls.append("followUp"),
        "tui.input.submit": lambda: calls.append("submit"),
        "app.thinking.cycle": lambda: calls.append("thinking"),
        "app.message.dequeue": lambda: calls.append("dequeue"),
        "tui.input.newLine": lambda: calls.append("newline"),
        "app.interrupt": lambda: calls.append("interrupt"),
    }
    await _drive(
        KeyMap(),
        handlers,
        ["\x0c", "\x1b\r", "\r", "\x1b[Z", "\x1b[1;3A", "\x1b[13;2u", "\n", "x", "\x1b[200~pasted\x1b[201~", "\x1b"],
        on_text=typed.append,
        on_paste=pasted.append,
    )
    assert calls == ["select", "followUp", "submit", "thinking", "dequeue", "newline", "newline", "interrupt"]
    assert typed == ["x"]
    assert pasted == ["pasted"]


async def test_shared_keys_fall_through_declining_handlers() -> None:
    calls: list[str] = []
    editor_empty = [False]

    def exit_app() -> bool:
        calls.append("exit" if editor_empty[0] else "exit-declined")
        return editor_empty[0]

    handlers = {"app.exit": exit_app, "tui.editor.deleteCharForward": lambda: calls.append("delete")}
    await _drive(KeyMap(), handlers, ["\x04"])
    assert calls == ["exit-declined", "delete"]
    calls.clear()
    editor_empty[0] = True
    await _drive(KeyMap(), handlers, ["\x04"])
    assert calls == ["exit"]


async def test_remapped_key_is_the_only_one_bound() -> None:
    calls: list[str] = []
    keymap = KeyMap.with_overrides({"app.tools.expand": "ctrl+e"})
    await _drive(keymap, {"app.tools.expand": lambda: calls.append("expand")}, ["\x0f", "\x05"])
    assert calls == ["expand"]
