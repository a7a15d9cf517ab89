"""The session as extensions see it: the ``ExtensionHost`` behind ``pi`` and ``ctx``.

A thin adapter: reads go to the session, actions become session operations. Failed
``send_message``/``send_user_message`` actions are reported on the extension error channel
(``{extensionPath: "<runtime>", event: "send_message"|"send_user_message"}``) rather than raised
into the handler. Session replacement (``new_session``, ``fork``, ``switch_session``, ``reload``)
goes through the session's ``AgentSessionRuntime``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import Model
from pi_harness.coding.agent_session.errors import NO_RUNTIME, SessionError

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.agent_session.runtime import AgentSessionRuntime

RUNTIME_PATH = "<runtime>"


class SessionExtensionHost:
    def __init__(self, session: AgentSession) -> None:
        self._session = session

    def _runtime(self) -> AgentSessionRuntime:
        runtime = self._session.runtime
        if runtime is None:
            raise SessionError(NO_RUNTIME)
        return runtime

    # -- read-only state -------------------------------------------------------------------------

    @property
    def cwd(self) -> str:
        return self._session.cwd

    @property
    def mode(self) -> str:
        return self._session.mode

    @property
    def session_manager(self) -> Any:
        return self._session.session_manager

    @property
    def model_runtime(self) -> Any:
        return self._session.model_runtime

    @property
    def model(self) -> Model | None:
        return self._session.model

    def is_idle(self) -> bool:
        return self._session.is_idle

    def abort(self) -> None:
        self._session.driver.request_abort()

    def has_pending_messages(self) -> bool:
        session = self._session
        return session.pending_message_count > 0 or session.agent.has_queued_messages()

    def request_shutdown(self) -> None:
        self._session.request_shutdown()

    def get_context_usage(self) -> dict[str, Any] | None:
        return self._session.get_context_usage()

    def start_compaction(
        self,
        custom_instructions: str | None,
        on_complete: Callable[[Any], Any] | None,
        on_error: Callable[[BaseException], Any] | None,
    ) -> None:
        async def run() -> None:
            try:
                result = await self._session.compact(custom_instructions)
            except Exception as error:
                if on_error is not None:
                    on_error(error)
                return
            if on_complete is not None:
                on_complete(result)

        self._session.spawn(run())

    def get_system_prompt(self) -> str:
        return self._session.get_system_prompt()

    async def execute_tool(
        self,
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None,
        on_update: Callable[[Any], None] | None,
        parent_tool_call_id: str | None,
    ) -> dict[str, Any]:
        return await self._session.tool_hooks.execute_nested(
            name, args, signal=signal, on_update=on_update, parent_tool_call_id=parent_tool_call_id
        )

    # -- actions ---------------------------------------------------------------------------------

    async def send_message(self, message: dict[str, Any], *, trigger_turn: bool, deliver_as: str | None) -> None:
        try:
            await self._session.prompting.send_message(message, trigger_turn=trigger_turn, deliver_as=deliver_as)
        except Exception as error:
            self._session.extensions.report(RUNTIME_PATH, "send_message", error)

    async def send_user_message(self, content: Any, *, deliver_as: str | None) -> None:
        try:
            await self._session.prompting.send_user_message(content, deliver_as=deliver_as)
        except Exception as error:
            self._session.extensions.report(RUNTIME_PATH, "send_user_message", error)

    def append_custom_entry(self, custom_type: str, data: Any) -> str:
        session = self._session
        entry_id = session.session_manager.append_custom(custom_type, data)
        session.record_entry(entry_id)
        return entry_id

    def set_session_name(self, name: str) -> None:
        self._session.set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._session.session_manager.get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        session = self._session
        session.record_entry(session.session_manager.append_label(entry_id, label))

    def get_active_tools(self) -> list[str]:
        return self._session.get_active_tool_names()

    def get_all_tools(self) -> list[dict[str, Any]]:
        return self._session.get_all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self._session.set_active_tools(names)

    def get_commands(self) -> list[dict[str, Any]]:
        return self._session.get_commands()

    async def set_model(self, model: Model) -> bool:
        try:
            await self._session.set_model(model)
        except ValueError:
            return False
        return True

    def get_thinking_level(self) -> str:
        return self._session.thinking_level

    def set_thinking_level(self, level: str) -> None:
        self._session.set_thinking_level(level)

    def refresh_tools(self) -> None:
        self._session.tool_registry.refresh_extension_tools()

    # -- command-only session control ------------------------------------------------------------

    async def wait_for_idle(self) -> None:
        await self._session.wait_for_idle()

    async def new_session(self, parent_session: str | None, setup: Callable[[Any], Any] | None) -> dict[str, Any]:
        return await self._runtime().new_session(parent_session, setup=setup)

    async def fork(self, entry_id: str) -> dict[str, Any]:
        return await self._runtime().fork(entry_id)

    async def navigate_tree(self, target_id: str, options: dict[str, Any]) -> dict[str, Any]:
        def option(snake: str, camel: str, default: Any) -> Any:
            return options.get(snake, options.get(camel, default))

        return await self._session.navigate_tree(
            target_id,
            summarize=bool(option("summarize", "summarize", False)),
            custom_instructions=option("custom_instructions", "customInstructions", None),
            replace_instructions=bool(option("replace_instructions", "replaceInstructions", False)),
            label=option("label", "label", None),
        )

    async def switch_session(self, path: str) -> dict[str, Any]:
        return await self._runtime().switch_session(path)

    async def reload(self) -> None:
        await self._runtime().reload()


__all__ = ["RUNTIME_PATH", "SessionExtensionHost"]
