"""The end of a live session: shutdown requests and disposal.

``ctx.shutdown()`` only records the request and tells the mode (``on_shutdown_request``); the
mode decides when to stop. ``dispose`` is final: the run is aborted, extensions get
``session_shutdown`` (once), every ``ctx`` handed out becomes stale, and pending event
deliveries finish before the session file is closed.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_harness.agent.listeners import ListenerRegistry
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.extension_binding import ExtensionBinding
from pi_harness.coding.agent_session.run_driver import RunDriver
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.user_shell import UserShell


class ShutdownRequests:
    """``ctx.shutdown()`` calls: remembered, and passed on to the mode's listeners."""

    __slots__ = ("_listeners", "requested")

    def __init__(self) -> None:
        self.requested = False
        # No error report: a failing listener raises into ``ctx.shutdown()``.
        self._listeners: ListenerRegistry[None] = ListenerRegistry()

    def request(self) -> None:
        self.requested = True
        self._listeners.deliver_soon(None)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        return self._listeners.subscribe(lambda _nothing: listener())


class SessionDisposal:
    def __init__(
        self,
        state: SessionState,
        *,
        driver: RunDriver,
        compaction: CompactionControl,
        user_shell: UserShell,
        binding: ExtensionBinding,
        disconnect_agent: Callable[[], None],
    ) -> None:
        self._state = state
        self._driver = driver
        self._compaction = compaction
        self._user_shell = user_shell
        self._binding = binding
        self._disconnect_agent = disconnect_agent

    async def dispose(self, *, close_session_manager: bool = True) -> None:
        state = self._state
        if state.disposed:
            return
        state.disposed = True
        if state.busy or self._compaction.is_compacting:
            await self._driver.abort()
        self._user_shell.abort()
        if self._binding.bound:
            await state.extensions.emit("session_shutdown", {})
        state.extensions.invalidate()
        self._disconnect_agent()
        await state.events.drain()
        from pi_harness.ai.session_resources import release_session_resources

        await release_session_resources(state.manager.get_session_id())
        if close_session_manager:
            state.manager.close()


__all__ = ["SessionDisposal", "ShutdownRequests"]
