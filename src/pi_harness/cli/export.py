"""HTML export of a session: ``/export``, RPC ``export_html`` and ``pi --export FILE [OUT]``.

The page holds the whole session file (every branch, the active leaf marked) and opens as an
interactive viewer (``pi_harness.tui.html_export``). With ``security.maskSecrets`` (on by
default) it holds no configured credential in plain text: every entry (user and assistant text,
tool calls and results, ``!command`` output, old entries written before masking existed) is
masked before it is embedded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_harness.agent.types import AgentMessage
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.config.settings import Scope, SettingsManager
    from pi_harness.coding.secrets import SecretMasker
    from pi_harness.coding.session_store.readonly import ReadonlySessionManager
    from pi_harness.tui.theme import ThemeSpec


def branch_messages(manager: ReadonlySessionManager) -> list[AgentMessage]:
    """Every message on the active branch (history before compactions included)."""
    return [entry["message"] for entry in manager.get_branch() if entry["type"] == "message"]


def configured_theme(settings: SettingsManager, theme_paths: Sequence[str]) -> ThemeSpec:
    """The theme the settings name (project, then global; ``system`` and light/dark pairs follow
    the terminal), as Pi's export uses the current theme; dark when it cannot be loaded."""
    from pi_harness.tui.theme import builtin_theme
    from pi_harness.tui.theme_registry import ThemeRegistry, detect_default_theme, resolve_theme_setting

    name = detect_default_theme()
    scopes: tuple[Scope, ...] = ("project", "global")
    for scope in scopes:
        value = settings.scope_value(scope, "theme")
        if isinstance(value, str) and value:
            name = value
            break
    spec = ThemeRegistry(theme_paths).resolve(resolve_theme_setting(name))
    return spec if spec is not None else builtin_theme("dark")


def default_output_name(manager: ReadonlySessionManager) -> str:
    """Pi's name: ``pi-session-<session file name without .jsonl>.html`` (the session id when
    the session has no file)."""
    from pi_harness.tui.html_export import default_export_name

    session_file = manager.get_session_file()
    return default_export_name(session_file.stem if session_file is not None else manager.get_session_id())


def _write(
    manager: ReadonlySessionManager,
    *,
    output: str | os.PathLike[str] | None,
    base_dir: str,
    theme: ThemeSpec | None,
    masker: SecretMasker,
    system_prompt: str | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
) -> Path:
    """The page of ``manager``'s session at ``output`` (relative to ``base_dir``; a default name
    there). Returns the path as given (Pi prints it so), the default name when none was."""
    from pi_harness.tui.html_export import SessionPage, render_page
    from pi_harness.tui.theme import builtin_theme

    mask = masker.snapshot()
    page = SessionPage(
        entries=mask.value([dict(entry) for entry in manager.get_entries()]),
        leaf_id=manager.get_leaf_id(),
        header=dict(manager.get_header()),
        title=mask.text(manager.get_session_name() or "Session"),
        system_prompt=mask.text(system_prompt) if system_prompt else None,
        tools=mask.value([dict(tool) for tool in tools]),
    )
    shown = Path(output) if output else Path(default_output_name(manager))
    target = shown if shown.is_absolute() else Path(base_dir) / shown
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_page(page, theme if theme is not None else builtin_theme("dark")), encoding="utf-8")
    return shown


def export_session_html(
    session: AgentSession, output: str | os.PathLike[str] | None = None, *, theme: ThemeSpec | None = None
) -> Path:
    """Export the session (all branches, its system prompt and active tools) in ``theme`` (the
    screen's for ``/export``), else the one the settings name."""
    from pi_harness.coding.secrets import masker_for

    masker = masker_for(session.settings, session.model_runtime)
    # The RPC answer and /share need a path that opens from anywhere: absolute here.
    tools = [{"name": tool.name, "description": tool.description} for tool in session.tool_registry.active_tools()]
    if theme is None:
        theme = configured_theme(session.settings, session.resource_loader.get_theme_paths())
    shown = _write(session.session_manager, output=output, base_dir=session.cwd, theme=theme, masker=masker,
                   system_prompt=session.get_system_prompt(), tools=tools)  # fmt: skip
    return shown if shown.is_absolute() else Path(session.cwd) / shown


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
    """``pi --export``: open a session file read-only and export it (every branch). The path
    comes back as given (Pi prints ``Exported to: pi-session-<name>.html``).

    A missing file is an error here (opening one would start a new, empty session instead).
    """
    from pi_harness.coding.session_store import SessionManager

    if not Path(session_file).is_file():
        raise FileNotFoundError(f"File not found: {Path(session_file).absolute()}")
    manager = SessionManager.open(session_file, read_only=True)
    try:
        from pi_harness.coding.config.paths import SETTINGS_FILE, agent_dir
        from pi_harness.coding.config.settings import SettingsManager

        masker = _standalone_masker(api_key)
        theme = configured_theme(SettingsManager(agent_dir() / SETTINGS_FILE, None), [str(agent_dir() / "themes")])
        return _write(manager, output=output, base_dir=os.getcwd(), theme=theme, masker=masker)
    finally:
        manager.close()
