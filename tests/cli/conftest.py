"""Fixtures of the CLI tests: run the installed ``pi`` command (or Python) as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import PI, RunPi, run_command


@pytest.fixture
def run_pi(tmp_path: Path) -> RunPi:
    """``run_pi("--version")`` runs the installed console script in a scratch directory."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)

    def run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        kwargs.setdefault("cwd", work)
        return run_command([str(PI), *args], **kwargs)  # type: ignore[arg-type]

    return run


@pytest.fixture
def run_python(tmp_path: Path) -> RunPi:
    """``run_python(code, *args)`` runs ``python -c code`` with this interpreter."""

    def run(code: str, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        kwargs.setdefault("cwd", tmp_path)
        return run_command([sys.executable, "-c", code, *args], **kwargs)  # type: ignore[arg-type]

    return run
