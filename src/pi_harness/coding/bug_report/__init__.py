"""Local bug reports (``/bug``): environment, settings keys, extensions, recent crashes and, if the
user agrees, a scrubbed excerpt of the session, written to ``<agentDir>/bug-reports/``.

UI-free: the terminal UI asks the questions, RPC or SDK callers can do the same with their own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from pi_harness.coding.bug_report.report import (
    BUG_REPORTS_DIR,
    BugReportInputs,
    TerminalInfo,
    build_bug_report,
    read_settings_file,
    settings_keys,
    terminal_info,
    write_bug_report,
)
from pi_harness.coding.bug_report.scrub import REDACTED, Scrubber, collect_secrets, is_secret_env_name
from pi_harness.coding.config.paths import AUTH_FILE, MODELS_FILE


def create_bug_report(
    inputs: BugReportInputs,
    agent_directory: Path,
    *,
    models_file: Path | None = None,
    env: Mapping[str, str] | None = None,
    extra_secrets: Iterable[str] = (),
) -> Path:
    """Scrub with the credentials of ``agent_directory`` (``auth.json``, ``models.json`` unless
    ``models_file`` names another) and ``env`` (default: this process's), build, write; the path."""
    scrubber = Scrubber(
        collect_secrets(
            auth_file=agent_directory / AUTH_FILE,
            models_file=models_file or agent_directory / MODELS_FILE,
            env=os.environ if env is None else env,
            extra=extra_secrets,
        )
    )
    return write_bug_report(build_bug_report(inputs, scrubber), agent_directory, now=inputs.created)


__all__ = [
    "BUG_REPORTS_DIR",
    "REDACTED",
    "BugReportInputs",
    "Scrubber",
    "TerminalInfo",
    "build_bug_report",
    "collect_secrets",
    "create_bug_report",
    "is_secret_env_name",
    "read_settings_file",
    "settings_keys",
    "terminal_info",
    "write_bug_report",
]
