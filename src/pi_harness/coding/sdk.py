"""The SDK entry point: ``create_agent_session(...)`` (seed 20.2.3).

Defaults, as in Pi: the process's working directory, settings from the agent dir and the project
(the project is trusted - there is no trust step here; see ``resolve_project_trust``), a new
persistent session for the directory, the default resource loader, the tools of ``defaultTools``
or read/bash/edit/write, and no built-in extensions unless passed as factories. Everything can be
replaced: an in-memory ``SessionManager``, an in-memory ``SettingsManager``, a custom resource
loader, runtime API keys, custom tools.

    result = await create_agent_session(model="anthropic/claude-sonnet-4-5")
    result.session.subscribe(print)
    await result.session.prompt("What is in this directory?")
    await result.runtime.shutdown()
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from pi_harness.agent.hooks import StreamFn
from pi_harness.agent.types import AgentTool
from pi_harness.ai.types import Model
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.paths import agent_dir as resolve_agent_dir
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import Factory
from pi_harness.coding.extensions.types import FlagValue, ToolDefinition
from pi_harness.coding.model_resolver import resolve_model_pattern, resolve_model_scope
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.loader import DefaultResourceLoader, ResourceLoader, ResourceOptions
from pi_harness.coding.session_runtime.project_trust import resolve_project_trust
from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime
from pi_harness.coding.session_runtime.services import (
    ExtensionFactoryEntry,
    SessionConfig,
    SessionServices,
    new_session_manager,
)
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.tools.tool_list import tool_list_error


@dataclass
class CreateAgentSessionResult:
    session: AgentSession
    runtime: AgentSessionRuntime
    # ``Could not restore model <provider>/<id>`` when a resumed session's model is unusable.
    model_fallback_message: str | None = None
    # Extension load failures and resource/settings problems, one line each.
    diagnostics: list[str] = field(default_factory=list)


class CreateAgentSessionOptions(TypedDict, total=False):
    """The keyword arguments of ``create_agent_session`` (for hosts that build them as data)."""

    cwd: str
    agent_dir: str
    model: Model | str
    thinking_level: str
    tools: Sequence[str | AgentTool]
    custom_tools: Sequence[AgentTool | ToolDefinition]
    session_manager: SessionManager
    settings_manager: SettingsManager
    resource_loader: ResourceLoader
    model_runtime: ModelRuntime
    auth_storage: AuthStorage
    api_keys: Mapping[str, str]
    extension_factories: Sequence[ExtensionFactoryEntry]
    extension_paths: Sequence[str]
    extension_flags: Mapping[str, FlagValue]
    builtin_extensions: Mapping[str, Factory]
    project_trusted: bool
    mode: str
    scoped_models: Sequence[Model | str | tuple[Model, str | None]]
    system_prompt: str
    append_system_prompt: str | Sequence[str]
    session_dir: str | os.PathLike[str]
    stream_fn: StreamFn
    resource_options: ResourceOptions


def _resolve_model(runtime: ModelRuntime, model: Model | str | None) -> Model | None:
    if model is None:
        return None
    if isinstance(model, str):
        return resolve_model_pattern(runtime.get_all(), model).model
    if runtime.find(model["provider"], model["id"]) is None:
        runtime.add_model(model)  # so the session can find it again (restore, cycling)
    return model


def _scoped(
    runtime: ModelRuntime, entries: Sequence[Model | str | tuple[Model, str | None]]
) -> list[tuple[Model, str | None]]:
    out: list[tuple[Model, str | None]] = []
    for entry in entries:
        if isinstance(entry, str):
            out += [(m.model, m.thinking_level) for m in resolve_model_scope(runtime.get_all(), [entry])]
        elif isinstance(entry, tuple):
            model = _resolve_model(runtime, entry[0])
            if model is not None:
                out.append((model, entry[1]))
        else:
            model = _resolve_model(runtime, entry)
            if model is not None:
                out.append((model, None))
    return out


async def create_agent_session(
    *,
    cwd: str | os.PathLike[str] | None = None,
    agent_dir: str | os.PathLike[str] | None = None,
    model: Model | str | None = None,
    thinking_level: str | None = None,
    tools: Sequence[str | AgentTool] | None = None,
    custom_tools: Sequence[AgentTool | ToolDefinition] | None = None,
    session_manager: SessionManager | None = None,
    settings_manager: SettingsManager | None = None,
    resource_loader: ResourceLoader | None = None,
    model_runtime: ModelRuntime | None = None,
    auth_storage: AuthStorage | None = None,
    api_keys: Mapping[str, str] | None = None,
    extension_factories: Sequence[ExtensionFactoryEntry] | None = None,
    extension_paths: Sequence[str] | None = None,
    extension_flags: Mapping[str, FlagValue] | None = None,
    builtin_extensions: Mapping[str, Factory] | None = None,
    project_trusted: bool = True,
    mode: str = "sdk",
    scoped_models: Sequence[Model | str | tuple[Model, str | None]] | None = None,
    new_session_model: tuple[Model, str | None] | None = None,
    system_prompt: str | None = None,
    append_system_prompt: str | Sequence[str] | None = None,
    session_dir: str | os.PathLike[str] | None = None,
    stream_fn: StreamFn | None = None,
    resource_options: ResourceOptions | None = None,
) -> CreateAgentSessionResult:
    """Create a session and the runtime that owns it.

    ``model`` is a model dict or a pattern (``provider/id``, id, fuzzy name). ``tools`` selects the
    active built-ins by name (``["read", "grep", "find", "ls"]`` for a read-only session), or changes
    the default selection with ``+name``/``-name`` entries only (``ValueError`` for a list that mixes
    the two), and may include ``AgentTool`` objects; ``custom_tools`` adds tools (also extension-style
    ``ToolDefinition``s). ``api_keys`` are runtime keys by provider (``--api-key``).
    ``extension_factories`` are ``extension(pi)`` callables (or ``(path, callable)`` pairs).
    ``model`` and ``thinking_level`` apply to every session the runtime makes (new, resumed,
    forked, cloned), as Pi's command-line options do; ``new_session_model`` (a model and its
    thinking level) only to sessions without messages, when ``model`` is not given.
    """
    tools_error = tool_list_error([t for t in tools or () if isinstance(t, str)])
    if tools_error is not None:
        raise ValueError(f"Invalid tools option: {tools_error}")
    cwd_text = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
    directory = resolve_agent_dir(agent_dir)
    settings = settings_manager or SettingsManager.create(cwd_text, directory, project_trusted=project_trusted)
    runtime_models = model_runtime or ModelRuntime.create(directory, auth_storage)
    for provider, key in (api_keys or {}).items():
        runtime_models.set_runtime_api_key(provider, key)
    loader = resource_loader
    if loader is None:
        loader = DefaultResourceLoader(
            cwd_text, directory, settings, project_trusted=project_trusted, options=resource_options
        )
        loader.reload()
    services = SessionServices(
        cwd=cwd_text,
        agent_dir=directory,
        settings=settings,
        model_runtime=runtime_models,
        resource_loader=loader,
        project_trusted=project_trusted,
        owns_settings=settings_manager is None,
        owns_loader=resource_loader is None,
        resource_options=resource_options,
    )
    names = [t for t in tools if isinstance(t, str)] if tools is not None else None
    tool_objects = [t for t in tools or () if isinstance(t, AgentTool)]
    appended = [append_system_prompt] if isinstance(append_system_prompt, str) else list(append_system_prompt or [])
    config = SessionConfig(
        tools=names if tools is not None else None,
        custom_tools=[*tool_objects, *(custom_tools or [])],
        extension_factories=list(extension_factories or []),
        extension_paths=list(extension_paths or []),
        extension_flags=dict(extension_flags or {}),
        builtin_extensions=dict(builtin_extensions or {}),
        stream_fn=stream_fn,
        system_prompt=system_prompt,
        append_system_prompt=appended,
        scoped_models=_scoped(runtime_models, scoped_models or []),
        new_session_model=new_session_model,
        mode=mode,
        session_dir=os.fspath(session_dir) if session_dir is not None else None,
    )
    manager = session_manager or new_session_manager(services, config)
    chosen = _resolve_model(runtime_models, model)
    runtime = await AgentSessionRuntime.create(manager, services, config, model=chosen, thinking_level=thinking_level)
    diagnostics = [
        *(str(d) for d in settings.diagnostics),
        *runtime_models.errors,
        *runtime_models.warnings,
        *(str(d) for d in loader.diagnostics),
        *runtime.diagnostics,
    ]
    return CreateAgentSessionResult(runtime.session, runtime, runtime.model_fallback_message, diagnostics)


__all__ = [
    "CreateAgentSessionOptions",
    "CreateAgentSessionResult",
    "create_agent_session",
    "resolve_project_trust",
]
