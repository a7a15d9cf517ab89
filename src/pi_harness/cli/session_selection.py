"""Which session a run opens, decided from the flags alone (``--session``, ``--continue``, ``--fork`` …).

``select_session_action`` returns the first applicable row of the table; the caller performs it
with the SessionManager (lookups, the cross-project question, the picker). The 1.4.0 conflicts
(``--fork`` vs ``--session/--continue/--resume/--no-session``; ``--session-id`` vs
``--session/--continue/--resume``) are argument errors, exit 1.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_harness.cli.args import ParsedArgs
from pi_harness.cli.diagnostics import Diagnostic

SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"

# Texts the caller prints, word for word as Pi prints them.
NO_SESSION_FOUND = "No session found matching '{arg}'"  # exit 1
FORK_QUESTION = "Fork this session into current directory?"  # shown with " [y/N] "
ABORTED = "Aborted."  # exit 0
NO_SESSION_SELECTED = "No session selected"  # exit 0
SESSION_ID_EXISTS = "Session already exists with id '{id}'"  # --fork onto an existing --session-id, exit 1

SessionActionKind = Literal[
    "in_memory",  # SessionManager.in_memory()
    "fork",  # resolve ``target`` like --session, then fork_from(source, cwd, session_dir[, session_id])
    "open",  # --session: ``target`` is a path (open/create there) or an id (exact, then prefix match)
    "resume",  # session picker; nothing picked => NO_SESSION_SELECTED, exit 0
    "continue",  # continue_recent(cwd, session_dir)
    "open_or_create_id",  # open the project session ``session_id`` if it exists, else create it
    "create",  # create(cwd, session_dir)
]


@dataclass(frozen=True)
class SessionAction:
    kind: SessionActionKind
    # --session / --fork argument as written
    target: str | None = None
    # True when ``target`` is a file path rather than an id (see ``is_session_path``)
    target_is_path: bool = False
    # --session-id: the id for a new or forked session
    session_id: str | None = None


def is_session_path(arg: str) -> bool:
    """A ``--session``/``--fork`` argument with ``/`` or ``\\`` or ending in ``.jsonl`` is a path."""
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def _given(flags: dict[str, bool]) -> list[str]:
    """The flags of ``flags`` that the command line gave, in order."""
    return [flag for flag, present in flags.items() if present]


def session_flag_conflicts(parsed: ParsedArgs) -> list[Diagnostic]:
    """The 1.4.0 combination errors (pure: no lookups)."""
    problems: list[Diagnostic] = []
    opened = {"--session": parsed.session is not None, "--continue": parsed.continue_session,
              "--resume": parsed.resume}  # fmt: skip
    if parsed.fork is not None:
        clashing = _given({**opened, "--no-session": parsed.no_session})
        if clashing:
            problems.append(Diagnostic.error(f"--fork cannot be combined with {', '.join(clashing)}"))
    if parsed.session_id is not None:
        clashing = _given(opened)
        if clashing:
            problems.append(Diagnostic.error(f"--session-id cannot be combined with {', '.join(clashing)}"))
    return problems


def session_id_error(parsed: ParsedArgs) -> Diagnostic | None:
    """A ``--session-id`` the session store would refuse (checked with the store's own rule)."""
    if parsed.session_id is None:
        return None
    from pi_harness.coding.session_store.ids import validate_session_id

    try:
        validate_session_id(parsed.session_id)
    except ValueError as exc:
        return Diagnostic.error(str(exc))
    return None


def select_session_action(parsed: ParsedArgs) -> SessionAction:
    """The first applicable row of the session table (conflicts are checked separately)."""
    if parsed.no_session or parsed.help or parsed.list_models:
        return SessionAction("in_memory")
    if parsed.fork is not None:
        return SessionAction("fork", parsed.fork, is_session_path(parsed.fork), parsed.session_id)
    if parsed.session is not None:
        return SessionAction("open", parsed.session, is_session_path(parsed.session))
    if parsed.resume:
        return SessionAction("resume")
    if parsed.continue_session:
        return SessionAction("continue")
    if parsed.session_id is not None:
        return SessionAction("open_or_create_id", session_id=parsed.session_id)
    return SessionAction("create")


def resolve_session_dir(
    cli_value: str | None,
    setting: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path | None:
    """``--session-dir`` > ``PI_CODING_AGENT_SESSION_DIR`` > the ``sessionDir`` setting.

    ``setting`` is expected already resolved against its settings file
    (``SettingsManager.resolve_path_setting("sessionDir")``); the flag and the variable resolve
    against ``cwd`` (default: the working directory); ``~`` is expanded. ``None`` means the
    default location. (The session store's resolver, imported on use.)
    """
    from pi_harness.coding.session_store.paths import resolve_session_dir as resolve

    return resolve(cli_value, setting, cwd=cwd if cwd is not None else Path.cwd(), environ=environ)


def confirms(answer: str) -> bool:
    """The ``[y/N]`` question: only ``y``/``yes`` (any case) agree."""
    return answer.strip().lower() in ("y", "yes")
