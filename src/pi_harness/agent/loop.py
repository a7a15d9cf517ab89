"""The agent loop: turns, tool calls, steering and follow-ups, as Pi 1.4.0 runs them.

Two nested loops. The inner one runs one *turn* per iteration: ``turn_start`` (except for the
first turn, whose ``turn_start`` the run start emits), pending messages into the context, one
streamed assistant response, its tool calls, ``finish_turn``, ``turn_end``, then a steering poll.
The outer one turns again only for queued follow-ups. The run stops when

1. a response ends with ``stopReason`` ``error`` or ``aborted`` (its tool calls are not run);
2. ``finish_turn`` answers ``{"action": "end"}``;
3. a turn has no tool calls (or only a terminated batch) and there is no steering, no
   follow-up and no explicit continuation;

and, beyond Pi, when a configured run budget is reached at a turn boundary (``budget``).

Exceptions of non-tool hooks and of ``stream_fn`` propagate to the caller (the ``Agent``
turns them into an error message). ``run_agent_loop``/``run_agent_loop_continue`` are the
functional entry points; ``AgentLoop`` is one run.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from pi_harness.agent.budget import RunBudget
from pi_harness.agent.hooks import (
    FinishTurnContext,
    PrepareNextTurnContext,
    resolve,
)
from pi_harness.agent.options import AgentOptions
from pi_harness.agent.queues import MessageSource
from pi_harness.agent.request_plan import plan_request
from pi_harness.agent.streaming import stream_assistant_response
from pi_harness.agent.tool_execution import ToolEnvironment, execute_tool_batch, skip_truncated_calls
from pi_harness.agent.types import AgentContext, AgentEndEvent, AgentEvent, AgentMessage, BudgetInfo
from pi_harness.ai.abort import AbortController, AbortSignal
from pi_harness.ai.types import AssistantMessage, Model, ThinkingLevel, ToolCall, ToolResultMessage

Emit = Callable[[AgentEvent], Awaitable[None]]
TurnDecision = Literal["default", "end", "continue"]

NO_MESSAGES_IN_CONTEXT = "Cannot continue: no messages in context"
CANNOT_CONTINUE_FROM_ASSISTANT = "Cannot continue from message role: assistant"


class AgentLoopError(RuntimeError):
    """A loop entry point was called with a context it cannot run from."""


class _EmptySource:
    def poll(self) -> list[AgentMessage]:
        return []

    def __len__(self) -> int:
        return 0


@dataclass
class LoopConfig:
    """One run's configuration: the model and level snapshot, the options and the queues."""

    model: Model
    thinking_level: ThinkingLevel = "off"
    options: AgentOptions = field(default_factory=AgentOptions)
    steering: MessageSource = field(default_factory=_EmptySource)
    follow_up: MessageSource = field(default_factory=_EmptySource)


