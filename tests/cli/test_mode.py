from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest
from _cli_helpers import RunPi

from pi_harness.cli.args import parse_args
from pi_harness.cli.mode import output_format, reads_piped_stdin, resolve_app_mode

DETECT = (
    "import sys\n"
    "from pi_harness.cli.args import parse_args\n"
    "from pi_harness.cli.mode import detect_app_mode\n"
    "sys.stderr.write(detect_app_mode(parse_args(sys.argv[1:])) + '\\n')\n"
)


@pytest.mark.parametrize(
    ("argv", "stdin_tty", "stdout_tty", "expected"),
    [
        ([], True, True, "interactive"),
        ([], False, True, "print"),
        ([], True, False, "print"),
        ([], False, False, "print"),
        (["-p"], True, True, "print"),
        (["--mode", "text"], True, True, "interactive"),
        (["--mode", "text"], False, True, "print"),
        (["--mode", "json"], True, True, "json"),
        (["--mode", "json", "-p"], False, False, "json"),
        (["--mode", "rpc"], True, True, "rpc"),
        (["--mode", "rpc", "-p"], False, False, "rpc"),
    ],
)
def test_resolve_app_mode(argv: list[str], stdin_tty: bool, stdout_tty: bool, expected: str) -> None:
    assert resolve_app_mode(parse_args(argv), stdin_tty, stdout_tty) == expected


def test_mode_helpers() -> None:
    assert output_format("json") == "json"
    assert output_format("print") == "text"
    assert not reads_piped_stdin("rpc")
    assert reads_piped_stdin("print") and reads_piped_stdin("interactive")


@pytest.mark.parametrize(
    ("argv", "expected"), [([], "print"), (["--mode", "json"], "json"), (["--mode", "rpc"], "rpc")]
)
def test_pipes_are_not_terminals(run_python: RunPi, argv: list[str], expected: str) -> None:
    result = run_python(DETECT, *argv)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == expected


def _run_on_terminal(argv: list[str], stdout_on_terminal: bool) -> str:
    """Run DETECT with stdin (and optionally stdout) on a real pseudo-terminal."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.run(
            [sys.executable, "-c", DETECT, *argv],
            stdin=terminal,
            stdout=terminal if stdout_on_terminal else subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert process.returncode == 0, process.stderr
    return process.stderr.decode().strip()


@pytest.mark.parametrize(
    ("argv", "stdout_on_terminal", "expected"),
    [
        ([], True, "interactive"),
        (["--mode", "text"], True, "interactive"),
        (["-p"], True, "print"),
        ([], False, "print"),
        (["--mode", "json"], True, "json"),
    ],
)
def test_terminals(argv: list[str], stdout_on_terminal: bool, expected: str) -> None:
    assert _run_on_terminal(argv, stdout_on_terminal) == expected
