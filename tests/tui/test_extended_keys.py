"""The extended key reports (kitty / CSI-u, xterm modifyOtherKeys, event-typed legacy keys) and
the parser that turns them into the key presses the key table binds, headless."""

from __future__ import annotations

import pytest
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from pi_harness.tui.csi_keys import DROPPED, CsiKey, Legacy, decode_csi
from pi_harness.tui.pt_input import ExtendedKeysParser
from pi_harness.tui.pt_keys import to_pt_keys


class Recorder:
    def __init__(self) -> None:
        self.presses: list[KeyPress] = []
        self.replies: list[tuple[str, str]] = []
        self.parser = ExtendedKeysParser(self.presses.append, self.reply)

    def reply(self, params: str, final: str) -> bool:
        self.replies.append((params, final))
        return True

    def feed(self, *chunks: str) -> list[KeyPress]:
        for chunk in chunks:
            self.parser.feed(chunk)
        self.parser.flush()
        presses = list(self.presses)
        self.presses.clear()
        return presses


def keys_of(presses: list[KeyPress]) -> tuple[Keys | str, ...]:
    return tuple(press.key for press in presses)


@pytest.mark.parametrize(
    ("params", "final", "key"),
    [
        ("13;2", "u", "shift+enter"),  # kitty / CSI-u
        ("13;5", "u", "ctrl+enter"),
        ("13;3", "u", "alt+enter"),
        ("13;6", "u", "ctrl+shift+enter"),
        ("97;6", "u", "ctrl+shift+a"),
        ("65;6", "u", "ctrl+shift+a"),  # tmux reports the code of "A"
        ("99;5", "u", "ctrl+c"),
        ("120;3", "u", "alt+x"),
        ("93;7", "u", "ctrl+alt+]"),
        ("127;5", "u", "ctrl+backspace"),
        ("127;3", "u", "alt+backspace"),
        ("9;2", "u", "shift+tab"),
        ("27", "u", "escape"),
        ("107;9", "u", "super+k"),
        ("13;2:1", "u", "shift+enter"),  # event type "press"
        ("13;2:2", "u", "shift+enter"),  # a repeat is a press
        ("97;69", "u", "ctrl+a"),  # caps lock held: ignored
        ("27;2;13", "~", "shift+enter"),  # modifyOtherKeys
        ("27;5;13", "~", "ctrl+enter"),
        ("27;6;70", "~", "ctrl+shift+f"),
        ("27;3;13", "~", "alt+enter"),
        ("27;5;99", "~", "ctrl+c"),
    ],
)
def test_reported_keys_decode_to_key_names(params: str, final: str, key: str) -> None:
    assert decode_csi(params, final) == CsiKey(key)


@pytest.mark.parametrize(
    ("params", "text"),
    [("97", "a"), ("97;2", "A"), ("97:65;2", "A"), ("49:33;2", "!"), ("32", " "), ("32;2", " "), ("233", "é")],
)
def test_printable_keys_without_ctrl_or_alt_are_typed(params: str, text: str) -> None:
    decoded = decode_csi(params, "u")
    assert isinstance(decoded, CsiKey)
    assert decoded.text == text


def test_releases_and_lone_modifiers_are_dropped_and_legacy_forms_lose_their_event_type() -> None:
    assert decode_csi("13;2:3", "u") is DROPPED
    assert decode_csi("57441", "u") is DROPPED  # left shift alone
    assert decode_csi("1;5:3", "A") is DROPPED
    assert decode_csi("1;5:2", "A") == Legacy("\x1b[1;5A")
    assert decode_csi("1;1:1", "A") == Legacy("\x1b[A")
    assert decode_csi("3;1:2", "~") == Legacy("\x1b[3~")
    assert decode_csi("1;5", "A") is None  # prompt_toolkit knows it as it is
    assert decode_csi("1;133", "A") == Legacy("\x1b[1;5A")  # ctrl+up with num lock
    assert decode_csi("1;65", "A") == Legacy("\x1b[A")  # caps lock alone
    assert decode_csi("12;80", "R") is None  # a cursor position report, not F3
    assert decode_csi("200", "~") is None


def test_the_parser_delivers_the_bindings_key_presses() -> None:
    recorder = Recorder()
    assert keys_of(recorder.feed("\x1b[13;2u")) == to_pt_keys("shift+enter")
    assert keys_of(recorder.feed("\x1b[27;2;13~")) == to_pt_keys("shift+enter")
    assert keys_of(recorder.feed("\x1b[65;6u")) == to_pt_keys("ctrl+shift+a")
    assert keys_of(recorder.feed("\x1b[99;5u")) == (Keys.ControlC,)
    assert keys_of(recorder.feed("\x1b[27u")) == (Keys.Escape,)
    assert keys_of(recorder.feed("\x1b[9;2u")) == (Keys.BackTab,)
    assert keys_of(recorder.feed("\x1b[1;5:2A")) == (Keys.ControlUp,)
    assert recorder.feed("\x1b[13;2:3u") == []  # a release
    shift_enter = recorder.feed("\x1b[13;2u")
    assert shift_enter[-1].data == "\x1b[13;2u"  # raw listeners see what the terminal sent


def test_plain_input_is_unchanged() -> None:
    recorder = Recorder()
    typed = recorder.feed("héllo wörld ✓ 日本")
    assert "".join(str(press.key) for press in typed) == "héllo wörld ✓ 日本"
    assert keys_of(recorder.feed("\x1b[A\x1b[1;5C\x1bOH\x7f\r\t")) == (
        Keys.Up, Keys.ControlRight, Keys.Home, Keys.ControlH, Keys.ControlM, Keys.ControlI,
    )  # fmt: skip
    assert keys_of(recorder.feed("\x1b")) == (Keys.Escape,)
    assert keys_of(recorder.feed("\x1bx")) == (Keys.Escape, "x")
    mouse = recorder.feed("\x1b[<0;10;5M")
    assert keys_of(mouse) == (Keys.Vt100MouseEvent,)
    assert mouse[0].data == "\x1b[<0;10;5M"


def test_a_paste_keeps_sequences_inside_it_as_text() -> None:
    recorder = Recorder()
    presses = recorder.feed("\x1b[200~line one\x1b[13;2uline two\r\n\x1b[201~after")
    assert presses[0].key == Keys.BracketedPaste
    assert presses[0].data == "line one\x1b[13;2uline two\r\n"
    assert "".join(str(press.key) for press in presses[1:]) == "after"


def test_sequences_split_across_reads_are_put_together() -> None:
    recorder = Recorder()
    assert keys_of(recorder.feed("\x1b", "[13", ";2", "u")) == to_pt_keys("shift+enter")
    ctrl_enter = to_pt_keys("ctrl+enter")
    assert ctrl_enter is not None
    assert keys_of(recorder.feed("ab\x1b[", "27;5;13~cd")) == ("a", "b", *ctrl_enter, "c", "d")


def test_terminal_replies_go_to_the_protocol_and_are_never_typed() -> None:
    recorder = Recorder()
    assert recorder.feed("\x1b[?7u\x1b[?62;22cx") == [KeyPress("x", "x")]
    assert recorder.replies == [("?7", "u"), ("?62;22", "c")]
