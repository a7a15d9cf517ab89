"""HTML export of a session: ``/export``, RPC ``export_html`` and ``pi --export FILE [OUT]``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.agent.types import AgentMessage
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.session_store.readonly import ReadonlySessionManager
    from pi_harness.tui.theme import ThemeSpec


def branch_messages(manager: ReadonlySessionManager) -> list[AgentMessage]:
    """Every message on the active branch (history before compactions included)."""
    return [entry["message"] for entry in manager.get_branch() if entry["type"] == "message"]


def _write(
    manager: ReadonlySessionManager,
    *,
    output: str | os.PathLike[str] | None,
    base_dir: str,
    theme: ThemeSpec | None,
) -> Path:
    """The page of ``manager``'s branch at ``output`` (relative to ``base_dir``; a default name there)."""
    from pi_harness.tui.export_html import default_export_name, export_html
    from pi_harness.tui.theme import builtin_theme

    session_id = manager.get_session_id()
    page = export_html(
        branch_messages(manager),
        theme if theme is not None else builtin_theme("dark"),
        title=manager.get_session_name() or "Session",
        session_id=session_id,
        cwd=manager.get_cwd(),
    )
    target = Path(output) if output else Path(base_dir) / default_export_name(session_id)
    if not target.is_absolute():
        target = Path(base_dir) / target
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


def export_session_html(
    session: AgentSession, output: str | os.PathLike[str] | None = None, *, theme: ThemeSpec | None = None
) -> Path:
    """Export the session's current branch (all of its messages, summaries included); the dark
    theme unless ``theme`` is given (``/export`` uses the screen's)."""
    return _write(session.session_manager, output=output, base_dir=session.cwd, theme=theme)


def export_file_html(session_file: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Path:
    """``pi --export``: open a session file read-only and export its active branch.

    A missing file is an error here (opening one would start a new, empty session instead).
    """
    from pi_harness.coding.session_store import SessionManager

    if not Path(session_file).is_file():
        raise FileNotFoundError(f"File not found: {Path(session_file).absolute()}")
    manager = SessionManager.open(session_file, read_only=True)
    try:
        return _write(manager, output=output, base_dir=os.getcwd(), theme=None)
    finally:
        manager.close()
