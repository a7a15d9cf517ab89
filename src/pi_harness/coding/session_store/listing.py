"""Finding sessions on disk: listings for ``/resume`` and ``--session <id>``.

Listings parse every file (tolerantly) to report names, counts and the first message; lookups by
id only read each file up to its header.
"""

from __future__ import annotations

import builtins
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from pi_harness.coding.session_store.ids import iso_to_ms
from pi_harness.coding.session_store.jsonl import read_header, read_session_file
from pi_harness.coding.session_store.paths import SESSION_FILE_SUFFIX, default_session_dir, sessions_root

ProgressCallback = Callable[[int, int], None]
NO_MESSAGES = "(no messages)"
_NEWLINES = re.compile(r"[\r\n]+")


@dataclass
class SessionInfo:
    path: Path
    id: str
    cwd: str
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    all_messages_text: str
    name: str | None = None
    parent_session_path: str | None = None


@dataclass(frozen=True)
class SessionMatch:
    """A session found by id; ``local`` is true when it belongs to the current project's dir."""

    path: Path
    id: str
    cwd: str
    local: bool


def normalize_session_name(name: str) -> str:
    """Display names are trimmed and kept on one line."""
    return _NEWLINES.sub(" ", name).strip()


def _datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def message_text(message: Mapping[str, object]) -> str:
    """The text blocks (or string content) of a message, joined with spaces."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and b.get("text"))


def session_file_names(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.name.endswith(SESSION_FILE_SUFFIX) and p.is_file()]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def read_session_info(path: Path) -> SessionInfo | None:
    """Summary of one file for listings; ``None`` when it is unreadable or has no valid header."""
    try:
        contents = read_session_file(path)
        mtime_ms = int(path.stat().st_mtime * 1000)
    except OSError:
        return None
    header = contents.header
    if header is None:
        return None
    name: str | None = None
    message_count = 0
    first_message: str | None = None
    texts: list[str] = []
    modified = 0
    for entry in contents.entries:
        kind = entry.get("type")
        if kind == "session_info":
            raw = entry.get("name")
            # 1.4.0: the latest entry wins and a blank name clears the display name.
            if isinstance(raw, str):
                name = normalize_session_name(raw) or None
            continue
        if kind != "message":
            continue
        message_count += 1
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        text = message_text(message)
        if text:
            texts.append(text)
        if first_message is None and message.get("role") == "user":
            first_message = text
        stamp = message.get("timestamp")
        when = (
            stamp
            if isinstance(stamp, int | float) and not isinstance(stamp, bool)
            else iso_to_ms(cast("str | None", entry.get("timestamp")))  # an entry's ISO time
        )
        modified = max(modified, int(when))
    created_ms = iso_to_ms(header.get("timestamp"))
    if not modified:
        modified = created_ms or mtime_ms
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=header.get("cwd") or "",
        created=_datetime(created_ms or mtime_ms),
        modified=_datetime(modified),
        message_count=message_count,
        first_message=first_message or NO_MESSAGES,
        all_messages_text=" ".join(texts),
        name=name,
        parent_session_path=parent if isinstance(parent, str) else None,
    )


def _collect(files: list[Path], on_progress: ProgressCallback | None) -> list[SessionInfo]:
    infos: list[SessionInfo] = []
    total = len(files)
    for loaded, path in enumerate(files, start=1):
        info = read_session_info(path)
        if info is not None:
            infos.append(info)
        if on_progress is not None:
            on_progress(loaded, total)
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


def list_sessions(
    cwd: str,
    session_dir: str | os.PathLike[str] | None = None,
    on_progress: ProgressCallback | None = None,
    *,
    agent_dir: str | os.PathLike[str] | None = None,
) -> list[SessionInfo]:
    """Sessions of one directory (``session_dir`` or ``cwd``'s default), newest ``modified`` first."""
    directory = Path(session_dir) if session_dir else default_session_dir(cwd, agent_dir)
    return _collect(session_file_names(directory), on_progress)


def _project_dirs(agent_dir: str | os.PathLike[str] | None) -> list[Path]:
    root = sessions_root(agent_dir)
    try:
        return sorted(p for p in root.iterdir() if p.is_dir())
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def list_all_sessions(
    on_progress: ProgressCallback | None = None, *, agent_dir: str | os.PathLike[str] | None = None
) -> list[SessionInfo]:
    """Sessions of every project directory under ``<agentDir>/sessions``, newest first."""
    files = [f for directory in _project_dirs(agent_dir) for f in session_file_names(directory)]
    return _collect(files, on_progress)


def _headers(files: Iterable[Path]) -> list[tuple[Path, str, str]]:
    found: list[tuple[Path, str, str]] = []
    for path in files:
        header = read_header(path)
        if header is not None:
            found.append((path, header["id"], header.get("cwd") or ""))
    return found


def _newest_first(items: list[tuple[Path, str, str]]) -> list[tuple[Path, str, str]]:
    def mtime(item: tuple[Path, str, str]) -> float:
        try:
            return item[0].stat().st_mtime
        except OSError:
            return 0.0

    return sorted(items, key=mtime, reverse=True)


def find_session_by_id(
    query: str,
    cwd: str,
    session_dir: str | os.PathLike[str] | None = None,
    *,
    agent_dir: str | os.PathLike[str] | None = None,
) -> SessionMatch | None:
    """Resolve ``--session <id>``: exact id before prefix, the current project before all others.

    Order: exact match here, exact match anywhere, prefix match here, prefix match anywhere; among
    several prefix matches the most recently written file wins.
    """
    if not query:
        return None
    local_dir = Path(session_dir) if session_dir else default_session_dir(cwd, agent_dir)
    local = _newest_first(_headers(session_file_names(local_dir)))
    others: list[tuple[Path, str, str]] | None = None
    for exact in (True, False):
        for path, sid, session_cwd in local:
            if sid == query if exact else sid.startswith(query):
                return SessionMatch(path=path, id=sid, cwd=session_cwd, local=True)
        if others is None:
            local_paths = {item[0] for item in local}
            everywhere = _headers(f for d in _project_dirs(agent_dir) for f in session_file_names(d))
            others = _newest_first([item for item in everywhere if item[0] not in local_paths])
        for path, sid, session_cwd in others:
            if sid == query if exact else sid.startswith(query):
                return SessionMatch(path=path, id=sid, cwd=session_cwd, local=False)
    return None


class SessionFinders:
    """Listing helpers exposed as ``SessionManager.list`` / ``list_all`` / ``find_by_id``.

    A base class of ``SessionManager`` so that the method name ``list`` does not shadow the
    builtin inside the manager's own class body.
    """

    @staticmethod
    def list(
        cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
        on_progress: ProgressCallback | None = None,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
    ) -> builtins.list[SessionInfo]:
        return list_sessions(cwd, session_dir, on_progress, agent_dir=agent_dir)

    @staticmethod
    def list_all(
        on_progress: ProgressCallback | None = None, *, agent_dir: str | os.PathLike[str] | None = None
    ) -> builtins.list[SessionInfo]:
        return list_all_sessions(on_progress, agent_dir=agent_dir)

    @staticmethod
    def find_by_id(
        query: str,
        cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
    ) -> SessionMatch | None:
        return find_session_by_id(query, cwd, session_dir, agent_dir=agent_dir)
