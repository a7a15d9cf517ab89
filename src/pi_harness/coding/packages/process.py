"""Running the package tools (npm, git, pip) as child processes.

Their output goes to our stderr, so that stdout stays clean for print/JSON modes, except inside
``child_output(sys.stdout)``, which the package commands use to show it where Pi does. A failure
raises ``PackageError`` with the command and its exit code, which callers turn into one line.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TextIO

NETWORK_TIMEOUT_S = 10.0
_OUTPUT: contextvars.ContextVar[TextIO | None] = contextvars.ContextVar("package_tool_output", default=None)


@contextlib.contextmanager
def child_output(stream: TextIO) -> Iterator[None]:
    """Send the tools' output to ``stream`` (instead of stderr) while the block runs."""
    token = _OUTPUT.set(stream)
    try:
        yield
    finally:
        _OUTPUT.reset(token)


class PackageError(Exception):
    """A package operation that failed; the message is meant for the user as it is."""


def offline() -> bool:
    return os.environ.get("PI_OFFLINE", "").strip().lower() in ("1", "true", "yes")


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra or {})
    return env


def run(command: Sequence[str], *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> None:
    """Run ``command`` with its output on our stderr; raise ``PackageError`` unless it exits 0."""
    output = _OUTPUT.get() or sys.stderr
    output.flush()
    try:
        completed = subprocess.run(
            list(command),
            check=False,
            cwd=cwd,
            env=_env(env),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=sys.stderr,
        )
    except OSError as exc:
        raise PackageError(f"{command[0]}: {exc.strerror or exc}") from exc
    if completed.returncode != 0:
        raise PackageError(f"{' '.join(command)} failed with code {completed.returncode}")


def capture(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = NETWORK_TIMEOUT_S,
) -> str:
    """``command``'s stdout, stripped; ``PackageError`` with its output when it fails."""
    try:
        completed = subprocess.run(
            list(command),
            check=False,
            cwd=cwd,
            env=_env(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise PackageError(f"{' '.join(command)} timed out after {timeout:g}s") from exc
    except OSError as exc:
        raise PackageError(f"{command[0]}: {exc.strerror or exc}") from exc
    if completed.returncode != 0:
        detail = (completed.stderr or completed.stdout).strip()
        raise PackageError(f"{' '.join(command)} failed with code {completed.returncode}: {detail}")
    return completed.stdout.strip()


__all__ = ["NETWORK_TIMEOUT_S", "PackageError", "capture", "child_output", "offline", "run"]