class AgentLoop:
    """One low-level run: ``agent_start`` … ``agent_end``, every event stamped with ``run_id``."""

    def __init__(
        self,
        context: AgentContext,
        config: LoopConfig,
        emit: Emit,
        signal: AbortSignal | None = None,
        run_id: str | None = None,
    ) -> None:
        self.context = context
        self.config = config
        self.options = config.options
        self.emit = emit
        self.signal = signal if signal is not None else AbortController().signal
        self.run_id = run_id or uuid.uuid4().hex
        self.new_messages: list[AgentMessage] = []
        self.started = False  # ``agent_start`` was emitted
        self.model = config.model  # the model of the latest request
        self.thinking_level = config.thinking_level
        options = config.options
        self.budget = RunBudget(options.max_turns, options.max_total_tokens, options.max_cost)

    # --- entry points ---------------------------------------------------------------------------

    async def run(self, prompts: list[AgentMessage], *, skip_initial_steering_poll: bool = False) -> list[AgentMessage]:
        """Start with new input; returns every message the run added."""
        await self._begin()
        for message in prompts:
            await self._deliver(message)
        pending = [] if skip_initial_steering_poll else self.config.steering.poll()  # poll point A
        return await self._turns(pending)

    async def run_continue(self) -> list[AgentMessage]:
        """Resume from the context as it is (retries, queued messages)."""
        messages = self.context.messages
        if not messages:
            raise AgentLoopError(NO_MESSAGES_IN_CONTEXT)
        if messages[-1].get("role") == "assistant":
            raise AgentLoopError(CANNOT_CONTINUE_FROM_ASSISTANT)
        await self._begin()
        return await self._turns(self.config.steering.poll())  # poll point A

    # --- the double loop --------------------------------------------------------------------------

    async def _turns(self, pending: list[AgentMessage]) -> list[AgentMessage]:
        steering = self.config.steering
        steering_was_empty = not pending
        first = True
        explicit_continue = False
        while True:
            more = True
            while more or pending or explicit_continue:
                if not first:
                    injected = await self._prepare_next_turn()
                    if steering_was_empty:
                        polled = steering.poll()  # poll point C
                        steering_was_empty = not polled
                        pending = pending + polled
                    pending = injected + pending
                    await self._turn_start()
                first = False
                explicit_continue = False
                for message in pending:
                    await self._deliver(message)
                pending = []

                assistant = await self._stream_response()
                if assistant["stopReason"] in ("error", "aborted"):
                    await self._finish_turn(assistant, [])  # the decision is ignored
                    await self._turn_end(assistant, [])
                    return await self._end()

                calls: list[ToolCall] = [b for b in assistant["content"] if b["type"] == "toolCall"]
                results: list[ToolResultMessage] = []
                terminated = False
                if calls:
                    env = self._tool_environment(assistant)
                    if assistant["stopReason"] == "length":
                        results = await skip_truncated_calls(env, calls)
                    else:
                        outcome = await execute_tool_batch(env, calls)
                        results, terminated = outcome.results, outcome.terminated
                decision = await self._finish_turn(assistant, results)
                await self._turn_end(assistant, results)
                if decision == "end":
                    return await self._end()  # no steering or follow-up poll
                explicit_continue = decision == "continue"
                more = bool(calls) and not terminated
                budget = self._budget_reached(more or explicit_continue)
                if budget is not None:
                    return await self._end(budget)
                pending = steering.poll()  # poll point B
                steering_was_empty = not pending
            follow_up = self.config.follow_up.poll()
            if not follow_up:
                break
            pending = follow_up
        return await self._end()

    # --- steps ------------------------------------------------------------------------------------

    async def _begin(self) -> None:
        declared: list[AgentMessage] | None = None
        hook = self.options.declare_tool_changes
        if hook is not None:
            declared = await resolve(hook(self.context, self.signal))
        await self.emit({"type": "agent_start", "runId": self.run_id})
        self.started = True
        await self._turn_start()
        for message in declared or ():
            await self._deliver(message)

    async def _turn_start(self) -> None:
        self.budget.count_turn()
        await self.emit({"type": "turn_start", "runId": self.run_id})

    async def _turn_end(self, assistant: AssistantMessage, results: list[ToolResultMessage]) -> None:
        await self.emit({"type": "turn_end", "message": assistant, "toolResults": results, "runId": self.run_id})

    async def _end(self, budget: BudgetInfo | None = None) -> list[AgentMessage]:
        event: AgentEndEvent = {"type": "agent_end", "messages": self.new_messages, "runId": self.run_id}
        if budget is not None:
            await self.emit(
                {
                    "type": "budget_exceeded",
                    "limit": budget["limit"],
                    "value": budget["value"],
                    "used": budget["used"],
                    "runId": self.run_id,
                }
            )
            event["budgetExceeded"] = budget
        await self.emit(event)
        return self.new_messages

    async def _deliver(self, message: AgentMessage) -> None:
        """``message_start``/``message_end`` for a finished message, then append it."""
        await self.emit({"type": "message_start", "message": message, "runId": self.run_id})
        await self.emit({"type": "message_end", "message": message, "runId": self.run_id})
        self.context.messages.append(message)
        self.new_messages.append(message)

    async def _stream_response(self) -> AssistantMessage:
        config = self.config
        plan = await plan_request(
            self.options, self.context, config.model, config.thinking_level, self.budget.turns, self.signal
        )
        self.context = plan.context
        self.model, self.thinking_level = plan.model, plan.thinking_level
        message = await stream_assistant_response(plan=plan, signal=self.signal, emit=self.emit, run_id=self.run_id)
        self.new_messages.append(message)
        self.budget.count_response(message)
        return message

    def _tool_environment(self, assistant: AssistantMessage) -> ToolEnvironment:
        return ToolEnvironment(
            context=self.context,
            assistant_message=assistant,
            signal=self.signal,
            run_id=self.run_id,
            emit=self.emit,
            deliver=self._deliver,
            before_tool_call=self.options.before_tool_call,
            after_tool_call=self.options.after_tool_call,
        )

    async def _finish_turn(self, assistant: AssistantMessage, results: list[ToolResultMessage]) -> TurnDecision:
        hook = self.options.finish_turn
        if hook is None:
            return "default"
        turn = FinishTurnContext(assistant, results, self.context, self.budget.turns)
        verdict = await resolve(hook(turn, self.signal))
        action = verdict.get("action") if verdict else None
        return action if action in ("end", "continue") else "default"

    async def _prepare_next_turn(self) -> list[AgentMessage]:
        hook = self.options.prepare_next_turn
        if hook is None:
            return []
        upcoming = PrepareNextTurnContext(self.context, self.budget.turns + 1)
        injected = await resolve(hook(upcoming, self.signal))
        return list(injected) if injected else []

    def _budget_reached(self, loop_would_continue: bool) -> BudgetInfo | None:
        budget = self.budget
        if not budget.enabled:
            return None
        would_continue = loop_would_continue or len(self.config.steering) > 0 or len(self.config.follow_up) > 0
        return budget.reached() if would_continue else None


async def run_agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    *,
    run_id: str | None = None,
    skip_initial_steering_poll: bool = False,
) -> list[AgentMessage]:
    """Run with new input (``runAgentLoop``); ``context`` is extended in place."""
    loop = AgentLoop(context, config, emit, signal, run_id)
    return await loop.run(prompts, skip_initial_steering_poll=skip_initial_steering_poll)


async def run_agent_loop_continue(
    context: AgentContext,
    config: LoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    *,
    run_id: str | None = None,
) -> list[AgentMessage]:
    """Resume without new input (``runAgentLoopContinue``); validates the context first."""
    return await AgentLoop(context, config, emit, signal, run_id).run_continue()
