"""``ctx``: what handlers, tools and commands receive.

A context belongs to one runner generation. After ``/reload`` or a session replacement the runner
is invalidated and every old context raises ``StaleContextError`` when used, so an extension never
acts on a session that is gone.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Literal

from pi_harness.agent.types import AgentTool, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import Model, UserContent
from pi_harness.coding.extensions.host import CompactionCallback, ExtensionHost, SessionSetup
from pi_harness.coding.extensions.ui import ExtensionUI
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.session_store.readonly import ReadonlySessionManager

# Pi's text, word for word: extensions written for Pi may look for it.
STALE_MESSAGE = (
    "This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx "
    "after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload(). For newSession, fork, and "
    "switchSession, move post-replacement work into withSession and use the ctx passed to withSession. For "
    "reload, do not use the old ctx after await ctx.reload()."
)


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

    @property
    def scoped_models(self) -> Sequence[Mapping[str, object]]:
        """The models ``--models``/``enabledModels`` scope the session to (``[{model, thinkingLevel?}]``);
        empty when every model is usable."""
        return self._live().scoped_models()

    @property
    def thinking_level(self) -> str:
        return self._live().get_thinking_level()

    def is_project_trusted(self) -> bool:
        return self._live().is_project_trusted()

    @property
    def signal(self) -> AbortSignal | None:
        """The running agent's abort signal; ``None`` while idle."""
        return self._live().current_signal()

    @property
    def tools(self) -> Sequence[AgentTool]:
        """The tools ``execute_tool`` can call."""
        return self._live().callable_tools()

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


# ``with_session(ctx)``: work to do in the replacement session, with a context bound to it.
WithSession = Callable[["ReplacedSessionContext"], Awaitable[object] | object]


class ExtensionCommandContext(ExtensionContext):
    """Commands also control the session (never call these from event handlers: deadlock)."""

    def get_system_prompt_options(self) -> Mapping[str, object]:
        """What the base system prompt is built from (cwd, tools, custom prompt, context files, skills)."""
        return self._live().get_system_prompt_options()

    async def wait_for_idle(self) -> None:
        await self._live().wait_for_idle()

    async def new_session(
        self,
        parent_session: str | None = None,
        setup: SessionSetup | None = None,
        *,
        with_session: WithSession | None = None,
    ) -> Mapping[str, object]:
        result = await self._live().new_session(parent_session, setup)
        return await self._then(result, with_session)

    async def fork(
        self, entry_id: str, *, position: Literal["before", "at"] | None = None, with_session: WithSession | None = None
    ) -> Mapping[str, object]:
        result = await self._live().fork(entry_id)
        return await self._then(result, with_session)

    async def navigate_tree(self, target_id: str, **options: object) -> Mapping[str, object]:
        return await self._live().navigate_tree(target_id, options)

    async def switch_session(self, path: str, *, with_session: WithSession | None = None) -> Mapping[str, object]:
        result = await self._live().switch_session(path)
        return await self._then(result, with_session)

    async def _then(self, result: Mapping[str, object], with_session: WithSession | None) -> Mapping[str, object]:
        """Run ``with_session`` in the replacement session (not when the switch was cancelled)."""
        if with_session is None or result.get("cancelled"):
            return result
        # This context is stale by now: ask the host it was made for, unchecked, for the new one.
        fresh = self._host.replacement_context()
        if not isinstance(fresh, ReplacedSessionContext):
            raise RuntimeError("The replacement session has no extension runtime")
        outcome = with_session(fresh)
        if inspect.isawaitable(outcome):
            await outcome
        return result

    async def reload(self) -> None:
        await self._live().reload()


class ReplacedSessionContext(ExtensionCommandContext):
    """The context ``with_session`` gets: bound to the new session, and able to send to it."""

    async def send_message(
        self,
        message: dict[str, object],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "followUp", "nextTurn"] | None = None,
    ) -> None:
        await self._live().send_message(message, trigger_turn=trigger_turn, deliver_as=deliver_as)

    async def send_user_message(
        self,
        content: str | list[UserContent],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> None:
        if expand_prompt_templates:
            await self._live().send_user_message(content, deliver_as=deliver_as, expand_prompt_templates=True)
        else:  # hosts written before the option need not know it
            await self._live().send_user_message(content, deliver_as=deliver_as)
