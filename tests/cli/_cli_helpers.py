"""Shared helpers of the CLI tests (imported as ``_cli_helpers``; the conftest holds the fixtures)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

PI = Path(sys.executable).with_name("pi")

RunPi = Callable[..., subprocess.CompletedProcess[str]]


def run_command(
    command: list[str],
    *,
    input: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        command,
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        check=False,
    )
