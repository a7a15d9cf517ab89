"""The session as extensions see it: the ``ExtensionHost`` behind ``pi`` and ``ctx``.

A thin adapter: reads go to the session's state and parts, actions become session operations.
Failed ``send_message``/``send_user_message`` actions are reported on the extension error channel
(``{extensionPath: "<runtime>", event: "send_message"|"send_user_message"}``) rather than raised
into the handler. Session replacement (``new_session``, ``fork``, ``switch_session``, ``reload``)
goes through the session's owner, its ``AgentSessionRuntime``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import Model
from pi_harness.coding.agent_session import stats, views
from pi_harness.coding.agent_session.model_control import ModelControl
from pi_harness.coding.agent_session.prompting import Prompting
from pi_harness.coding.agent_session.queued_messages import QueuedMessages
from pi_harness.coding.agent_session.run_driver import RunDriver
from pi_harness.coding.agent_session.session_entries import SessionEntries
from pi_harness.coding.agent_session.session_errors import NO_RUNTIME, SessionError
from pi_harness.coding.agent_session.session_owner import SessionOwner, SessionSetup
from pi_harness.coding.agent_session.session_state import RUNTIME_PATH, SessionState
from pi_harness.coding.agent_session.session_tree import TreeNavigator
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.agent_session.tool_hooks import ToolHooks
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.session_store.store import SessionManager


@dataclass(frozen=True, eq=False)
class HostedParts:
    """The parts of the session the extension host adapts."""

    driver: RunDriver
    prompting: Prompting
    queues: QueuedMessages
    models: ModelControl
    tools: ToolRegistry
    tool_hooks: ToolHooks
    prompt: SystemPromptState
    tree: TreeNavigator
    entries: SessionEntries
    # ``ctx.shutdown()``: the session records the request, the mode decides when to stop.
    request_shutdown: Callable[[], None]


class SessionExtensionHost:
    def __init__(self, state: SessionState, parts: HostedParts, owner: SessionOwner | None) -> None:
        self._state = state
        self._parts = parts
        self._owner = owner

    def _runtime(self) -> SessionOwner:
        if self._owner is None:
            raise SessionError(NO_RUNTIME)
        return self._owner

    # -- read-only state -------------------------------------------------------------------------

    @property
    def cwd(self) -> str:
        return self._state.cwd

    @property
    def mode(self) -> str:
        """Pi's name of the mode: the terminal UI is ``tui``, a session without a mode ``print``."""
        return _PI_MODES.get(self._state.mode, self._state.mode)

    @property
    def session_manager(self) -> SessionManager:
        return self._state.manager

    @property
    def model_runtime(self) -> ModelRuntime:
        return self._state.model_runtime

    @property
    def model(self) -> Model | None:
        return self._state.model

    def is_idle(self) -> bool:
        return not self._state.busy

    def abort(self) -> None:
        self._parts.driver.request_abort()

    def has_pending_messages(self) -> bool:
        return self._parts.queues.has_pending()

    def request_shutdown(self) -> None:
        self._parts.request_shutdown()

    def get_context_usage(self) -> dict[str, object] | None:
        return stats.context_usage_of(self._state.manager, self._state.limits_model())

    def start_compaction(
        self,
        custom_instructions: str | None,
        on_complete: Callable[[dict[str, object]], object] | None,
        on_error: Callable[[BaseException], object] | None,
    ) -> None:
        driver = self._parts.driver

        async def run() -> None:
            try:
                result = await driver.compact_now(custom_instructions)
            except Exception as error:
                if on_error is not None:
                    on_error(error)
                return
            if on_complete is not None:
                on_complete(dict(result))

        self._state.spawn(run())

    def get_system_prompt(self) -> str:
        return self._parts.prompt.effective_prompt()

    def get_system_prompt_options(self) -> dict[str, object]:
        return self._parts.prompt.build_options()

    def scoped_models(self) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        for model, level in self._parts.models.scoped:
            item: dict[str, object] = {"model": model}
            if level is not None:
                item["thinkingLevel"] = level
            out.append(item)
        return out

    def is_project_trusted(self) -> bool:
        return self._state.settings.project_trusted

    def current_signal(self) -> AbortSignal | None:
        return self._state.agent.signal

    def callable_tools(self) -> list[AgentTool]:
        return self._parts.tools.callable_tools()

    def get_settings(self) -> dict[str, object]:
        return self._state.settings.effective()

    async def execute_tool(
        self,
        name: str,
        args: Mapping[str, object],
        *,
        signal: AbortSignal | None,
        on_update: Callable[[AgentToolResult], object] | None,
        parent_tool_call_id: str | None,
    ) -> dict[str, object]:
        return await self._parts.tool_hooks.execute_nested(
            name, args, signal=signal, on_update=on_update, parent_tool_call_id=parent_tool_call_id
        )

    # -- actions ---------------------------------------------------------------------------------

    async def send_message(self, message: Mapping[str, object], *, trigger_turn: bool, deliver_as: str | None) -> None:
        try:
            await self._parts.prompting.send_message(message, trigger_turn=trigger_turn, deliver_as=deliver_as)
        except Exception as error:
            self._state.extensions.report(RUNTIME_PATH, "send_message", error)

    async def send_user_message(
        self, content: object, *, deliver_as: str | None, expand_prompt_templates: bool = False
    ) -> None:
        try:
            await self._parts.prompting.send_user_message(
                content, deliver_as=deliver_as, expand_prompt_templates=expand_prompt_templates
            )
        except Exception as error:
            self._state.extensions.report(RUNTIME_PATH, "send_user_message", error)

    def append_custom_entry(self, custom_type: str, data: object) -> str:
        return self._parts.entries.append_custom(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._parts.entries.set_name(name)

    def get_session_name(self) -> str | None:
        return self._state.manager.get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._parts.entries.set_label(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return self._parts.tools.active_names()

    def get_all_tools(self) -> list[dict[str, object]]:
        return self._parts.tools.all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self._parts.tools.set_active(names)

    def get_commands(self) -> list[dict[str, object]]:
        return views.session_commands(self._state)

    async def set_model(self, model: Model) -> bool:
        try:
            await self._parts.models.set_model(model)
        except ValueError:
            return False
        return True

    def get_thinking_level(self) -> str:
        return self._state.thinking_level

    def set_thinking_level(self, level: str) -> None:
        self._parts.models.set_thinking_level(level)

    def refresh_tools(self) -> None:
        self._parts.tools.refresh_extension_tools()

    # -- command-only session control ------------------------------------------------------------

    async def wait_for_idle(self) -> None:
        await self._parts.driver.wait_for_idle()

    async def new_session(self, parent_session: str | None, setup: SessionSetup | None) -> dict[str, object]:
        return await self._runtime().new_session(parent_session, setup=setup)

    async def fork(self, entry_id: str) -> dict[str, object]:
        return await self._runtime().fork(entry_id)

    async def navigate_tree(self, target_id: str, options: Mapping[str, object]) -> dict[str, object]:
        def option(snake: str, camel: str) -> object:
            return options.get(snake, options.get(camel))

        instructions = option("custom_instructions", "customInstructions")
        label = option("label", "label")
        return await self._parts.tree.navigate_tree(
            target_id,
            summarize=bool(option("summarize", "summarize")),
            custom_instructions=instructions if isinstance(instructions, str) else None,
            replace_instructions=bool(option("replace_instructions", "replaceInstructions")),
            label=label if isinstance(label, str) else None,
        )

    async def switch_session(self, path: str) -> dict[str, object]:
        return await self._runtime().switch_session(path)

    async def reload(self) -> None:
        await self._runtime().reload()

    def replacement_context(self) -> object:
        return self._runtime().replacement_context()


# Our internal mode names that Pi calls otherwise (``ExtensionMode``).
_PI_MODES = {"interactive": "tui", "sdk": "print"}


__all__ = ["HostedParts", "SessionExtensionHost"]
