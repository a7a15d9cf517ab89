"""Running the package tools (npm, git, pip) as child processes.

Output of installs goes to our stderr so that stdout stays clean for print/JSON modes; a failure
raises ``PackageError`` with the command and its exit code, which callers turn into one line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

NETWORK_TIMEOUT_S = 10.0


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
    try:
        completed = subprocess.run(
            list(command),
            check=False,
            cwd=cwd,
            env=_env(env),
            stdin=subprocess.DEVNULL,
            stdout=sys.stderr,
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


__all__ = ["NETWORK_TIMEOUT_S", "PackageError", "capture", "offline", "run"]
