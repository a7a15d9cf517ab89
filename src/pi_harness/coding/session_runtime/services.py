"""What sessions are built from: the services of a working directory and the SDK/CLI options.

``SessionServices`` are shared by the sessions of one directory (rebuilt when a replacement
moves to another directory); ``SessionConfig`` stays the same across replacements. The helpers
here turn settings into session-file and tool options.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypedDict

from pi_harness.agent.hooks import StreamFn
from pi_harness.agent.types import AgentTool
from pi_harness.coding.agent_session.model_control import ScopedModel
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import Factory
from pi_harness.coding.extensions.types import FlagValue, ToolDefinition
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.loader import DefaultResourceLoader, ResourceLoader, ResourceOptions
from pi_harness.coding.session_store.paths import resolve_session_dir
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.tools import ToolOptions

# An SDK extension factory, optionally with the path it is reported under.
ExtensionFactoryEntry = Factory | tuple[str, Factory]


@dataclass
class SessionServices:
    """What sessions of one working directory share."""

    cwd: str
    agent_dir: Path
    settings: SettingsManager
    model_runtime: ModelRuntime
    resource_loader: ResourceLoader
    project_trusted: bool = True
    owns_settings: bool = True
    owns_loader: bool = True
    resource_options: ResourceOptions | None = None

    def for_cwd(self, cwd: str) -> SessionServices:
        """The services for another directory (settings and loader rebuilt when we made them)."""
        cwd = os.path.abspath(cwd)
        if cwd == self.cwd:
            return self
        settings = self.settings
        if self.owns_settings:
            settings = SettingsManager.create(cwd, self.agent_dir, project_trusted=self.project_trusted)
        loader = self.resource_loader
        if self.owns_loader:
            loader = DefaultResourceLoader(
                cwd, self.agent_dir, settings, project_trusted=self.project_trusted, options=self.resource_options
            )
            loader.reload()
        return replace(self, cwd=cwd, settings=settings, resource_loader=loader)

    def reload(self) -> None:
        """``/reload``: settings, models.json and resources read again."""
        self.settings.reload()
        self.model_runtime.refresh()
        self.resource_loader.reload()


@dataclass
class SessionConfig:
    """What stays the same across session replacements (the SDK/CLI options)."""

    tools: list[str] | None = None
    custom_tools: list[AgentTool | ToolDefinition] = field(default_factory=list)
    extension_factories: list[ExtensionFactoryEntry] = field(default_factory=list)
    extension_paths: list[str] = field(default_factory=list)
    extension_flags: dict[str, FlagValue] = field(default_factory=dict)
    builtin_extensions: dict[str, Factory] = field(default_factory=dict)
    stream_fn: StreamFn | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    scoped_models: list[ScopedModel] = field(default_factory=list)
    # The model (and its thinking level) a session without messages starts with when no model
    # is given: the first ``--models`` entry. Sessions with messages restore their own.
    new_session_model: ScopedModel | None = None
    mode: str = "sdk"
    session_dir: str | None = None


def session_dir_for(settings: SettingsManager, explicit: str | None) -> Path | None:
    """``session_dir`` option > ``$PI_CODING_AGENT_SESSION_DIR`` > the ``sessionDir`` setting."""
    setting = settings.resolve_path_setting("sessionDir")
    return resolve_session_dir(explicit, str(setting) if setting is not None else None)


class Durability(TypedDict):
    fsync: bool
    lock: bool


def durability(settings: SettingsManager) -> Durability:
    """``sessions.fsync`` / ``sessions.lock`` as ``SessionManager`` keyword arguments."""
    sessions = settings.values.sessions
    return {"fsync": sessions.fsync, "lock": sessions.lock}


def new_session_manager(services: SessionServices, config: SessionConfig) -> SessionManager:
    directory = session_dir_for(services.settings, config.session_dir)
    return SessionManager.create(services.cwd, directory, agent_dir=services.agent_dir, **durability(services.settings))


def tool_options_from_settings(settings: SettingsManager, agent_dir: Path) -> ToolOptions:
    values = settings.values
    shell_path = settings.resolve_path_setting("shellPath")
    return ToolOptions(
        auto_resize_images=values.images.auto_resize,
        block_images=values.images.block_images,
        shell_path=str(shell_path) if shell_path is not None else None,
        shell_command_prefix=values.shell_command_prefix or None,
        reap_orphans=values.tools.reap_orphans,
        stale_edit_check=values.tools.stale_edit_check,
        stale_write_check=values.tools.stale_write_check,
        agent_dir=agent_dir,
        settings_path=str(settings.global_path) if settings.global_path is not None else None,
    )


def factory_path(entry: ExtensionFactoryEntry, index: int) -> tuple[str, Factory]:
    if isinstance(entry, tuple):
        return entry[0], entry[1]
    name = getattr(entry, "__name__", None) or "factory"
    return f"<sdk:{name}#{index}>", entry


__all__ = [
    "Durability",
    "ExtensionFactoryEntry",
    "SessionConfig",
    "SessionServices",
    "durability",
    "factory_path",
    "new_session_manager",
    "session_dir_for",
    "tool_options_from_settings",
]
