"""Building sessions: the services of a working directory and one ``AgentSession`` on them.

Used by ``create_agent_session`` and by ``AgentSessionRuntime`` (which builds a new session for
every replacement, on services rebuilt when the working directory changes). Each session gets a
fresh ``ExtensionRunner`` that loads the SDK extension factories and the loader's extension
paths, so contexts of the previous session become stale.

Model on start (sessions.md 10.3): explicit > the session's recorded model (when it exists and
has credentials; else ``Could not restore model <provider>/<id>``) > ``defaultProvider``/
``defaultModel`` > the preferred available model. A new session records its model and thinking
level; an existing one records the level when its branch has none.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from pi_harness.agent.hooks import StreamFn
from pi_harness.agent.types import AgentTool
from pi_harness.ai.types import Model
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.agent_session.model_control import resolve_thinking_level
from pi_harness.coding.agent_session.tool_registry import wrap_extension_tool
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import ExtensionRunner, Factory
from pi_harness.coding.extensions.types import ToolDefinition
from pi_harness.coding.model_resolver import default_model
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.loader import DefaultResourceLoader, ResourceLoader, ResourceOptions
from pi_harness.coding.session_store.paths import resolve_session_dir
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.tools import DEFAULT_TOOL_NAMES, ToolOptions

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.runtime import AgentSessionRuntime

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
    extension_flags: dict[str, Any] = field(default_factory=dict)
    builtin_extensions: dict[str, Factory] = field(default_factory=dict)
    stream_fn: StreamFn | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    scoped_models: list[tuple[Model, str | None]] = field(default_factory=list)
    mode: str = "sdk"
    session_dir: str | None = None


@dataclass
class BuiltSession:
    session: AgentSession
    model_fallback_message: str | None
    diagnostics: list[str]


def session_dir_for(settings: SettingsManager, explicit: str | None) -> Path | None:
    """``session_dir`` option > ``$PI_CODING_AGENT_SESSION_DIR`` > the ``sessionDir`` setting."""
    setting = settings.resolve_path_setting("sessionDir")
    return resolve_session_dir(explicit, str(setting) if setting is not None else None)


class Durability(TypedDict):
    fsync: bool
    lock: bool


def durability(settings: SettingsManager) -> Durability:
    """``sessions.fsync`` / ``sessions.lock`` as ``SessionManager`` keyword arguments."""
    return {"fsync": settings.get("sessions.fsync") is True, "lock": settings.get("sessions.lock") is True}


def new_session_manager(services: SessionServices, config: SessionConfig) -> SessionManager:
    directory = session_dir_for(services.settings, config.session_dir)
    return SessionManager.create(services.cwd, directory, agent_dir=services.agent_dir, **durability(services.settings))


def tool_options_from_settings(settings: SettingsManager, agent_dir: Path) -> ToolOptions:
    shell_path = settings.resolve_path_setting("shellPath")
    prefix = settings.get("shellCommandPrefix")
    return ToolOptions(
        auto_resize_images=settings.get("images.autoResize") is not False,
        block_images=settings.get("images.blockImages") is True,
        shell_path=str(shell_path) if shell_path is not None else None,
        shell_command_prefix=prefix if isinstance(prefix, str) and prefix else None,
        reap_orphans=settings.get("tools.reapOrphans") is True,
        agent_dir=agent_dir,
        settings_path=str(settings.global_path) if settings.global_path is not None else None,
    )


def factory_path(entry: ExtensionFactoryEntry, index: int) -> tuple[str, Factory]:
    if isinstance(entry, tuple):
        return entry[0], entry[1]
    name = getattr(entry, "__name__", None) or "factory"
    return f"<sdk:{name}#{index}>", entry


async def load_extensions(services: SessionServices, config: SessionConfig) -> tuple[ExtensionRunner, list[str]]:
    runner = ExtensionRunner(
        handler_timeout_ms=services.settings.extension_handler_timeout_ms(),
        builtin_factories=config.builtin_extensions,
    )
    runner.flag_values.update(config.extension_flags)
    diagnostics: list[str] = []
    for index, entry in enumerate(config.extension_factories):
        path, factory = factory_path(entry, index)
        try:
            await runner.load_factory(factory, path)
        except Exception as error:
            diagnostics.append(str(error))
    cwd = Path(services.cwd)
    explicit = [str((cwd / p).resolve()) if not p.startswith("builtin:") else p for p in config.extension_paths]
    failures = await runner.load_paths([*explicit, *services.resource_loader.get_extension_paths()])
    diagnostics += [failure.error for failure in failures]
    return runner, diagnostics


def _usable(runtime: ModelRuntime, model: Model | None) -> bool:
    return model is not None and runtime.has_credentials(model["provider"])


def fallback_model(services: SessionServices) -> Model | None:
    """``defaultProvider``/``defaultModel`` when usable, else the preferred available model."""
    runtime = services.model_runtime
    settings = services.settings
    provider, model_id = settings.get("defaultProvider"), settings.get("defaultModel")
    if isinstance(provider, str) and isinstance(model_id, str):
        configured = runtime.find(provider, model_id)
        if _usable(runtime, configured):
            return configured
    return default_model(runtime.get_available())


async def build_session(
    manager: SessionManager,
    services: SessionServices,
    config: SessionConfig,
    *,
    model: Model | None = None,
    thinking_level: str | None = None,
    active_tools: Sequence[str] | None = None,
    runtime: AgentSessionRuntime | None = None,
) -> BuiltSession:
    runner, diagnostics = await load_extensions(services, config)
    context = manager.build_session_context()
    branch = manager.get_branch()
    has_messages = any(entry["type"] == "message" for entry in manager.get_entries())
    recorded_level = context.thinking_level if any(e["type"] == "thinking_level_change" for e in branch) else None
    fallback_message: str | None = None
    restored = False
    chosen = model
    if chosen is None and has_messages and context.model is not None:
        ref = context.model
        found = services.model_runtime.find(ref["provider"], ref["modelId"])
        if _usable(services.model_runtime, found):
            chosen, restored = found, True
        else:
            fallback_message = f"Could not restore model {ref['provider']}/{ref['modelId']}"
    if chosen is None:
        chosen = fallback_model(services)
    level = resolve_thinking_level(chosen, services.settings, explicit=thinking_level, recorded=recorded_level)

    custom: list[AgentTool] = [
        wrap_extension_tool(tool, runner) if isinstance(tool, ToolDefinition) else tool for tool in config.custom_tools
    ]
    if active_tools is None:
        default_tools = services.settings.get("defaultTools")
        active_tools = config.tools if config.tools is not None else (
            [t for t in default_tools if isinstance(t, str)] if isinstance(default_tools, list) else DEFAULT_TOOL_NAMES
        )
    session = AgentSession(
        cwd=services.cwd,
        agent_dir=services.agent_dir,
        session_manager=manager,
        settings=services.settings,
        model_runtime=services.model_runtime,
        resource_loader=services.resource_loader,
        extensions=runner,
        model=chosen,
        thinking_level=level,
        active_tools=list(active_tools),
        custom_tools=custom,
        tool_options=tool_options_from_settings(services.settings, services.agent_dir),
        stream_fn=config.stream_fn,
        system_prompt=config.system_prompt,
        append_system_prompt=config.append_system_prompt,
        scoped_models=config.scoped_models,
        mode=config.mode,
        runtime=runtime,
        restored_model=restored,
    )
    recorded_model = context.model
    if chosen is not None and (
        recorded_model is None
        or (recorded_model["provider"], recorded_model["modelId"]) != (chosen["provider"], chosen["id"])
    ):
        session.record_entry(manager.append_model_change(chosen["provider"], chosen["id"]))
    if recorded_level != level:
        session.record_entry(manager.append_thinking_level_change(level))
    return BuiltSession(session, fallback_message, diagnostics)


async def call_setup(setup: Callable[[SessionManager], Any] | None, manager: SessionManager) -> None:
    if setup is None:
        return
    outcome = setup(manager)
    if inspect.isawaitable(outcome):
        await outcome


__all__ = [
    "BuiltSession",
    "ExtensionFactoryEntry",
    "SessionConfig",
    "SessionServices",
    "build_session",
    "call_setup",
    "durability",
    "factory_path",
    "fallback_model",
    "load_extensions",
    "new_session_manager",
    "session_dir_for",
    "tool_options_from_settings",
]
