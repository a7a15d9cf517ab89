"""Startup diagnostics: argument errors stop startup (exit 1), warnings are only printed.

Messages are stored without their ``Error: `` / ``Warning: `` prefix; ``format`` adds it, so the
same message can be shown on stderr or carried in a JSON record.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TextIO

DiagnosticLevel = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    level: DiagnosticLevel
    message: str

    @classmethod
    def error(cls, message: str) -> Diagnostic:
        return cls("error", message)

    @classmethod
    def warning(cls, message: str) -> Diagnostic:
        return cls("warning", message)

    def format(self) -> str:
        return f"{'Error' if self.level == 'error' else 'Warning'}: {self.message}"


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level == "error" for d in diagnostics)


def report_diagnostics(diagnostics: Iterable[Diagnostic], stream: TextIO | None = None) -> bool:
    """Print every diagnostic on stderr (warnings first); ``True`` when one of them is an error."""
    out = stream if stream is not None else sys.stderr
    ordered = sorted(diagnostics, key=lambda d: d.level == "error")
    for diagnostic in ordered:
        print(diagnostic.format(), file=out)
    out.flush()
    return has_errors(ordered)
