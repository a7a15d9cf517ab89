"""``AgentSession``: one conversation with its model, tools, queues, compaction and extensions.

The session owns an ``Agent`` and installs its hooks (tool hooks, request projection, turn
boundary, next-turn refresh, tool declaration), subscribes to its events (``pump.py``) and drives
logical runs (``run_driver.py``). The session file (``SessionManager``) is the authority on the
model context: every request is projected from it. Build sessions with ``create_agent_session``
or an ``AgentSessionRuntime``; the constructor only wires parts together.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from pi_harness.agent import Agent
from pi_harness.agent.hooks import PrepareNextTurnContext, StreamFn
from pi_harness.agent.options import QueueMode
from pi_harness.agent.types import AgentContext, AgentMessage, AgentTool
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.api import stream_simple
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, ImageContent, Model, ThinkingLevel
from pi_harness.coding.agent_session import navigation, stats, views
from pi_harness.coding.agent_session.agent_setup import QUEUE_MODES, agent_options, stream_options_from_settings
from pi_harness.coding.agent_session.binding import bind_session_extensions
from pi_harness.coding.agent_session.compaction_control import CompactionControl, requested_max_tokens
from pi_harness.coding.agent_session.errors import SESSION_NAME_EMPTY
from pi_harness.coding.agent_session.events import SessionListener, SessionListeners
from pi_harness.coding.agent_session.extension_host import SessionExtensionHost
from pi_harness.coding.agent_session.model_control import ModelControl
from pi_harness.coding.agent_session.navigation import Navigator
from pi_harness.coding.agent_session.prompting import Disposition, Prompting, Source, StreamingBehavior
from pi_harness.coding.agent_session.pump import EventPump
from pi_harness.coding.agent_session.queues import UiQueues
from pi_harness.coding.agent_session.request import RequestProjection
from pi_harness.coding.agent_session.retry import RetryController
from pi_harness.coding.agent_session.run_driver import RunDriver
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.agent_session.tool_hooks import ToolHooks
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.agent_session.user_bash import UserBash
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.ui import ExtensionUI
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.loader import ResourceLoader
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.tools import ToolOptions, available_tool_names, create_tools

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.runtime import AgentSessionRuntime

INTERNAL_PATH = "<session>"


class AgentSession:
    def __init__(
        self,
        *,
        cwd: str,
        agent_dir: Path,
        session_manager: SessionManager,
        settings: SettingsManager,
        model_runtime: ModelRuntime,
        resource_loader: ResourceLoader,
        extensions: ExtensionRunner,
        model: Model | None = None,
        thinking_level: ThinkingLevel = "off",
        active_tools: Sequence[str] | None = None,
        custom_tools: Sequence[AgentTool] = (),
        tool_options: ToolOptions | None = None,
        stream_fn: StreamFn | None = None,
        system_prompt: str | None = None,
        append_system_prompt: Sequence[str] = (),
        scoped_models: list[tuple[Model, str | None]] | None = None,
        mode: str = "sdk",
        runtime: AgentSessionRuntime | None = None,
        restored_model: bool = False,
    ) -> None:
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.session_manager = session_manager
        self.settings = settings
        self.model_runtime = model_runtime
        self.resource_loader = resource_loader
        self.extensions = extensions
        self.mode = mode
        self.runtime = runtime
        self.shutdown_requested = False
        self._shutdown_listeners: list[Callable[[], None]] = []
        self._bound = False
        self._disposed = False
        self._restored_model = restored_model
        self._background: set[asyncio.Task[Any]] = set()
        self._last_assistant_entry: tuple[AssistantMessage, str] | None = None
        self.stream_fn: StreamFn = stream_fn or stream_simple

        self.listeners = SessionListeners()
        self.queues = UiQueues(self.listeners.emit, self.listeners.emit_soon)
        self.tool_options = dataclasses.replace(tool_options or ToolOptions(), env=self.bash_env)
        builtin = create_tools(available_tool_names(), cwd, self.tool_options)
        self.tool_registry = ToolRegistry(
            builtin=builtin,
            custom=custom_tools,
            active=list(active_tools) if active_tools is not None else ["read", "bash", "edit", "write"],
            runner=extensions,
        )
        self.prompt_state = SystemPromptState(
            cwd=cwd,
            loader=resource_loader,
            tools=self.tool_registry.active_tools,
            system_prompt=system_prompt,
            append_system_prompt=append_system_prompt,
        )
        self.pump = EventPump(self)
        self.tool_hooks = ToolHooks(
            runner=extensions,
            registry=self.tool_registry,
            emit=self.pump,
            run_id=lambda: self.agent.run_id,
            model=lambda: self.model,
            messages=lambda: self.agent.state.messages,
        )
        self.request = RequestProjection(self)
        self.base_stream_options = stream_options_from_settings(settings)
        self.agent = Agent(agent_options(self, model, thinking_level))
        self.retry = RetryController(
            settings,
            emit=self.listeners.emit,
            manager=session_manager,
            record_entry=self.record_entry,
            report=self.report_internal_error,
            context_window=lambda: int(self.model["contextWindow"]) if self.model else None,
        )
        self.models = ModelControl(self, scoped_models)
        self.compaction = CompactionControl(self)
        self.driver = RunDriver(self)
        self.prompting = Prompting(self)
        self.user_bash = UserBash(self)
        self.navigator = Navigator(self)
        self.host = SessionExtensionHost(self)
        self._unsubscribe_agent = self.agent.subscribe(self.pump)

    # -- agent hooks -----------------------------------------------------------------------------

    async def declare_tool_changes(self, context: AgentContext, signal: AbortSignal) -> list[AgentMessage] | None:
        """At run start: the system message bringing the transcript's prompt and tools up to date."""
        patch = self.prompt_state.patch(self.session_manager.get_system_state())
        return [patch] if patch is not None else None

    async def prepare_next_turn(self, context: PrepareNextTurnContext, signal: AbortSignal) -> list[AgentMessage]:
        """Before each later turn: compaction check point 2, then a patch for mid-run changes."""
        await self.compaction.mid_run(context.context.messages)
        patch = self.prompt_state.patch(self.session_manager.get_system_state())
        return [patch] if patch is not None else []

    # -- plumbing used by the parts ------------------------------------------------------------

    def bash_env(self) -> dict[str, str]:
        model = self.model
        session_file = self.session_manager.get_session_file()
        return {
            "PI_SESSION_ID": self.session_manager.get_session_id(),
            "PI_SESSION_FILE": str(session_file) if session_file is not None else "",
            "PI_PROVIDER": model["provider"] if model is not None else "",
            "PI_MODEL": model["id"] if model is not None else "",
            "PI_REASONING_LEVEL": self.thinking_level,
        }

    def sync_agent_messages(self) -> None:
        """The agent's transcript := the session projection (after compaction, edits, navigation)."""
        self.agent.replace_messages(list(self.session_manager.build_session_context().messages))

    def record_entry(self, entry_id: str) -> None:
        entry = self.session_manager.get_entry(entry_id)
        if entry is not None:
            self.listeners.emit_soon({"type": "entry_appended", "entry": entry})

    async def record_entry_async(self, entry_id: str) -> None:
        entry = self.session_manager.get_entry(entry_id)
        if entry is not None:
            await self.listeners.emit({"type": "entry_appended", "entry": entry})

    async def flush_deferred_messages(self) -> None:
        deferred = self.prompting.deferred
        while deferred:
            await self.pump.deliver(deferred.pop(0))

    def abort_branch_summary(self) -> None:
        self.navigator.abort()

    def requested_max_tokens(self, model: Model) -> int:
        return requested_max_tokens(model, self.base_stream_options.max_tokens)

    async def complete(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessage:
        """One non-streaming request with the session's credentials and headers (summaries)."""
        return await self.request.complete(model, context, options)

    def spawn(self, work: Coroutine[Any, Any, Any] | Awaitable[Any]) -> None:
        """Run ``work`` in the background; a failure is reported on the extension error channel."""
        task = asyncio.ensure_future(work)
        self._background.add(task)

        def done(finished: asyncio.Future[Any]) -> None:
            self._background.discard(cast(asyncio.Task[Any], finished))
            if not finished.cancelled() and finished.exception() is not None:
                self.report_internal_error("background", cast(BaseException, finished.exception()))

        task.add_done_callback(done)

    def report_internal_error(self, event: str, error: BaseException) -> None:
        self.extensions.report(INTERNAL_PATH, event, error)

    # -- extensions ----------------------------------------------------------------------------

    async def bind_extensions(
        self,
        *,
        ui: ExtensionUI | None = None,
        has_ui: bool = False,
        mode: str,
        reason: str = "startup",
        previous_session_file: str | None = None,
    ) -> None:
        """Attach the extension runner to this session; emits ``session_start`` and
        ``resources_discover``. Idempotent (later calls do nothing)."""
        if self._bound:
            return
        self._bound = True
        self.mode = mode
        if self.runtime is not None:
            self.runtime.remember_binding(ui, has_ui, mode)
        await bind_session_extensions(
            self,
            ui=ui,
            has_ui=has_ui,
            reason=reason,
            previous_session_file=previous_session_file,
            restored_model=self._restored_model,
        )

    async def ensure_bound(self) -> None:
        if not self._bound:
            await self.bind_extensions(mode=self.mode)

    def request_shutdown(self) -> None:
        """``ctx.shutdown()``: the mode decides when to stop (see ``on_shutdown_request``)."""
        self.shutdown_requested = True
        for listener in list(self._shutdown_listeners):
            listener()

    def on_shutdown_request(self, listener: Callable[[], None]) -> Callable[[], None]:
        self._shutdown_listeners.append(listener)
        return lambda: self._shutdown_listeners.remove(listener) if listener in self._shutdown_listeners else None

    # -- events and state ----------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        return self.listeners.subscribe(listener)

    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self.agent.state.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self.driver.busy

    @property
    def is_compacting(self) -> bool:
        return self.compaction.is_compacting

    @property
    def is_idle(self) -> bool:
        return not self.driver.busy

    @property
    def is_disposed(self) -> bool:
        return self._disposed

    @property
    def pending_message_count(self) -> int:
        return self.queues.count

    def get_messages(self) -> list[AgentMessage]:
        return list(self.session_manager.build_session_context().messages)

    def get_state(self) -> dict[str, Any]:
        return views.session_state(self)

    def get_last_assistant_text(self) -> str | None:
        return views.last_assistant_text(self.get_messages())

    def get_session_stats(self) -> dict[str, Any]:
        return stats.session_stats(self.session_manager, self.model)

    def get_context_usage(self) -> dict[str, Any] | None:
        return stats.context_usage_of(self.session_manager, self.model)

    def get_system_prompt(self) -> str:
        return self.prompt_state.effective_prompt()

    def set_session_name(self, name: str) -> None:
        if not name or not name.strip():
            raise ValueError(SESSION_NAME_EMPTY)
        manager = self.session_manager
        self.record_entry(manager.append_session_info(name))
        event: dict[str, Any] = {"type": "session_info_changed"}
        current = manager.get_session_name()
        if current is not None:
            event["name"] = current
        self.listeners.emit_soon(event)

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, then prompt templates, then skills (``skill:<name>``)."""
        return views.session_commands(self)

    # -- prompting -------------------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        *,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        source: Source = "interactive",
        wait: bool = True,
    ) -> Disposition:
        """Submit input. ``"started"`` returns once the whole run settled (unless ``wait=False``)."""
        disposition, handle = await self.prompting.start(text, images, streaming_behavior, source)
        if handle is not None and wait:
            await self.driver.wait(handle)
        return disposition

    async def start_prompt(
        self,
        text: str,
        *,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        source: Source = "rpc",
    ) -> Disposition:
        """Validate and start; returns the disposition at once while the run goes on."""
        return await self.prompt(text, images=images, streaming_behavior=streaming_behavior, source=source, wait=False)

    async def steer(
        self, text: str, images: list[ImageContent] | None = None, *, source: Source = "interactive"
    ) -> Literal["queued", "handled"]:
        return await self.prompting.queue("steer", text, images, source)

    async def follow_up(
        self, text: str, images: list[ImageContent] | None = None, *, source: Source = "interactive"
    ) -> Literal["queued", "handled"]:
        return await self.prompting.queue("followUp", text, images, source)

    def clear_queue(self) -> dict[str, list[str]]:
        self.agent.clear_all_queues()
        return self.queues.clear()

    def get_steering_messages(self) -> list[str]:
        return list(self.queues.steering)

    def get_follow_up_messages(self) -> list[str]:
        return list(self.queues.follow_up)

    async def abort(self) -> None:
        """Cancel the retry wait, compaction, branch summary and the request; wait until idle."""
        self.driver.request_abort()
        await self.driver.wait_for_idle()

    async def wait_for_idle(self) -> None:
        await self.driver.wait_for_idle()

    # -- models and thinking ---------------------------------------------------------------------

    async def set_model(self, model: Model) -> None:
        await self.models.set_model(model)

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> dict[str, Any] | None:
        return await self.models.cycle_model(direction)

    def set_scoped_models(self, models: list[tuple[Model, str | None]]) -> None:
        self.models.scoped = list(models)

    def set_thinking_level(self, level: str) -> None:
        self.models.set_thinking_level(level)

    def cycle_thinking_level(self) -> str | None:
        return self.models.cycle_thinking_level()

    def get_available_thinking_levels(self) -> list[str]:
        return self.models.available_thinking_levels()

    @property
    def steering_mode(self) -> QueueMode:
        return self.agent.get_steering_mode()

    @property
    def follow_up_mode(self) -> QueueMode:
        return self.agent.get_follow_up_mode()

    def set_steering_mode(self, mode: QueueMode) -> None:
        if mode not in QUEUE_MODES:
            raise ValueError(f"Invalid steering mode: {mode}")
        self.agent.set_steering_mode(mode)
        self.settings.set("steeringMode", mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        if mode not in QUEUE_MODES:
            raise ValueError(f"Invalid follow-up mode: {mode}")
        self.agent.set_follow_up_mode(mode)
        self.settings.set("followUpMode", mode)

    # -- compaction, retry, bash -------------------------------------------------------------------

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Manual compaction (aborts the current run first); raises ``CompactionError`` on failure."""
        if self.is_streaming:
            await self.abort()
        return dict(await self.compaction.compact(custom_instructions))

    def set_auto_compaction(self, enabled: bool) -> None:
        self.compaction.set_auto(enabled)

    @property
    def auto_compaction_enabled(self) -> bool:
        return self.compaction.auto_enabled

    def set_auto_retry(self, enabled: bool) -> None:
        self.retry.set_enabled(enabled)

    @property
    def auto_retry_enabled(self) -> bool:
        return self.retry.enabled

    def abort_retry(self) -> None:
        self.retry.abort()

    async def run_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_delta: Callable[[str], None] | None = None,
        request_id: str | None = None,
    ) -> dict[str, Any]:
        """``!cmd`` / RPC ``bash``: ``{output, exitCode, cancelled, truncated, fullOutputPath?}``."""
        return await self.user_bash.run(
            command, exclude_from_context=exclude_from_context, on_delta=on_delta, request_id=request_id
        )

    def abort_bash(self) -> None:
        self.user_bash.abort()

    # -- tools -----------------------------------------------------------------------------------

    def get_active_tool_names(self) -> list[str]:
        return self.tool_registry.active_names()

    def set_active_tools(self, names: list[str]) -> None:
        """Unknown names are ignored; applies from the next request (mid-run: a system patch)."""
        self.tool_registry.set_active(names)

    def get_all_tools(self) -> list[dict[str, Any]]:
        return self.tool_registry.all_tools()

    # -- the tree --------------------------------------------------------------------------------

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        return await self.navigator.navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    def get_fork_messages(self) -> list[dict[str, str]]:
        return navigation.fork_messages(self.session_manager)

    def get_tree(self) -> list[dict[str, Any]]:
        return navigation.tree_dicts(self.session_manager.get_tree())

    def get_entries(self, since: str | None = None) -> dict[str, Any]:
        return navigation.entries_since(self.session_manager, since)

    # -- the end ---------------------------------------------------------------------------------

    async def dispose(self, *, close_session_manager: bool = True) -> None:
        """Stop everything, emit ``session_shutdown`` (once), make extension contexts stale."""
        if self._disposed:
            return
        self._disposed = True
        if self.is_streaming or self.is_compacting:
            await self.abort()
        self.user_bash.abort()
        if self._bound:
            await self.extensions.emit("session_shutdown", {})
        self.extensions.invalidate()
        self._unsubscribe_agent()
        await self.listeners.drain()
        if close_session_manager:
            self.session_manager.close()


__all__ = ["AgentSession"]
