"""Which of the four modes a run uses (the order Pi uses).

First match wins: ``--mode rpc``, ``--mode json``, then print when ``--print`` is given or either
stdin or stdout is not a terminal, otherwise interactive. ``--mode text`` only selects text output;
with two terminals the run stays interactive.
"""

from __future__ import annotations

import sys
from typing import Literal, TextIO

from pi_harness.cli.args import ParsedArgs

AppMode = Literal["interactive", "print", "json", "rpc"]


def resolve_app_mode(parsed: ParsedArgs, stdin_is_tty: bool, stdout_is_tty: bool) -> AppMode:
    if parsed.mode == "rpc":
        return "rpc"
    if parsed.mode == "json":
        return "json"
    if parsed.print or not stdin_is_tty or not stdout_is_tty:
        return "print"
    return "interactive"


def stream_is_tty(stream: TextIO | None) -> bool:
    """``isatty()`` that treats a missing or closed stream as "not a terminal"."""
    if stream is None:
        return False
    try:
        return stream.isatty()
    except (ValueError, OSError):
        return False


def detect_app_mode(parsed: ParsedArgs) -> AppMode:
    """``resolve_app_mode`` for this process's real stdin and stdout."""
    return resolve_app_mode(parsed, stream_is_tty(sys.stdin), stream_is_tty(sys.stdout))


def is_interactive(mode: AppMode) -> bool:
    return mode == "interactive"


def output_format(mode: AppMode) -> Literal["text", "json"]:
    """The output of the one-shot runner: events for json, the final answer otherwise."""
    return "json" if mode == "json" else "text"


def reads_piped_stdin(mode: AppMode) -> bool:
    """RPC owns stdin for its commands; every other mode reads piped input as a prompt."""
    return mode != "rpc"
