"""HTML export of a session: ``/export``, RPC ``export_html`` and ``pi --export FILE [OUT]``.

With ``security.maskSecrets`` (on by default) the page holds no configured credential in plain
text: every message (user and assistant text, tool calls and results, ``!command`` output, old
entries written before masking existed) is masked before it is rendered.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.agent.types import AgentMessage
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.secrets import SecretMasker
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
    masker: SecretMasker,
) -> Path:
    """The page of ``manager``'s branch at ``output`` (relative to ``base_dir``; a default name there)."""
    from pi_harness.tui.export_html import default_export_name, export_html
    from pi_harness.tui.theme import builtin_theme

    session_id = manager.get_session_id()
    mask = masker.snapshot()
    page = export_html(
        mask.value(branch_messages(manager)),
        theme if theme is not None else builtin_theme("dark"),
        title=mask.text(manager.get_session_name() or "Session"),
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
    from pi_harness.coding.secrets import masker_for

    masker = masker_for(session.settings, session.model_runtime)
    return _write(session.session_manager, output=output, base_dir=session.cwd, theme=theme, masker=masker)


def _standalone_masker(api_key: str | None) -> SecretMasker:
    """``pi --export`` has no session: the credentials of the agent dir and the environment (and
    ``--api-key``), while the global settings file leaves ``security.maskSecrets`` on."""
    from pi_harness.coding.config.paths import SETTINGS_FILE, agent_dir
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.model_runtime import ModelRuntime
    from pi_harness.coding.secrets import NamedSecret, masker_for

    base = agent_dir()
    extra = [NamedSecret("--api-key", api_key)] if api_key else []
    return masker_for(SettingsManager(base / SETTINGS_FILE, None), ModelRuntime.create(base), extra)


def export_file_html(
    session_file: str | os.PathLike[str], output: str | os.PathLike[str] | None = None, *, api_key: str | None = None
) -> Path:
    """``pi --export``: open a session file read-only and export its active branch.

    A missing file is an error here (opening one would start a new, empty session instead).
    """
    from pi_harness.coding.session_store import SessionManager

    if not Path(session_file).is_file():
        raise FileNotFoundError(f"File not found: {Path(session_file).absolute()}")
    manager = SessionManager.open(session_file, read_only=True)
    try:
        masker = _standalone_masker(api_key)
        return _write(manager, output=output, base_dir=os.getcwd(), theme=None, masker=masker)
    finally:
        manager.close()
