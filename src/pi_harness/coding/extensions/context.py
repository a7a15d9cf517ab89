"""``ctx``: what handlers, tools and commands receive (extensions.md section 7).

A context belongs to one runner generation. After ``/reload`` or a session replacement the runner
is invalidated and every old context raises ``StaleContextError`` when used, so an extension never
acts on a session that is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.extensions.host import ExtensionHost
from pi_harness.coding.extensions.ui import ExtensionUI

if TYPE_CHECKING:
    from pi_harness.ai.types import Model

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
    def session_manager(self) -> Any:
        return self._live().session_manager

    @property
    def model_runtime(self) -> Any:
        return self._live().model_runtime

    @property
    def model_registry(self) -> Any:
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

    def get_context_usage(self) -> dict[str, Any] | None:
        return self._live().get_context_usage()

    def compact(
        self,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> None:
        self._live().start_compaction(custom_instructions, on_complete, on_error)

    def get_system_prompt(self) -> str:
        return self._live().get_system_prompt()

    async def execute_tool(
        self,
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[Any], None] | None = None,
        parent_tool_call_id: str | None = None,
    ) -> dict[str, Any]:
        """Run another tool through the same validation and hooks (tools.md section 2.4)."""
        return await self._live().execute_tool(
            name, args, signal=signal, on_update=on_update, parent_tool_call_id=parent_tool_call_id
        )


class ExtensionCommandContext(ExtensionContext):
    """Commands also control the session (never call these from event handlers: deadlock)."""

    async def wait_for_idle(self) -> None:
        await self._live().wait_for_idle()

    async def new_session(
        self, parent_session: str | None = None, setup: Callable[[Any], Any] | None = None
    ) -> dict[str, Any]:
        return await self._live().new_session(parent_session, setup)

    async def fork(self, entry_id: str) -> dict[str, Any]:
        return await self._live().fork(entry_id)

    async def navigate_tree(self, target_id: str, **options: Any) -> dict[str, Any]:
        return await self._live().navigate_tree(target_id, options)

    async def switch_session(self, path: str) -> dict[str, Any]:
        return await self._live().switch_session(path)

    async def reload(self) -> None:
        await self._live().reload()
