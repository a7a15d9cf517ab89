"""Startup phase timings, printed on stderr when ``PI_TIMING=1`` (1.4.0).

``mark(label)`` closes a phase: it records the time since the previous mark (or since ``start()``).
``print_timings()`` writes the table once per process, so both an early exit and the full startup
path may call it without printing twice::

    --- Startup Timings ---
      parseArgs: 1ms
      ...
      TOTAL: 83ms
    ------------------------
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # as in pi_harness/__init__.py: typing stays unimported for --version
if TYPE_CHECKING:
    from typing import TextIO

ENV_VAR = "PI_TIMING"

_phases: list[tuple[str, float]] = []
_last = time.perf_counter()
_printed = False


def enabled() -> bool:
    return os.environ.get(ENV_VAR) == "1"


def start() -> None:
    """Forget earlier marks and measure from now."""
    global _last, _printed
    _phases.clear()
    _last = time.perf_counter()
    _printed = False


def mark(label: str) -> None:
    global _last
    if not enabled():
        return
    now = time.perf_counter()
    _phases.append((label, (now - _last) * 1000.0))
    _last = now


def phases() -> list[tuple[str, float]]:
    """The recorded ``(label, milliseconds)`` pairs."""
    return list(_phases)


def format_timings(recorded: list[tuple[str, float]]) -> str:
    lines = ["", "--- Startup Timings ---"]
    lines += [f"  {label}: {round(ms)}ms" for label, ms in recorded]
    lines.append(f"  TOTAL: {round(sum(ms for _, ms in recorded))}ms")
    lines += ["------------------------", ""]
    return "\n".join(lines) + "\n"


def print_timings(stream: TextIO | None = None) -> None:
    global _printed
    if not enabled() or _printed or not _phases:
        return
    _printed = True
    out = stream if stream is not None else sys.stderr
    out.write(format_timings(_phases))
    out.flush()
