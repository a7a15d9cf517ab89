"""Regular mode prints a resumed conversation while it is still being rendered (``scrollback_print``):
a thread writes the first blocks while the later ones are laid out; the bytes are those of one write."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from pi_harness.cli.modes.interactive.scrollback_print import BATCH_CHARS, print_while_rendering
from pi_harness.cli.modes.interactive.shell import Shell, Terminal
from pi_harness.tui.keybindings import KeyMap
from pi_harness.tui.theme import load_theme
from pi_harness.tui.ui_settings import UiSettings

WAIT_SECONDS = 20.0  # only a bound for a failing run; a passing one goes on as soon as the text is out


@pytest.fixture(autouse=True)
def tui_mode() -> Iterator[str]:
    yield "regular"  # no screen runs here: one pass is enough (conftest's fixture runs both modes)


def big_block(tag: str) -> list[str]:
    """More than one batch of lines."""
    return [f"{tag} line {index:04d} " + "x" * 80 for index in range(BATCH_CHARS // 80 + 10)]


def wait_until(condition: threading.Event | None, check: object = None) -> bool:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if condition is not None and condition.is_set():
            return True
        if callable(check) and check():
            return True
        time.sleep(0.001)
    return False


def test_the_first_batch_is_written_before_the_later_blocks_are_rendered() -> None:
    written: list[list[str]] = []
    first_written = threading.Event()

    def write(lines: list[str]) -> None:
        written.append(lines)
        first_written.set()

    def blocks() -> Iterator[list[str]]:
        yield big_block("first")
        # Rendering the rest waits for the terminal to get the first block (one write at the end would never come).
        assert wait_until(first_written), "nothing was written while the blocks were still being rendered"
        yield ["second"]

    print_while_rendering(blocks(), write)
    assert [line for batch in written for line in batch] == [*big_block("first"), "second"]


def test_all_lines_arrive_in_order_whatever_the_batches() -> None:
    blocks = [[f"block {index} line {line}" * (1 + index % 7) for line in range(index % 5)] for index in range(3000)]
    written: list[list[str]] = []
    print_while_rendering(iter(blocks), written.append)
    assert [line for batch in written for line in batch] == [line for block in blocks for line in block]
    assert len(written) > 1 and all(batch for batch in written)


def test_a_failing_write_is_raised_to_the_caller() -> None:
    def write(lines: list[str]) -> None:
        raise OSError(5, "Input/output error")

    with pytest.raises(OSError, match="Input/output error"):
        print_while_rendering(iter([big_block("a"), big_block("b"), ["c"]]), write)


def test_a_failing_render_still_waits_for_what_was_handed_over() -> None:
    written: list[str] = []

    def blocks() -> Iterator[list[str]]:
        yield big_block("first")
        raise ValueError("a block failed to render")

    with pytest.raises(ValueError, match="failed to render"):
        print_while_rendering(blocks(), written.extend)
    assert written == big_block("first")  # the writer finished before the error went up


class WaitsForTheTerminal:
    """A transcript block that renders only once ``text`` reached the terminal."""

    def __init__(self, output: io.StringIO, text: str) -> None:
        self.output = output
        self.text = text

    def render(self, width: int) -> list[str]:
        assert wait_until(None, lambda: self.text in self.output.getvalue()), "the earlier blocks were not written yet"
        return ["the last block"]


class Lines:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def render(self, width: int) -> list[str]:
        return self.lines


def test_regular_mode_prints_a_long_conversation_while_rendering_it() -> None:
    buffer = io.StringIO()
    output = Vt100_Output(buffer, lambda: Size(rows=40, columns=120), term="xterm-256color")
    with create_pipe_input() as pipe:
        shell = Shell(theme=load_theme("dark"), keymap=KeyMap(), ui=replace(UiSettings(), tui_mode="regular"),
                      cwd="/work/project", terminal=Terminal(pipe, output))  # fmt: skip
        first = big_block("first")
        shell.transcript.add_component(Lines(first))
        shell.transcript.add_component(WaitsForTheTerminal(buffer, first[-1]))
        before = buffer.getvalue()  # the cursor's modes
        shell.refresh()  # before the screen runs, as at startup
    expected = ["", *first, "", "the last block"]
    assert buffer.getvalue() == before + "\r\n".join(expected) + "\r\n"  # the bytes of one write
    assert list(shell.view.printed) == expected
    assert not shell.transcript.has_live


def test_nothing_to_print_writes_nothing() -> None:
    written: list[list[str]] = []
    print_while_rendering(iter([]), written.append)
    assert written == []
