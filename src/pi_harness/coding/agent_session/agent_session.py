"""``AgentSession``: one conversation with its model, tools, queues, compaction and extensions.

This class is the public face of a live session and nothing more: the constructor builds the
parts and hands each the shared ``SessionState`` plus the other parts it works with, and every
method delegates to one part. Where a behaviour lives:

* prompting, steering, extension messages: ``prompting``; the queues hosts see: ``queued_messages``
* one logical run until ``agent_settled``, aborting, manual compaction: ``run_driver``
* every agent event (extensions, listeners, persistence): ``pump``
* what a model request carries: ``request_projection``; the agent's hooks: ``agent_setup``,
  ``tool_hooks``, ``turn_hooks``
* compaction check points: ``compaction_control``; automatic retry: ``auto_retry``
* models and thinking levels: ``model_control``; tools: ``tool_registry``
* ``/tree``: ``session_tree``; ``!cmd``: ``user_shell``; names, labels: ``session_entries``
* extensions: ``extension_binding`` and ``extension_host``; the end: ``lifecycle``
* read-only views: ``views``, ``stats``

The session file (``SessionManager``) is the authority on the model context: every request is
projected from it. Build sessions with ``create_agent_session`` or an ``AgentSessionRuntime``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pi_harness.agent import user_message
from pi_harness.agent.hooks import MaybeAwaitable, StreamFn
from pi_harness.agent.options import QueueMode
from pi_harness.agent.types import AgentMessage, AgentTool
from pi_harness.ai.api import stream_simple
from pi_harness.ai.models import image_resize
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, ImageContent, Model, ThinkingLevel
from pi_harness.coding.agent_session import stats, views
from pi_harness.coding.agent_session.agent_setup import agent_from_settings, connect_agent, stream_options_from_settings
from pi_harness.coding.agent_session.auto_retry import AutoRetry
from pi_harness.coding.agent_session.cache_warming_hook import WarmingStream
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.extension_binding import ExtensionBinding
from pi_harness.coding.agent_session.extension_host import HostedParts, SessionExtensionHost
from pi_harness.coding.agent_session.lifecycle import SessionDisposal, ShutdownRequests
from pi_harness.coding.agent_session.model_control import ModelControl, ScopedModel
from pi_harness.coding.agent_session.prompting import Disposition, Prompting, Source, StreamingBehavior
from pi_harness.coding.agent_session.pump import EventPump
from pi_harness.coding.agent_session.queued_messages import QueuedMessages
from pi_harness.coding.agent_session.request_projection import RequestProjection
from pi_harness.coding.agent_session.run_driver import RunDriver
from pi_harness.coding.agent_session.session_entries import SessionEntries
from pi_harness.coding.agent_session.session_events import SessionEvents, SessionListener
from pi_harness.coding.agent_session.session_owner import SessionOwner
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.session_tree import TreeNavigator
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.agent_session.tool_hooks import ToolHooks
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.agent_session.turn_hooks import TurnHooks
from pi_harness.coding.agent_session.user_shell import UserShell, shell_environment
from pi_harness.coding.cache_warming import CacheWarmer
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.ui import ExtensionUI
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.loader import ResourceLoader
from pi_harness.coding.secrets import masker_for
from pi_harness.coding.session_store.store import SessionManager
from pi_harness.coding.tools import ToolOptions, available_tool_names, create_tools
from pi_harness.coding.tools.file_freshness import FileViews

DEFAULT_ACTIVE_TOOLS = ("read", "bash", "edit", "write")


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
        scoped_models: list[ScopedModel] | None = None,
        mode: str = "sdk",
        runtime: SessionOwner | None = None,
        restored_model: bool = False,
    ) -> None:
        # Services and settings, as hosts read them.
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.session_manager = session_manager
        self.settings = settings
        self.model_runtime = model_runtime
        self.resource_loader = resource_loader
        self.extensions = extensions
        self.runtime = runtime
        self.stream_fn: StreamFn = stream_fn or stream_simple
        self.base_stream_options = stream_options_from_settings(settings)

        # The agent first (from settings alone): every part works on it.
        agent = self.agent = agent_from_settings(
            settings,
            model=model,
            thinking_level=thinking_level,
            messages=views.transcript(session_manager),
            session_id=session_manager.get_session_id(),
            # Bound below, once the state exists: the session's requests start cache warming.
            stream_fn=self._session_stream,
            stream_options=self.base_stream_options,
        )
        self.listeners = SessionEvents(session_manager)
        state = self._state = SessionState(
            cwd=cwd,
            agent_dir=agent_dir,
            manager=session_manager,
            settings=settings,
            model_runtime=model_runtime,
            resource_loader=resource_loader,
            extensions=extensions,
            agent=agent,
            events=self.listeners,
            mode=mode,
            masker=masker_for(settings, model_runtime),
        )
        self.warming = WarmingStream(state, self.stream_fn)
        self.cache_warmer = self.warming.warmer

        # Tools and the system prompt.
        self.tool_options = dataclasses.replace(
            tool_options or ToolOptions(),
            env=functools.partial(shell_environment, state),
            file_views=FileViews(),
            image_resize=lambda: image_resize(state.limits_model()),
        )
        self.tool_registry = ToolRegistry(
            builtin=create_tools(available_tool_names(), cwd, self.tool_options),
            custom=custom_tools,
            active=list(active_tools) if active_tools is not None else list(DEFAULT_ACTIVE_TOOLS),
            runner=extensions,
        )
        agent.set_tools(self.tool_registry.active_tools())
        self.prompt_state = SystemPromptState(
            cwd=cwd,
            loader=resource_loader,
            tools=self.tool_registry.active_tools,
            hidden_tools=self.tool_registry.hidden_declarations,
            system_prompt=system_prompt,
            append_system_prompt=append_system_prompt,
        )

        # What runs inside the agent's loop: requests, events, retry and compaction decisions.
        self.queues = QueuedMessages(state)
        self.retry = AutoRetry(
            settings,
            emit=self.listeners.emit,
            manager=session_manager,
            record_entry=self.listeners.announce_entry_soon,
            report=state.report_internal_error,
            context_window=state.context_window,
        )
        self.request = RequestProjection(
            state,
            prompt=self.prompt_state,
            tools=self.tool_registry,
            base_options=self.base_stream_options,
            stream_fn=self.stream_fn,
        )
        self.compaction = CompactionControl(
            state, complete=self.request.complete, max_tokens=self.base_stream_options.max_tokens
        )
        self.request.before_routed = self.compaction.before_routed_request
        self.pump = EventPump(state, queues=self.queues, retry=self.retry, compaction=self.compaction)
        self.tool_hooks = ToolHooks(
            runner=extensions,
            registry=self.tool_registry,
            emit=self.pump,
            run_id=lambda: agent.run_id,
            model=lambda: agent.state.model,
            messages=lambda: agent.state.messages,
            masker=state.masker,
        )
        disconnect_agent = connect_agent(
            agent,
            request=self.request,
            tool_hooks=self.tool_hooks,
            turns=TurnHooks(session_manager, self.prompt_state, self.compaction),
            pump=self.pump,
        )

        # What hosts and extensions drive.
        self.models = ModelControl(state, scoped_models)
        self.navigator = TreeNavigator(
            state, compaction=self.compaction, tools=self.tool_registry, complete=self.request.complete
        )
        self.user_bash = UserShell(state, self.tool_options)
        self.driver = RunDriver(
            state,
            pump=self.pump,
            retry=self.retry,
            compaction=self.compaction,
            tree=self.navigator,
            user_shell=self.user_bash,
            prompt=self.prompt_state,
        )
        self.prompting = Prompting(
            state,
            driver=self.driver,
            queues=self.queues,
            compaction=self.compaction,
            prompt=self.prompt_state,
            tools=self.tool_registry,
            pump=self.pump,
            # The binding needs the extension host, which needs this part: bind through the facade.
            ensure_bound=self.ensure_bound,
        )
        self.entries = SessionEntries(session_manager, self.listeners)
        self.shutdown = ShutdownRequests()
        self.host = SessionExtensionHost(
            state,
            HostedParts(
                driver=self.driver,
                prompting=self.prompting,
                queues=self.queues,
                models=self.models,
                tools=self.tool_registry,
                tool_hooks=self.tool_hooks,
                prompt=self.prompt_state,
                tree=self.navigator,
                entries=self.entries,
                request_shutdown=self.shutdown.request,
            ),
            runtime,
        )
        self.binding = ExtensionBinding(
            state, host=self.host, tools=self.tool_registry, owner=runtime, restored_model=restored_model
        )
        self.disposal = SessionDisposal(
            state,
            driver=self.driver,
            compaction=self.compaction,
            user_shell=self.user_bash,
            binding=self.binding,
            disconnect_agent=functools.partial(_disconnect, disconnect_agent, self.cache_warmer),
        )

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
        await self.binding.bind(
            ui=ui, has_ui=has_ui, mode=mode, reason=reason, previous_session_file=previous_session_file
        )

    async def ensure_bound(self) -> None:
        await self.binding.ensure_bound()

    def request_shutdown(self) -> None:
        """``ctx.shutdown()``: the mode decides when to stop (see ``on_shutdown_request``)."""
        self.shutdown.request()

    def on_shutdown_request(self, listener: Callable[[], None]) -> Callable[[], None]:
        return self.shutdown.subscribe(listener)

    @property
    def shutdown_requested(self) -> bool:
        return self.shutdown.requested

    @property
    def mode(self) -> str:
        return self._state.mode

    # -- events and state ----------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        return self.listeners.subscribe(listener)

    @property
    def model(self) -> Model | None:
        return self._state.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        return self._state.thinking_level

    @property
    def is_streaming(self) -> bool:
        return self._state.busy

    @property
    def is_compacting(self) -> bool:
        return self.compaction.is_compacting

    @property
    def is_idle(self) -> bool:
        return not self._state.busy

    @property
    def is_disposed(self) -> bool:
        return self._state.disposed

    @property
    def pending_message_count(self) -> int:
        return self.queues.count

    def get_messages(self) -> list[AgentMessage]:
        return views.transcript(self.session_manager)

    def get_state(self) -> dict[str, Any]:
        return views.state_view(self._state, self.compaction, self.queues)

    def get_last_assistant_text(self) -> str | None:
        return views.last_assistant_text(self.get_messages())

    def get_session_stats(self) -> dict[str, Any]:
        return stats.session_stats(self.session_manager, self._state.limits_model())

    def get_context_usage(self) -> dict[str, Any] | None:
        return stats.context_usage_of(self.session_manager, self._state.limits_model())

    def get_system_prompt(self) -> str:
        return self.prompt_state.effective_prompt()

    def set_session_name(self, name: str) -> None:
        self.entries.set_name(name)

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, then prompt templates, then skills (``skill:<name>``)."""
        return views.session_commands(self._state)

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
        return await self.prompting.prompt(text, images, streaming_behavior, source, wait=wait)

    async def start_prompt(
        self,
        text: str,
        *,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        source: Source = "rpc",
    ) -> Disposition:
        """Validate and start; returns the disposition at once while the run goes on."""
        return await self.prompting.prompt(text, images, streaming_behavior, source, wait=False)

    async def steer(
        self, text: str, images: list[ImageContent] | None = None, *, source: Source = "interactive"
    ) -> Literal["queued", "handled"]:
        return await self.prompting.queue("steer", text, images, source)

    async def follow_up(
        self, text: str, images: list[ImageContent] | None = None, *, source: Source = "interactive"
    ) -> Literal["queued", "handled"]:
        return await self.prompting.queue("followUp", text, images, source)

    def clear_queue(self) -> dict[str, list[str]]:
        return self.queues.clear()

    def get_steering_messages(self) -> list[str]:
        return list(self.queues.steering)

    def get_follow_up_messages(self) -> list[str]:
        return list(self.queues.follow_up)

    async def abort(self) -> None:
        """Cancel the retry wait, compaction, branch summary and the request; wait until idle."""
        await self.driver.abort()

    async def wait_for_idle(self) -> None:
        await self.driver.wait_for_idle()

    # -- models and thinking ---------------------------------------------------------------------

    async def set_model(self, model: Model) -> None:
        await self.models.set_model(model)

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> dict[str, Any] | None:
        return await self.models.cycle_model(direction)

    def set_scoped_models(self, models: list[ScopedModel]) -> None:
        self.models.set_scoped(models)

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
        self.queues.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self.queues.set_follow_up_mode(mode)

    # -- compaction, retry, bash -------------------------------------------------------------------

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Manual compaction (aborts the current run first); raises ``CompactionError`` on failure."""
        return dict(await self.driver.compact_now(custom_instructions))

    def set_http_idle_timeout_ms(self, timeout_ms: int) -> None:
        """From the next request on (``0``: no idle timeout); the request projection and the
        one-off requests share ``base_stream_options``."""
        self.base_stream_options.idle_timeout_ms = max(0, timeout_ms)

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

    async def complete(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessage:
        """One non-streaming request with the session's credentials and headers (summaries)."""
        return await self.request.complete(model, context, options)

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

    def abort_branch_summary(self) -> None:
        self.navigator.abort()

    def get_fork_messages(self) -> list[dict[str, str]]:
        return views.fork_messages(self.session_manager)

    def get_tree(self) -> list[dict[str, Any]]:
        return views.tree_dicts(self.session_manager.get_tree())

    def get_entries(self, since: str | None = None) -> dict[str, Any]:
        return views.entries_since(self.session_manager, since)

    async def rehearse_prompt(self, text: str) -> AssistantMessage:
        """Send the first request a plain prompt of ``text`` would send now, without running it:
        nothing is added to the session and no event is emitted. A host that wants only the
        request's bytes catches it at the transport (``pi_harness.early_exchange.rehearse``)."""
        return await self._state.agent.rehearse_request([user_message(text)])

    # -- the end ---------------------------------------------------------------------------------

    def _session_stream(
        self, model: Model, context: Context, options: SimpleStreamOptions
    ) -> MaybeAwaitable[AssistantMessageEventStream]:
        return self.warming(model, context, options)

    async def dispose(self, *, close_session_manager: bool = True) -> None:
        """Stop everything, emit ``session_shutdown`` (once), make extension contexts stale."""
        await self.disposal.dispose(close_session_manager=close_session_manager)


def _disconnect(disconnect_agent: Callable[[], None], warmer: CacheWarmer) -> None:
    """Disposal: unhook the agent and stop warming (a pending refresh would outlive the session)."""
    warmer.cancel()
    disconnect_agent()


__all__ = ["AgentSession"]
