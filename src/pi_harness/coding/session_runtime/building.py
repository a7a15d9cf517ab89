"""Building one ``AgentSession`` on the services of its working directory.

Used by ``create_agent_session`` and by ``AgentSessionRuntime`` (which builds a new session for
every replacement). Each session gets a fresh ``ExtensionRunner`` that loads the SDK extension
factories and the loader's extension paths, so contexts of the previous session become stale.

Model on start: explicit > the session's recorded model (when it exists and has credentials;
else ``Could not restore model <provider>/<id>``) > ``defaultProvider``/``defaultModel`` > the
preferred available model. A new session (no messages yet) records its model and thinking level;
an existing one only records the level when its branch has none, so a ``--model`` given for one
run does not rewrite what the session restores next time (as in Pi).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from pi_harness.agent.types import AgentMessage, AgentTool
from pi_harness.ai.types import Model
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.agent_session.model_control import resolve_thinking_level
from pi_harness.coding.agent_session.session_owner import SessionOwner, SessionSetup
from pi_harness.coding.agent_session.tool_registry import wrap_extension_tool
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ToolDefinition
from pi_harness.coding.model_resolver import default_model
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.source_info import SourceMetadata
from pi_harness.coding.session_runtime.services import (
    SessionConfig,
    SessionServices,
    factory_path,
    tool_options_from_settings,
)
from pi_harness.coding.session_store.context import stored_message
from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.session_store.system_messages import replay_system_messages
from pi_harness.coding.tools import DEFAULT_TOOL_NAMES
from pi_harness.coding.tools.tool_list import apply_tool_modifiers, is_tool_modifier, resolve_default_tools
from pi_harness.coding.virtual_models import is_virtual_model, virtual_selection


@dataclass
class BuiltSession:
    session: AgentSession
    model_fallback_message: str | None
    diagnostics: list[str]


async def load_extensions(services: SessionServices, config: SessionConfig) -> tuple[ExtensionRunner, list[str]]:
    runner = ExtensionRunner(
        handler_timeout_ms=services.settings.values.extension_handler_timeout_ms,
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
    cli = SourceMetadata("cli", "temporary")  # -e paths (and the SDK's extension_paths), as Pi names them
    runner.path_sources.update((p, cli) for p in explicit if not p.startswith("builtin:"))
    failures = await runner.load_paths([*explicit, *services.resource_loader.get_extension_paths()])
    diagnostics += [failure.describe() for failure in failures]
    return runner, diagnostics


def _usable(runtime: ModelRuntime, model: Model | None) -> bool:
    return model is not None and runtime.has_credentials(model["provider"])


def fallback_model(services: SessionServices) -> Model | None:
    """``defaultProvider``/``defaultModel`` when usable, else the preferred available model."""
    runtime = services.model_runtime
    values = services.settings.values
    provider, model_id = values.default_provider, values.default_model
    if provider is not None and model_id is not None:
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
    runtime: SessionOwner | None = None,
) -> BuiltSession:
    runner, diagnostics = await load_extensions(services, config)
    context = manager.build_session_context()
    # Levels, model changes and system messages only: the branch's records have them all (a large
    # file's older messages are not even made into entries).
    branch = manager.get_branch_records()
    has_messages = manager.has_messages()
    recorded_level = context.thinking_level if any(e["type"] == "thinking_level_change" for e in branch) else None
    fallback_message: str | None = None
    restored = False
    chosen = model
    if chosen is None and has_messages and context.model is not None:
        ref = context.model
        selected = virtual_selection(
            branch, lambda provider, model_id: is_virtual_model(services.model_runtime.find(provider, model_id))
        )
        if selected is not None:
            ref = {"provider": selected[0], "modelId": selected[1]}
        found = services.model_runtime.find(ref["provider"], ref["modelId"])
        if _usable(services.model_runtime, found):
            chosen, restored = found, True
        else:
            fallback_message = f"Could not restore model {ref['provider']}/{ref['modelId']}"
    if chosen is None and not has_messages and config.new_session_model is not None:
        chosen, scoped_level = config.new_session_model
        thinking_level = thinking_level or scoped_level
    if chosen is None:
        chosen = fallback_model(services)
    level = resolve_thinking_level(chosen, services.settings, explicit=thinking_level, recorded=recorded_level)

    custom: list[AgentTool] = [
        wrap_extension_tool(tool, runner) if isinstance(tool, ToolDefinition) else tool for tool in config.custom_tools
    ]
    if active_tools is None:
        default_tools = services.settings.values.default_tools
        fallback: Sequence[str] = DEFAULT_TOOL_NAMES
        if default_tools is not None:
            fallback = resolve_default_tools(default_tools, DEFAULT_TOOL_NAMES)
        # As Pi: a reopened session without a tool selection of its own continues with the tools
        # its system messages left active, not the defaults.
        recorded = None if config.tools is not None else recorded_tool_names(branch)
        requested = config.tools
        if requested and all(is_tool_modifier(name) for name in requested):
            requested = apply_tool_modifiers(fallback, requested)  # changes to the defaults, as in Pi
        active_tools = requested if requested is not None else recorded if recorded is not None else fallback
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
    if not has_messages:
        # A new session records its choice (once: /reload rebuilds a session that may have no
        # messages yet either).
        recorded_model = context.model
        if chosen is not None and (
            recorded_model is None
            or (recorded_model["provider"], recorded_model["modelId"]) != (chosen["provider"], chosen["id"])
        ):
            manager.append_model_change(chosen["provider"], chosen["id"])
        if recorded_level != level:
            manager.append_thinking_level_change(level)
    elif recorded_level is None:
        manager.append_thinking_level_change(level)
    return BuiltSession(session, fallback_message, diagnostics)


def recorded_tool_names(branch: Sequence[SessionEntry]) -> list[str] | None:
    """The tools the branch's system messages add up to; ``None`` when it records none at all."""
    messages = [message for entry in branch if (message := stored_message(entry)) and message.get("role") == "system"]
    if not messages:
        return None
    return list(replay_system_messages(cast(list[AgentMessage], messages)).tools)


async def call_setup(setup: SessionSetup | None, manager: SessionManager) -> None:
    if setup is None:
        return
    outcome = setup(manager)
    if inspect.isawaitable(outcome):
        await outcome


__all__ = ["BuiltSession", "build_session", "call_setup", "fallback_model", "load_extensions"]
