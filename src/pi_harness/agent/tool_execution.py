"""Executing the tool calls of one assistant message: find, prepare, validate, hook, run, report.

Per call: *prepare* (find the tool, ``prepare_arguments``, JSON-Schema validation with coercion,
``before_tool_call``) then *execute* (``execute``, ``after_tool_call``). Nothing here raises for
a tool failure: every exception becomes an ``isError`` result ``{content:[text], details:{}}``.

A batch is parallel unless one of its tools declares ``execution_mode="sequential"``:

* parallel: start + prepare each call in source order (immediate outcomes end at once), then run
  the runnable calls concurrently; ``tool_execution_end`` follows completion order, the result
  messages follow source order after the whole batch;
* sequential: start → prepare → execute → end → result message, call by call.

Tools run as tasks whose events (streamed updates, their end) go through one queue that the
batch drains, so listeners always receive events one at a time.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pi_harness.agent.types import (
    AfterToolCallContext,
    AfterToolCallHook,
    AgentContext,
    AgentEvent,
    AgentMessage,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallHook,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.types import AssistantMessage, ToolCall, ToolResultMessage
from pi_harness.ai.validation import validate_tool_arguments

ABORTED_TEXT = "Operation aborted"
BLOCKED_TEXT = "Tool execution was blocked"

Emit = Callable[[AgentEvent], Awaitable[None]]


def not_found_text(name: str) -> str:
    return f"Tool {name} not found"


def length_guard_text(name: str) -> str:
    return (
        f'Tool call "{name}" was not executed: the response hit the output token limit, '
        "so its arguments may be truncated. Re-issue the tool call with complete arguments."
    )


def error_result(text: str) -> AgentToolResult:
    return {"content": [{"type": "text", "text": text}], "details": {}}


def error_text(error: BaseException) -> str:
    text = str(error)
    return text if text else type(error).__name__


def tool_result_message(
    tool_call: ToolCall, result: AgentToolResult, is_error: bool, duration_ms: int | None = None
) -> ToolResultMessage:
    """The transcript message (``structuredContent``/``terminate`` stay in the events).

    Keys are in the order sessions store them: ``details``, when the tool gave some, before
    ``isError``; ``usage`` last. ``durationMs`` only when the tool's ``execute`` ran.
    """
    call_id, name, content = tool_call["id"], tool_call["name"], list(result.get("content") or [])
    timestamp = int(time.time() * 1000)
    message: ToolResultMessage
    # One literal per shape: TypedDicts keep insertion order and have no typed way to insert.
    if "details" in result and duration_ms is not None:
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "details": result["details"],
            "isError": is_error,
            "durationMs": duration_ms,
            "timestamp": timestamp,
        }
    elif "details" in result:
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "details": result["details"],
            "isError": is_error,
            "timestamp": timestamp,
        }
    elif duration_ms is not None:
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "isError": is_error,
            "durationMs": duration_ms,
            "timestamp": timestamp,
        }
    else:
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "isError": is_error,
            "timestamp": timestamp,
        }
    if "usage" in result:
        message["usage"] = result["usage"]
    if "nestedCalls" in result:
        # A session's record of the calls the tool made (``ctx.execute_tool``); never sent to a model.
        message["nestedCalls"] = result["nestedCalls"]
    return message


@dataclass
class ToolEnvironment:
    """What a batch needs from the running loop."""

    context: AgentContext
    assistant_message: AssistantMessage
    signal: AbortSignal
    run_id: str
    emit: Emit
    # Emits ``message_start``/``message_end`` for a result and appends it to the transcript.
    deliver: Callable[[AgentMessage], Awaitable[None]]
    before_tool_call: BeforeToolCallHook | None = None
    after_tool_call: AfterToolCallHook | None = None
    # Set for nested calls (``ctx.execute_tool``): stamped on their events as ``parentToolCallId``.
    parent_tool_call_id: str | None = None


@dataclass
class BatchOutcome:
    results: list[ToolResultMessage]
    # Every result of the batch asked to stop (``terminate: true``): no automatic continuation.
    terminated: bool


class _Call:
    __slots__ = ("args", "duration_ms", "is_error", "message", "result", "tool", "tool_call")

    def __init__(self, tool_call: ToolCall, tool: AgentTool | None) -> None:
        self.tool_call = tool_call
        self.tool = tool
        self.args: JsonObject = {}
        self.result: AgentToolResult | None = None
        self.is_error = False
        # How long ``execute`` took; ``None`` when the call never reached it.
        self.duration_ms: int | None = None
        self.message: ToolResultMessage | None = None

    def fail(self, text: str) -> None:
        self.result = error_result(text)
        self.is_error = True

    async def deliver(self, env: ToolEnvironment) -> None:
        assert self.result is not None
        self.message = tool_result_message(self.tool_call, self.result, self.is_error, self.duration_ms)
        await env.deliver(self.message)


def _find_tool(tools: list[AgentTool], name: str) -> AgentTool | None:
    for tool in tools:
        if tool.name == name:
            return tool
    return None


# --- events -------------------------------------------------------------------------------------


async def _emit_start(env: ToolEnvironment, call: _Call) -> None:
    tool_call = call.tool_call
    event: ToolExecutionStartEvent = {
        "type": "tool_execution_start",
        "toolCallId": tool_call["id"],
        "toolName": tool_call["name"],
        "args": tool_call["arguments"],
        "runId": env.run_id,
    }
    if env.parent_tool_call_id is not None:
        event["parentToolCallId"] = env.parent_tool_call_id
    await env.emit(event)


def _end_event(env: ToolEnvironment, call: _Call) -> ToolExecutionEndEvent:
    assert call.result is not None
    event: ToolExecutionEndEvent = {
        "type": "tool_execution_end",
        "toolCallId": call.tool_call["id"],
        "toolName": call.tool_call["name"],
        "result": call.result,
        "isError": call.is_error,
        "runId": env.run_id,
    }
    if call.duration_ms is not None:
        event["durationMs"] = call.duration_ms
    if env.parent_tool_call_id is not None:
        event["parentToolCallId"] = env.parent_tool_call_id
    return event


class _EventQueue:
    """Events pushed by running tools (from sync ``on_update`` callbacks), drained by the batch.

    ``None`` marks the end of one tool's task.
    """

    __slots__ = ("_events", "_waiter")

    def __init__(self) -> None:
        self._events: deque[AgentEvent | None] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def push(self, event: AgentEvent | None) -> None:
        self._events.append(event)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> AgentEvent | None:
        while not self._events:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._events.popleft()


# --- the per-call pipeline ----------------------------------------------------------------------


async def _prepare(env: ToolEnvironment, call: _Call) -> None:
    """Steps 1-4: leaves ``call.result`` set for an immediate outcome, else ``call.args``."""
    tool = call.tool
    tool_call = call.tool_call
    if tool is None:
        call.fail(not_found_text(tool_call["name"]))
        return
    try:
        target: ToolCall = tool_call
        if tool.prepare_arguments is not None:
            raw = copy.deepcopy(tool_call.get("arguments") or {})
            target = {**tool_call, "arguments": tool.prepare_arguments(raw)}
        args = validate_tool_arguments(tool, target)
        if env.before_tool_call is not None:
            hook_context = BeforeToolCallContext(env.assistant_message, tool_call, args, env.context)
            verdict = await env.before_tool_call(hook_context, env.signal)
            if verdict and verdict.get("block"):
                call.fail(verdict.get("reason") or BLOCKED_TEXT)
                return
        call.args = args
    except Exception as error:
        call.fail(error_text(error))


def _elapsed_ms(started: float) -> int:
    return max(0, round((time.perf_counter() - started) * 1000))


async def _execute(env: ToolEnvironment, call: _Call, push: Callable[[AgentEvent], None]) -> None:
    """Steps 5-6: run the tool (updates go to ``push`` until it returns), then ``after_tool_call``."""
    tool = call.tool
    assert tool is not None
    tool_call = call.tool_call
    accepting_updates = True

    def on_update(partial: AgentToolResult) -> None:
        if not accepting_updates:
            return  # late updates, after execute returned or raised, are dropped
        event: ToolExecutionUpdateEvent = {
            "type": "tool_execution_update",
            "toolCallId": tool_call["id"],
            "toolName": tool_call["name"],
            "args": tool_call["arguments"],
            "partialResult": partial,
            "runId": env.run_id,
        }
        if env.parent_tool_call_id is not None:
            event["parentToolCallId"] = env.parent_tool_call_id
        push(event)

    result: AgentToolResult
    started = time.perf_counter()
    try:
        result = await tool.execute(tool_call["id"], call.args, env.signal, on_update)
        call.duration_ms = _elapsed_ms(started)
        if not isinstance(result, dict):
            raise TypeError(f"Tool {tool.name} returned {type(result).__name__} instead of a result")
        is_error = result.get("isError") is True
    except Exception as error:
        call.duration_ms = _elapsed_ms(started)
        result, is_error = error_result(error_text(error)), True
    finally:
        accepting_updates = False

    if env.after_tool_call is not None:
        try:
            after = AfterToolCallContext(env.assistant_message, tool_call, call.args, result, is_error, env.context)
            patch = await env.after_tool_call(after, env.signal)
            if patch:
                result = {**result}
                if "content" in patch:
                    result["content"] = patch["content"]
                if "details" in patch:
                    result["details"] = patch["details"]
                if "structuredContent" in patch:
                    result["structuredContent"] = patch["structuredContent"]
                if "isError" in patch:
                    is_error = bool(patch["isError"])
                    if "isError" in result:
                        result["isError"] = is_error
        except Exception as error:
            result, is_error = error_result(error_text(error)), True
    call.result = result
    call.is_error = is_error


async def _run_alone(env: ToolEnvironment, call: _Call) -> None:
    """Execute one prepared call in this task (the usual batch: no task to start and wait for);
    its updates, if it streams any, are emitted by a task started at the first of them."""
    queue: _EventQueue | None = None
    drainer: asyncio.Task[None] | None = None

    def push(event: AgentEvent | None) -> None:
        nonlocal queue, drainer
        if queue is None:
            queue = _EventQueue()
            drainer = asyncio.get_running_loop().create_task(_drain(env, queue))
        queue.push(event)

    try:
        await _execute(env, call, push)
    finally:
        if queue is not None and drainer is not None:
            queue.push(None)
            try:
                await drainer
            finally:
                if not drainer.done():
                    drainer.cancel()
    await env.emit(_end_event(env, call))


async def _drain(env: ToolEnvironment, queue: _EventQueue) -> None:
    while (event := await queue.get()) is not None:
        await env.emit(event)


async def _run_concurrently(env: ToolEnvironment, calls: list[_Call]) -> None:
    """Execute prepared calls as tasks; emit their updates and ends as they happen."""
    if not calls:
        return
    if len(calls) == 1:
        await _run_alone(env, calls[0])
        return
    queue = _EventQueue()

    async def run(call: _Call) -> None:
        try:
            await _execute(env, call, queue.push)
            queue.push(_end_event(env, call))
        finally:
            queue.push(None)

    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(run(call)) for call in calls]
    try:
        remaining = len(tasks)
        while remaining:
            event = await queue.get()
            if event is None:
                remaining -= 1
            else:
                await env.emit(event)
    finally:
        unfinished = [task for task in tasks if not task.done()]
        for task in unfinished:
            task.cancel()
        if unfinished:
            await asyncio.gather(*unfinished, return_exceptions=True)


# --- batches ------------------------------------------------------------------------------------


async def _run_parallel(env: ToolEnvironment, calls: list[_Call]) -> list[_Call]:
    prepared: list[_Call] = []
    runnable: list[_Call] = []
    for call in calls:
        await _emit_start(env, call)
        await _prepare(env, call)
        prepared.append(call)
        if call.result is not None:
            await env.emit(_end_event(env, call))
        else:
            runnable.append(call)
        if env.signal.aborted:
            break  # later calls get no events and no result
    if env.signal.aborted:
        for call in runnable:
            call.fail(ABORTED_TEXT)
            await env.emit(_end_event(env, call))
    else:
        await _run_concurrently(env, runnable)
    for call in prepared:
        await call.deliver(env)
    return prepared


async def _run_one(env: ToolEnvironment, call: _Call) -> None:
    """Start and prepare one call, then execute it unless preparing settled it; its end follows."""
    await _emit_start(env, call)
    await _prepare(env, call)
    if call.result is None:
        await _run_concurrently(env, [call])
    else:
        await env.emit(_end_event(env, call))


async def _run_sequential(env: ToolEnvironment, calls: list[_Call]) -> list[_Call]:
    finished: list[_Call] = []
    for call in calls:
        await _run_one(env, call)
        await call.deliver(env)
        finished.append(call)
        if env.signal.aborted:
            break  # later calls get no events and no result
    return finished


async def execute_tool_batch(env: ToolEnvironment, tool_calls: list[ToolCall]) -> BatchOutcome:
    """Run every call of one assistant message; result messages are delivered through ``env``."""
    tools = env.context.tools
    calls = [_Call(tool_call, _find_tool(tools, tool_call["name"])) for tool_call in tool_calls]
    sequential = any(call.tool is not None and call.tool.execution_mode == "sequential" for call in calls)
    finished = await (_run_sequential if sequential else _run_parallel)(env, calls)
    results = [c.message for c in finished if c.message is not None]
    terminated = bool(finished) and all(c.result is not None and c.result.get("terminate") is True for c in finished)
    return BatchOutcome(results=results, terminated=terminated)


async def skip_truncated_calls(env: ToolEnvironment, tool_calls: list[ToolCall]) -> list[ToolResultMessage]:
    """The length-stop guard (6.6): no call runs, no hook runs; each gets an error result."""
    results: list[ToolResultMessage] = []
    for tool_call in tool_calls:
        call = _Call(tool_call, None)
        await _emit_start(env, call)
        call.fail(length_guard_text(tool_call["name"]))
        await env.emit(_end_event(env, call))
        await call.deliver(env)
        assert call.message is not None
        results.append(call.message)
    return results


async def execute_tool_call(env: ToolEnvironment, tool_call: ToolCall) -> tuple[AgentToolResult, bool]:
    """One call through the whole pipeline, without a transcript message: for nested calls.

    Emits ``tool_execution_start``/``update``/``end`` (stamped with ``env.parent_tool_call_id``)
    and returns ``(result, is_error)``; ``env.deliver`` is not used.
    """
    call = _Call(tool_call, _find_tool(env.context.tools, tool_call["name"]))
    await _run_one(env, call)
    assert call.result is not None
    return call.result, call.is_error
