"""The keyboard protocol negotiation: what goes to the terminal for each answer it gives."""

from __future__ import annotations

import os

from pi_harness.tui.keyboard_protocol import KeyboardProtocol

START = "\x1b[>7u\x1b[?u\x1b[c"


class Terminal:
    def __init__(self) -> None:
        self.written: list[str] = []
        self.protocol = KeyboardProtocol(self.written.append)

    def take(self) -> str:
        text = "".join(self.written)
        self.written.clear()
        return text


def test_a_kitty_terminal_keeps_the_pushed_flags_and_pops_them_on_exit() -> None:
    terminal = Terminal()
    protocol = terminal.protocol
    protocol.start()
    assert terminal.take() == START
    assert protocol.on_reply("?7", "u")
    assert protocol.mode == "kitty"
    assert protocol.on_reply("?62;22", "c")  # the sentinel after the flags: nothing more to do
    assert terminal.take() == ""
    protocol.stop()
    assert terminal.take() == "\x1b[<u"


def test_a_terminal_without_kitty_gets_modify_other_keys_when_device_attributes_answer_first() -> None:
    terminal = Terminal()
    protocol = terminal.protocol
    protocol.start()
    terminal.take()
    assert protocol.on_reply("?1;2", "c")
    assert protocol.mode == "modifyOtherKeys"
    assert terminal.take() == "\x1b[>4;2m"
    protocol.stop()
    assert terminal.take() == "\x1b[<u\x1b[>4;0m"
    protocol.stop()  # a second stop (the crash path after a normal exit) writes nothing
    assert terminal.take() == ""


def test_zero_flags_mean_no_kitty_protocol() -> None:
    terminal = Terminal()
    terminal.protocol.start()
    terminal.take()
    terminal.protocol.on_reply("?0", "u")
    assert terminal.protocol.mode == "modifyOtherKeys"
    assert terminal.take() == "\x1b[>4;2m"


def test_device_attributes_nobody_asked_for_are_not_ours() -> None:
    terminal = Terminal()
    assert not terminal.protocol.on_reply("?62;22", "c")
    terminal.protocol.start()
    terminal.protocol.on_reply("?62;22", "c")
    assert not terminal.protocol.on_reply("?62;22", "c")


def test_suspending_switches_the_mode_off_and_on_again() -> None:
    terminal = Terminal()
    protocol = terminal.protocol
    protocol.start()
    protocol.on_reply("?62", "c")
    terminal.take()
    protocol.pause()
    assert terminal.take() == "\x1b[<u\x1b[>4;0m"
    protocol.resume()
    assert terminal.take() == "\x1b[>4;2m"
    assert protocol.mode == "modifyOtherKeys"
    protocol.stop()
    assert terminal.take() == "\x1b[>4;0m"  # the flags were popped at the pause and not pushed again


def test_resume_before_any_answer_asks_again() -> None:
    terminal = Terminal()
    terminal.protocol.start()
    terminal.protocol.pause()
    assert terminal.take() == START + "\x1b[<u"
    terminal.protocol.resume()
    assert terminal.take() == START


def test_a_crash_restores_the_terminal_through_the_file_descriptor() -> None:
    read_end, write_end = os.pipe()
    try:
        protocol = KeyboardProtocol(lambda text: None, write_end)
        protocol.start()
        protocol.on_reply("?62", "c")
        protocol._restore_at_exit()  # what atexit runs when the normal path did not
        assert os.read(read_end, 100) == b"\x1b[<u\x1b[>4;0m"
    finally:
        os.close(read_end)
        os.close(write_end)
