"""Binding a session's extension runner (extensions.md sections 3 and 4.1).

After binding, the ``pi`` action methods work and handlers get a ``ctx`` for this session.
Extensions then hear ``session_start {reason, previousSessionFile?}`` and ``resources_discover``
(whose skill, prompt and theme paths are added to the resources); a model restored from the
session is announced with ``model_select {source: "restore"}``. Provider registrations made while
extensions loaded are applied to the model runtime now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_harness.coding.extensions.runner import ProviderAction
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession


def provider_applier(session: AgentSession) -> Any:
    def apply(action: ProviderAction) -> None:
        kind, name, config, path = action
        if kind == "register":
            session.model_runtime.register_provider(name, dict(config or {}), source=path)
        else:
            session.model_runtime.unregister_provider(name)

    return apply


async def bind_session_extensions(
    session: AgentSession,
    *,
    ui: ExtensionUI | None,
    has_ui: bool,
    reason: str,
    previous_session_file: str | None,
    restored_model: bool,
) -> None:
    runner = session.extensions
    runner.ui = ui if ui is not None else HeadlessUI()
    runner.has_ui = has_ui
    registry = session.tool_registry
    runner.bind(
        session.host, apply_provider=provider_applier(session), on_tools_changed=registry.refresh_extension_tools
    )
    registry.refresh_extension_tools()
    start: dict[str, Any] = {"reason": reason}
    if previous_session_file is not None:
        start["previousSessionFile"] = previous_session_file
    await runner.emit("session_start", start)
    discovered = await runner.emit_collect(
        "resources_discover", {"cwd": session.cwd, "reason": "reload" if reason == "reload" else "startup"}
    )
    paths: dict[str, list[str]] = {"skillPaths": [], "promptPaths": [], "themePaths": []}
    for _path, result in discovered:
        if isinstance(result, dict):
            for key, collected in paths.items():
                collected += [p for p in result.get(key) or [] if isinstance(p, str)]
    if any(paths.values()):
        session.resource_loader.extend_resources(paths["skillPaths"], paths["promptPaths"], paths["themePaths"])
    if restored_model and session.model is not None:
        await runner.emit("model_select", {"model": session.model, "previousModel": None, "source": "restore"})


__all__ = ["bind_session_extensions", "provider_applier"]
