"""HTML export of a session: ``/export``, RPC ``export_html`` and ``pi --export FILE [OUT]``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def _write(
    messages: list[Any],
    *,
    session_id: str | None,
    cwd: str | None,
    output: str | os.PathLike[str] | None,
    base_dir: str,
    title: str,
) -> Path:
    from pi_harness.tui.export_html import default_export_name, export_html
    from pi_harness.tui.theme import builtin_theme

    page = export_html(messages, builtin_theme("dark"), title=title, session_id=session_id, cwd=cwd)
    target = Path(output) if output else Path(base_dir) / default_export_name(session_id)
    if not target.is_absolute():
        target = Path(base_dir) / target
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


def _branch_messages(manager: Any) -> list[Any]:
    """Every message on the active branch (history before compactions included)."""
    return [entry["message"] for entry in manager.get_branch() if entry.get("type") == "message"]


def export_session_html(session: Any, output: str | os.PathLike[str] | None = None) -> Path:
    """Export the session's current branch (all of its messages, summaries included)."""
    manager = session.session_manager
    messages = _branch_messages(manager)
    name = manager.get_session_name()
    return _write(
        messages,
        session_id=manager.get_session_id(),
        cwd=manager.get_cwd(),
        output=output,
        base_dir=session.cwd,
        title=name or "Session",
    )


def export_file_html(session_file: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Path:
    """``pi --export``: open a session file read-only and export its active branch.

    A missing file is an error here (opening one would start a new, empty session instead).
    """
    from pi_harness.coding.session_store import SessionManager

    if not Path(session_file).is_file():
        raise FileNotFoundError(f"File not found: {Path(session_file).absolute()}")
    manager = SessionManager.open(session_file, read_only=True)
    try:
        messages = _branch_messages(manager)
        return _write(
            messages,
            session_id=manager.get_session_id(),
            cwd=manager.get_cwd(),
            output=output,
            base_dir=os.getcwd(),
            title=manager.get_session_name() or "Session",
        )
    finally:
        manager.close()
