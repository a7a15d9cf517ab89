"""Binding a session's extension runner to the session (see extensions.md).

After binding, the ``pi`` action methods work and handlers get a ``ctx`` for this session.
Extensions then hear ``session_start {reason, previousSessionFile?}`` and ``resources_discover``
(whose skill, prompt and theme paths are added to the resources); a model restored from the
session is announced with ``model_select {source: "restore"}``. Provider registrations made while
extensions loaded are applied to the model runtime now. From then on three session events reach
extensions too: ``session_info_changed {name}``, ``agent_settled {aborted}`` and, for
``thinking_level_changed``, ``thinking_level_select {level, previousLevel}``. Binding happens once per session: the
host binds explicitly (``bind_extensions``), otherwise the first prompt binds headless.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_harness.coding.agent_session.session_owner import SessionOwner
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.extensions.host import ExtensionHost
from pi_harness.coding.extensions.runner import ProviderAction
from pi_harness.coding.extensions.ui import ExtensionUI, HeadlessUI
from pi_harness.coding.model_runtime import ModelRuntime

_DISCOVERED_KEYS = ("skillPaths", "promptPaths", "themePaths")
# The session events ``_forward`` passes on to extensions.
_FORWARDED = ("session_info_changed", "agent_settled", "thinking_level_changed")


def provider_applier(model_runtime: ModelRuntime) -> Callable[[ProviderAction], None]:
    """Apply an extension's ``register_provider``/``unregister_provider`` to the model runtime."""

    def apply(action: ProviderAction) -> None:
        kind, name, config, path = action
        if kind == "register":
            model_runtime.register_provider(name, dict(config or {}), source=path)
        elif kind == "register_virtual":
            model_runtime.register_virtual_model(dict(config or {}))
        elif kind == "unregister_virtual":
            model_runtime.unregister_virtual_model(name, str((config or {}).get("id") or ""))
        else:
            model_runtime.unregister_provider(name)

    return apply


class ExtensionBinding:
    def __init__(
        self,
        state: SessionState,
        *,
        host: ExtensionHost,
        tools: ToolRegistry,
        owner: SessionOwner | None,
        restored_model: bool,
    ) -> None:
        self._state = state
        self._host = host
        self._tools = tools
        self._owner = owner
        self._restored_model = restored_model
        self._previous_level: str = state.thinking_level
        self.bound = False

    async def bind(
        self,
        *,
        ui: ExtensionUI | None,
        has_ui: bool,
        mode: str,
        reason: str,
        previous_session_file: str | None,
    ) -> None:
        """Attach the runner; emits ``session_start`` and ``resources_discover``. Later calls do
        nothing."""
        if self.bound:
            return
        self.bound = True
        state = self._state
        state.mode = mode
        if self._owner is not None:
            self._owner.remember_binding(ui, has_ui, mode)
        runner = state.extensions
        runner.ui = ui if ui is not None else HeadlessUI()
        runner.has_ui = has_ui
        tools = self._tools
        runner.bind(
            self._host,
            apply_provider=provider_applier(state.model_runtime),
            on_tools_changed=tools.refresh_extension_tools,
        )
        tools.refresh_extension_tools()
        self._previous_level = state.thinking_level
        state.events.subscribe(self._forward, _FORWARDED)
        start: dict[str, object] = {"reason": reason}
        if previous_session_file is not None:
            start["previousSessionFile"] = previous_session_file
        await runner.emit("session_start", start)
        discovered = await runner.emit_collect(
            "resources_discover", {"cwd": state.cwd, "reason": "reload" if reason == "reload" else "startup"}
        )
        paths: dict[str, list[str]] = {key: [] for key in _DISCOVERED_KEYS}
        origins: dict[str, str] = {}  # each contributed path's extension: its sourceInfo
        for extension_path, result in discovered:
            if isinstance(result, dict):
                for key, collected in paths.items():
                    found = [p for p in result.get(key) or [] if isinstance(p, str)]
                    collected.extend(found)
                    origins.update((p, extension_path) for p in found if p not in origins)
        if any(paths.values()):
            state.resource_loader.extend_resources(
                paths["skillPaths"], paths["promptPaths"], paths["themePaths"], origins=origins
            )
        if self._restored_model and state.model is not None:
            await runner.emit("model_select", {"model": state.model, "previousModel": None, "source": "restore"})

    async def _forward(self, event: dict[str, object]) -> None:
        """Session events extensions hear as events of their own."""
        runner = self._state.extensions
        kind = event.get("type")
        if kind == "session_info_changed":
            await runner.emit("session_info_changed", {"name": event.get("name")})
        elif kind == "agent_settled":
            await runner.emit("agent_settled", {"aborted": bool(event.get("aborted"))})
        elif kind == "thinking_level_changed":
            previous, self._previous_level = self._previous_level, str(event.get("level"))
            await runner.emit("thinking_level_select", {"level": event.get("level"), "previousLevel": previous})

    async def ensure_bound(self) -> None:
        """Bind headless (in the session's mode) unless the host bound already."""
        if not self.bound:
            await self.bind(ui=None, has_ui=False, mode=self._state.mode, reason="startup", previous_session_file=None)


__all__ = ["ExtensionBinding", "provider_applier"]
