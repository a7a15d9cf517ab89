""" "To resume this session: pi --session <id>", printed when the interactive mode quits.

As Pi: only on a terminal, only for a session that has a file on disk, with ``--session-dir``
when the session does not live in the default directory for its working directory.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pi_harness.coding.session_store.paths import default_session_dir
from pi_harness.coding.session_store.store import SessionManager

_PLAIN = re.compile(r"[a-zA-Z0-9_\-./~:@]+")
DIM, UNDIM = "\x1b[2m", "\x1b[22m"


def _quoted(value: str) -> str:
    if _PLAIN.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def resume_command(manager: SessionManager, agent_dir: Path, app: str = "pi") -> str | None:
    """The command that reopens this session, or None when there is nothing to resume."""
    if not manager.is_persisted():
        return None
    session_file = manager.get_session_file()
    if session_file is None or not session_file.exists():
        return None
    args = [app]
    directory = Path(manager.get_session_dir())
    if directory.resolve() != Path(default_session_dir(manager.get_cwd(), agent_dir)).resolve():
        args += ["--session-dir", _quoted(str(directory))]
    args += ["--session", manager.get_session_id()]
    return " ".join(args)


def print_resume_hint(manager: SessionManager, agent_dir: Path) -> None:
    if not sys.stdout.isatty():
        return
    command = resume_command(manager, agent_dir)
    if command is not None:
        sys.stdout.write(f"{DIM}To resume this session:{UNDIM} {command}\n")
        sys.stdout.flush()
