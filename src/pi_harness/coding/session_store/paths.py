"""Where session files live and how they are named.

Default layout: ``<agentDir>/sessions/--<encoded cwd>--/<fileTimestamp>_<sessionId>.jsonl``. An
explicit session directory (``--session-dir``, ``PI_CODING_AGENT_SESSION_DIR``, the ``sessionDir``
setting) holds the files directly, without a per-project subfolder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pi_harness.coding.config.paths import AGENT_DIR_ENV, SESSION_DIR_ENV, agent_dir, expand_home
from pi_harness.coding.session_store.ids import file_timestamp

SESSION_FILE_SUFFIX = ".jsonl"
__all__ = ["AGENT_DIR_ENV", "SESSION_DIR_ENV", "agent_dir"]


def sessions_root(agent_directory: str | os.PathLike[str] | None = None) -> Path:
    return agent_dir(agent_directory) / "sessions"


# The longest file name most file systems take (bytes, NAME_MAX).
MAX_NAME_BYTES = 255


def encode_cwd(cwd: str) -> str:
    """``/home/ann/proj`` → ``--home-ann-proj--``; ``C:\\Users\\ann`` → ``--C--Users-ann--``.

    Beyond Pi: a name longer than a file name may be (a deeply nested checkout) keeps as much of
    its start as fits and ends with a hash of the whole path, so the sessions of such a directory
    can still be saved (Pi cannot create the directory at all) and two long paths never share one.
    """
    if cwd.startswith(("/", "\\")):
        cwd = cwd[1:]
    name = "--" + cwd.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"
    if len(os.fsencode(name)) <= MAX_NAME_BYTES:
        return name
    import hashlib  # here: it loads OpenSSL's libcrypto (MiBs), which startup does not need

    digest = "-" + hashlib.sha256(os.fsencode(cwd)).hexdigest()[:16] + "--"
    head = os.fsencode(name)[: MAX_NAME_BYTES - len(digest)]
    return head.decode("utf-8", "ignore") + digest


def default_session_dir(cwd: str, agent_directory: str | os.PathLike[str] | None = None) -> Path:
    """The per-project directory of ``cwd`` (resolved to an absolute path first)."""
    return sessions_root(agent_directory) / encode_cwd(os.path.abspath(cwd))


def resolve_session_dir(
    flag: str | os.PathLike[str] | None = None,
    setting: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path | None:
    """The explicit session dir: ``--session-dir`` > ``$PI_CODING_AGENT_SESSION_DIR`` > ``sessionDir``.

    ``~`` is expanded; a relative flag or variable resolves against ``cwd`` (the setting is
    expected resolved against its settings file already). ``None`` means "use the default
    per-project directory".
    """
    base = Path(cwd) if cwd is not None else None
    env = os.environ if environ is None else environ
    for candidate, relative_to_cwd in ((flag, True), (env.get(SESSION_DIR_ENV), True), (setting, False)):
        if candidate:
            path = Path(expand_home(os.fspath(candidate)))
            if relative_to_cwd and base is not None and not path.is_absolute():
                path = base / path
            return path
    return None


def session_file_name(header_timestamp: str, session_id: str) -> str:
    return f"{file_timestamp(header_timestamp)}_{session_id}{SESSION_FILE_SUFFIX}"
