"""``ctx``: what handlers, tools and commands receive.

A context belongs to one runner generation. After ``/reload`` or a session replacement the runner
is invalidated and every old context raises ``StaleContextError`` when used, so an extension never
acts on a session that is gone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pi_harness.agent.types import ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import Model
from pi_harness.coding.extensions.host import CompactionCallback, ExtensionHost, SessionSetup
from pi_harness.coding.extensions.ui import ExtensionUI
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.session_store.readonly import ReadonlySessionManager

STALE_MESSAGE = "Extension context is stale: the session was reloaded or replaced"


class StaleContextError(RuntimeError):
    def __init__(self) -> None:
        super().__init__(STALE_MESSAGE)


class Generation:
    """Validity token shared by every context a runner hands out."""

    __slots__ = ("valid",)

    def __init__(self) -> None:
        self.valid = True


class ExtensionContext:
    def __init__(self, host: ExtensionHost, ui: ExtensionUI, has_ui: bool, generation: Generation) -> None:
        self._host = host
        self._ui = ui
        self._has_ui = has_ui
        self._generation = generation

    def _live(self) -> ExtensionHost:
        if not self._generation.valid:
            raise StaleContextError()
        return self._host

    @property
    def ui(self) -> ExtensionUI:
        self._live()
        return self._ui

    @property
    def has_ui(self) -> bool:
        return self._has_ui

    @property
    def mode(self) -> str:
        return self._live().mode

    @property
    def cwd(self) -> str:
        return self._live().cwd

    @property
    def session_manager(self) -> ReadonlySessionManager:
        return self._live().session_manager

    @property
    def model_runtime(self) -> ModelRuntime:
        return self._live().model_runtime

    @property
    def model_registry(self) -> ModelRuntime:
        """Pi's name for ``model_runtime``."""
        return self._live().model_runtime

    @property
    def model(self) -> Model | None:
        return self._live().model

    def is_idle(self) -> bool:
        return self._live().is_idle()

    def abort(self) -> None:
        self._live().abort()

    def has_pending_messages(self) -> bool:
        return self._live().has_pending_messages()

    def shutdown(self) -> None:
        self._live().request_shutdown()

    def get_context_usage(self) -> Mapping[str, object] | None:
        return self._live().get_context_usage()

    def compact(
        self,
        custom_instructions: str | None = None,
        on_complete: CompactionCallback | None = None,
        on_error: Callable[[BaseException], object] | None = None,
    ) -> None:
        self._live().start_compaction(custom_instructions, on_complete, on_error)

    def get_system_prompt(self) -> str:
        return self._live().get_system_prompt()

    async def execute_tool(
        self,
        name: str,
        args: dict[str, object],
        *,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
        parent_tool_call_id: str | None = None,
    ) -> Mapping[str, object]:
        """Run another tool through the same argument validation and ``tool_call``/``tool_result``
        hooks as a call from the model; the result is that tool's result dict."""
        return await self._live().execute_tool(
            name, args, signal=signal, on_update=on_update, parent_tool_call_id=parent_tool_call_id
        )


class ExtensionCommandContext(ExtensionContext):
    """Commands also control the session (never call these from event handlers: deadlock)."""

    async def wait_for_idle(self) -> None:
        await self._live().wait_for_idle()

    async def new_session(
        self, parent_session: str | None = None, setup: SessionSetup | None = None
    ) -> Mapping[str, object]:
        return await self._live().new_session(parent_session, setup)

    async def fork(self, entry_id: str) -> Mapping[str, object]:
        return await self._live().fork(entry_id)

    async def navigate_tree(self, target_id: str, **options: object) -> Mapping[str, object]:
        return await self._live().navigate_tree(target_id, options)

    async def switch_session(self, path: str) -> Mapping[str, object]:
        return await self._live().switch_session(path)

    async def reload(self) -> None:
        await self._live().reload()
