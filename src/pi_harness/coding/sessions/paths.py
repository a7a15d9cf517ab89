"""Where session files live and how they are named (sessions.md section 2).

Default layout: ``<agentDir>/sessions/--<encoded cwd>--/<fileTimestamp>_<sessionId>.jsonl``. An
explicit session directory (``--session-dir``, ``PI_CODING_AGENT_SESSION_DIR``, the ``sessionDir``
setting) holds the files directly, without a per-project subfolder.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_harness.coding.sessions.ids import file_timestamp

AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"
SESSION_FILE_SUFFIX = ".jsonl"


def _expand_home(value: str) -> str:
    if value == "~" or value.startswith(("~/", "~\\")):
        return str(Path.home()) + value[1:]
    return value


def agent_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """``override`` (SDK ``agentDir``), else ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    if override:
        return Path(_expand_home(os.fspath(override)))
    env = os.environ.get(AGENT_DIR_ENV)
    if env:
        return Path(_expand_home(env))
    return Path.home() / ".pi" / "agent"


def sessions_root(agent_directory: str | os.PathLike[str] | None = None) -> Path:
    return agent_dir(agent_directory) / "sessions"


def encode_cwd(cwd: str) -> str:
    """``/home/ann/proj`` → ``--home-ann-proj--``; ``C:\\Users\\ann`` → ``--C--Users-ann--``."""
    if cwd.startswith(("/", "\\")):
        cwd = cwd[1:]
    return "--" + cwd.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def default_session_dir(cwd: str, agent_directory: str | os.PathLike[str] | None = None) -> Path:
    """The per-project directory of ``cwd`` (resolved to an absolute path first)."""
    return sessions_root(agent_directory) / encode_cwd(os.path.abspath(cwd))


def resolve_session_dir(
    flag: str | os.PathLike[str] | None = None,
    setting: str | os.PathLike[str] | None = None,
) -> Path | None:
    """The explicit session dir: ``--session-dir`` > ``$PI_CODING_AGENT_SESSION_DIR`` > ``sessionDir``.

    ``None`` means "use the default per-project directory".
    """
    for candidate in (flag, os.environ.get(SESSION_DIR_ENV), setting):
        if candidate:
            return Path(_expand_home(os.fspath(candidate)))
    return None


def session_file_name(header_timestamp: str, session_id: str) -> str:
    return f"{file_timestamp(header_timestamp)}_{session_id}{SESSION_FILE_SUFFIX}"
