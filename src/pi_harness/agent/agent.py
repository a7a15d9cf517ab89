"""``Agent``: the stateful wrapper around the loop.

One run at a time; each run gets a fresh abort controller and a fresh ``run_id`` carried by every
event (``runId``). Events update ``agent.state`` first, then go to the listeners, which are
awaited in order. A listener must not await ``wait_for_idle()`` or start a run: the run it
listens to is still in progress.

When a non-tool hook or the stream function raises, the run ends with a synthesised error
assistant message (``message_start``/``message_end``/``turn_end``/``agent_end``), ``state.error``
is set, and ``prompt``/``continue_`` return normally: a failed run is data, not an exception.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

from pi_harness.agent.hooks import (
    ConvertToLlm,
    DeclareToolChangesHook,
    FinishTurnHook,
    GetApiKey,
    PrepareNextTurnHook,
    PrepareRequestHook,
    TransformContext,
)
from pi_harness.agent.listeners import ListenerRegistry, agent_error_report
from pi_harness.agent.loop import AgentLoop, LoopConfig
from pi_harness.agent.options import AgentOptions, QueueMode, Transport
from pi_harness.agent.queues import MessageQueue
from pi_harness.agent.request_plan import rehearse_request
from pi_harness.agent.state import AgentState
from pi_harness.agent.tool_execution import error_text
from pi_harness.agent.types import (
    AfterToolCallHook,
    AgentContext,
    AgentEvent,
    AgentListener,
    AgentMessage,
    AgentTool,
    BeforeToolCallHook,
)
from pi_harness.ai.abort import AbortController, AbortSignal
from pi_harness.ai.options import PayloadHook, ResponseHook, StreamEventHook
from pi_harness.ai.types import (
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    ThinkingLevel,
    UserMessage,
    empty_usage,
)

ALREADY_PROCESSING_PROMPT = (
    "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
)
ALREADY_PROCESSING_CONTINUE = "Agent is already processing. Wait for completion before continuing."
NO_MODEL = "No model configured"
NO_MESSAGES_TO_CONTINUE = "No messages to continue from"
CANNOT_CONTINUE_FROM_ASSISTANT = "Cannot continue from message role: assistant"
CANNOT_RESET_WHILE_RUNNING = "Cannot reset while the agent is processing. Call abort() and wait_for_idle() first."


class AgentError(RuntimeError):
    """A method was called in a state that does not allow it (a run already going, nothing to continue)."""


def now_ms() -> int:
    return int(time.time() * 1000)


def user_message(text: str, images: list[ImageContent] | None = None) -> UserMessage:
    content: list[TextContent | ImageContent] = [{"type": "text", "text": text}]
    content.extend(images or ())
    return {"role": "user", "content": content, "timestamp": now_ms()}


class Agent:
    def __init__(self, options: AgentOptions | None = None) -> None:
        self._options = options if options is not None else AgentOptions()
        initial = self._options.initial_state or {}
        self._state = AgentState(
            system_prompt=initial.get("system_prompt", ""),
            model=initial.get("model"),
            thinking_level=initial.get("thinking_level", "off"),
            tools=list(initial.get("tools", ())),
            messages=list(initial.get("messages", ())),
        )
        self._steering = MessageQueue(self._options.steering_mode)
        self._follow_up = MessageQueue(self._options.follow_up_mode)
        self._listeners: ListenerRegistry[AgentEvent] = ListenerRegistry(
            agent_error_report(lambda: self._options.on_listener_error)
        )
        self._active = False
        self._controller: AbortController | None = None
        self._idle: asyncio.Future[None] | None = None
        self._run_id: str | None = None

    # --- read access --------------------------------------------------------------------------------

    @property
    def state(self) -> AgentState:
        """The live state; change it through the setters."""
        return self._state

    @property
    def options(self) -> AgentOptions:
        """The live options; hooks and budgets may be changed between (hooks: during) runs."""
        return self._options

    @property
    def is_running(self) -> bool:
        return self._active

    @property
    def run_id(self) -> str | None:
        """The id of the current run (``runId`` of its events), ``None`` when idle."""
        return self._run_id

    # --- runs ---------------------------------------------------------------------------------------

    async def prompt(
        self, message: str | AgentMessage | list[AgentMessage], images: list[ImageContent] | None = None
    ) -> None:
        """Start a run with new input; returns when the run has ended."""
        if self._active:
            raise AgentError(ALREADY_PROCESSING_PROMPT)
        if self._state.model is None:
            raise AgentError(NO_MODEL)
        if isinstance(message, str):
            prompts: list[AgentMessage] = [user_message(message, images)]
        elif isinstance(message, list):
            prompts = list(message)
        else:
            prompts = [message]
        await self._run(prompts)

    async def continue_(self) -> None:
        """Resume from the current transcript without new input (retries, queued messages)."""
        if self._active:
            raise AgentError(ALREADY_PROCESSING_CONTINUE)
        messages = self._state.messages
        if not messages:
            raise AgentError(NO_MESSAGES_TO_CONTINUE)
        if self._state.model is None:
            raise AgentError(NO_MODEL)
        if messages[-1].get("role") == "assistant":
            steering = self._steering.poll()
            if steering:
                await self._run(steering, skip_initial_steering_poll=True)
                return
            follow_up = self._follow_up.poll()
            if follow_up:
                await self._run(follow_up)
                return
            raise AgentError(CANNOT_CONTINUE_FROM_ASSISTANT)
        await self._run(None)

    def steer(self, message: str | AgentMessage) -> None:
        """Queue a message for after the current tool batch, before the next model call."""
        self._steering.push(user_message(message) if isinstance(message, str) else message)

    def follow_up(self, message: str | AgentMessage) -> None:
        """Queue a message for when the agent would otherwise stop."""
        self._follow_up.push(user_message(message) if isinstance(message, str) else message)

    @property
    def signal(self) -> AbortSignal | None:
        """The running loop's abort signal; ``None`` while idle."""
        return self._controller.signal if self._controller is not None else None

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    async def wait_for_idle(self) -> None:
        if self._idle is not None and not self._idle.done():
            await asyncio.shield(self._idle)

    def reset(self) -> None:
        if self._active:
            raise AgentError(CANNOT_RESET_WHILE_RUNNING)
        state = self._state
        state.messages = []
        state.is_streaming = False
        state.stream_message = None
        state.pending_tool_calls = set()
        state.error = None
        self.clear_all_queues()

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        return self._listeners.subscribe(listener)

    async def _run(self, prompts: list[AgentMessage] | None, *, skip_initial_steering_poll: bool = False) -> None:
        state = self._state
        assert state.model is not None
        # Everything up to the first await runs at once, so a second call sees ``_active``.
        self._active = True
        controller = self._controller = AbortController()
        idle = self._idle = asyncio.get_running_loop().create_future()
        run_id = self._run_id = uuid.uuid4().hex
        state.is_streaming = True
        state.stream_message = None
        state.error = None
        context = AgentContext(state.system_prompt, list(state.messages), list(state.tools))
        config = LoopConfig(
            model=state.model,
            thinking_level=state.thinking_level,
            options=self._options,
            steering=self._steering,
            follow_up=self._follow_up,
        )
        loop = AgentLoop(context, config, self._process_event, controller.signal, run_id)
        try:
            try:
                if prompts is None:
                    await loop.run_continue()
                else:
                    await loop.run(prompts, skip_initial_steering_poll=skip_initial_steering_poll)
            except Exception as error:
                await self._fail_run(loop, error)
            except asyncio.CancelledError:
                # The caller gave up on the run: stop the provider request and the tools too.
                controller.abort()
                raise
        finally:
            state.is_streaming = False
            state.stream_message = None
            state.pending_tool_calls.clear()
            self._controller = None
            self._run_id = None
            self._active = False
            if not idle.done():
                idle.set_result(None)

    async def _fail_run(self, loop: AgentLoop, error: Exception) -> None:
        """Section 2.4: end the run with an error assistant message carrying ``error``'s text."""
        text = error_text(error)
        model = loop.model
        message: AssistantMessage = {
            "role": "assistant",
            "content": [{"type": "text", "text": ""}],
            "api": model["api"],
            "provider": model["provider"],
            "model": model["id"],
            "usage": empty_usage(),
            "stopReason": "aborted" if loop.signal.aborted else "error",
            "errorMessage": text,
            "timestamp": now_ms(),
            "thinkingLevel": loop.thinking_level,
        }
        run_id = loop.run_id
        if not loop.started:
            await self._process_event({"type": "agent_start", "runId": run_id})
        await self._process_event({"type": "message_start", "message": message.copy(), "runId": run_id})
        await self._process_event({"type": "message_end", "message": message, "runId": run_id})
        self._state.error = text
        await self._process_event({"type": "turn_end", "message": message, "toolResults": [], "runId": run_id})
        await self._process_event({"type": "agent_end", "messages": [message], "runId": run_id})

    async def _process_event(self, event: AgentEvent) -> None:
        self._state.apply(event)
        await self._listeners.deliver(event)

    # --- state setters ------------------------------------------------------------------------------

    async def rehearse_request(self, messages: list[AgentMessage]) -> AssistantMessage:
        """Send the first request a prompt of ``messages`` would send now, outside any run: no
        event, no state change (``request_plan.rehearse_request``); its final message is returned."""
        state = self._state
        if self._active:
            raise RuntimeError(ALREADY_PROCESSING_CONTINUE)
        if state.model is None:
            raise RuntimeError(NO_MODEL)
        context = AgentContext(state.system_prompt, list(state.messages), list(state.tools))
        signal = AbortController().signal
        return await rehearse_request(self._options, context, state.model, state.thinking_level, messages, signal)

    def set_system_prompt(self, prompt: str) -> None:
        self._state.system_prompt = prompt

    def set_model(self, model: Model | None) -> None:
        self._state.model = model

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self._state.thinking_level = level

    def set_tools(self, tools: list[AgentTool]) -> None:
        self._state.tools = list(tools)

    def replace_messages(self, messages: list[AgentMessage]) -> None:
        self._state.messages = list(messages)

    def append_message(self, message: AgentMessage) -> None:
        self._state.messages.append(message)

    # --- queues -------------------------------------------------------------------------------------

    def set_steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = self._options.steering_mode = mode

    def get_steering_mode(self) -> QueueMode:
        return self._steering.mode

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = self._options.follow_up_mode = mode

    def get_follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    def clear_steering_queue(self) -> list[AgentMessage]:
        return self._steering.clear()

    def clear_follow_up_queue(self) -> list[AgentMessage]:
        return self._follow_up.clear()

    def clear_all_queues(self) -> None:
        self._steering.clear()
        self._follow_up.clear()

    def has_queued_messages(self) -> bool:
        return len(self._steering) > 0 or len(self._follow_up) > 0

    def get_steering_messages(self) -> list[AgentMessage]:
        return self._steering.snapshot()

    def get_follow_up_messages(self) -> list[AgentMessage]:
        return self._follow_up.snapshot()

    # --- request options and hooks ------------------------------------------------------------------

    @property
    def session_id(self) -> str | None:
        return self._options.session_id

    @session_id.setter
    def session_id(self, value: str | None) -> None:
        self._options.session_id = value

    def set_transport(self, transport: Transport) -> None:
        self._options.transport = transport

    def set_convert_to_llm(self, hook: ConvertToLlm) -> None:
        self._options.convert_to_llm = hook

    def set_get_api_key(self, hook: GetApiKey | None) -> None:
        self._options.get_api_key = hook

    def set_on_payload(self, hook: PayloadHook | None) -> None:
        self._options.on_payload = hook

    def set_on_response(self, hook: ResponseHook | None) -> None:
        self._options.on_response = hook

    def set_on_stream_event(self, hook: StreamEventHook | None) -> None:
        self._options.on_stream_event = hook

    def set_transform_context(self, hook: TransformContext | None) -> None:
        self._options.transform_context = hook

    def set_before_tool_call(self, hook: BeforeToolCallHook | None) -> None:
        self._options.before_tool_call = hook

    def set_after_tool_call(self, hook: AfterToolCallHook | None) -> None:
        self._options.after_tool_call = hook

    def set_prepare_request(self, hook: PrepareRequestHook | None) -> None:
        self._options.prepare_request = hook

    def set_finish_turn(self, hook: FinishTurnHook | None) -> None:
        self._options.finish_turn = hook

    def set_prepare_next_turn(self, hook: PrepareNextTurnHook | None) -> None:
        self._options.prepare_next_turn = hook

    def set_declare_tool_changes(self, hook: DeclareToolChangesHook | None) -> None:
        self._options.declare_tool_changes = hook
