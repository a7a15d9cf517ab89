"""Streaming one assistant response into the context.

``transform_context`` → ``convert_to_llm`` → key resolution → ``stream_fn``; the partial
message is pushed into the context at ``start`` and replaced on every content event, and the
final message (stamped with the thinking level used) replaces it at the end.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pi_harness.agent.copy_with import copy_with
from pi_harness.agent.hooks import resolve
from pi_harness.agent.options import AgentOptions
from pi_harness.agent.types import AgentContext, AgentEvent
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Model, ThinkingLevel, empty_usage

Emit = Callable[[AgentEvent], Awaitable[None]]


def in_flight(partial: AssistantMessage) -> AssistantMessage:
    """The copy carried by ``message_start``/``message_update``: always ``stopReason: "pending"``.

    A fast provider may have finished the shared partial before the loop reads its first event;
    only ``message_end`` carries the final stop reason and the response's ``durationMs``.
    """
    snapshot = partial.copy()
    snapshot["stopReason"] = "pending"
    snapshot.pop("errorMessage", None)
    snapshot.pop("durationMs", None)
    return snapshot


def opened(partial: AssistantMessage) -> AssistantMessage:
    """The message as ``message_start`` carries it: as the provider opened it, before any chunk.

    ``start`` precedes every content event, but the shared partial may already be ahead of it
    (a fast server's whole answer can be read before the loop takes the first event), and a
    listener may encode the event only later: so nothing the stream filled in since (content,
    usage, response id, stop reason) is taken from it, as Pi's ``message_start`` shows.
    """
    return {
        "role": "assistant",
        "content": [],
        "api": partial["api"],
        "provider": partial["provider"],
        "model": partial["model"],
        "usage": empty_usage(),
        "stopReason": "pending",
        "timestamp": partial["timestamp"],
    }


async def build_stream_options(
    options: AgentOptions, model: Model, thinking_level: ThinkingLevel, signal: AbortSignal
) -> SimpleStreamOptions:
    """The request options: the template of ``options.stream_options`` plus the agent's settings."""
    api_key = None
    if options.get_api_key is not None:
        api_key = await resolve(options.get_api_key(model["provider"]))
    base = options.stream_options or SimpleStreamOptions()
    return copy_with(
        base,
        api_key=api_key or options.api_key or base.api_key,
        signal=signal,
        reasoning=None if thinking_level == "off" else thinking_level,
        session_id=options.session_id if options.session_id is not None else base.session_id,
        transport=options.transport,
        thinking_budgets=options.thinking_budgets if options.thinking_budgets is not None else base.thinking_budgets,
        max_retry_delay_ms=options.max_retry_delay_ms,
        on_payload=options.on_payload or base.on_payload,
        on_response=options.on_response or base.on_response,
        on_stream_event=options.on_stream_event or base.on_stream_event,
    )


async def stream_assistant_response(
    *,
    context: AgentContext,
    model: Model,
    thinking_level: ThinkingLevel,
    options: AgentOptions,
    signal: AbortSignal,
    emit: Emit,
    run_id: str,
) -> AssistantMessage:
    """Stream one response, emitting ``message_start``/``message_update``/``message_end``.

    Exceptions of the hooks and of ``stream_fn`` propagate (the ``Agent`` handles them); a
    conforming stream never raises, it ends with an ``error``/``aborted`` message instead.
    """
    messages = context.messages
    if options.transform_context is not None:
        messages = await resolve(options.transform_context(messages, signal))
    llm_context: Context = {
        "systemPrompt": context.system_prompt,
        "messages": await resolve(options.convert_to_llm(messages)),
        "tools": [tool.to_tool() for tool in context.tools],
    }
    request_options = await build_stream_options(options, model, thinking_level, signal)
    stream = await resolve(options.stream_fn(model, llm_context, request_options))

    transcript = context.messages
    partial: AssistantMessage | None = None
    async for event in stream:
        if event["type"] == "start":
            partial = event["partial"]
            transcript.append(partial)
            await emit({"type": "message_start", "message": opened(partial), "runId": run_id})
        elif event["type"] == "done" or event["type"] == "error":
            continue  # the final message is taken from ``result()``
        elif partial is not None:  # content events before ``start`` are dropped
            partial = event["partial"]
            transcript[-1] = partial
            await emit(
                {
                    "type": "message_update",
                    "message": in_flight(partial),
                    "assistantMessageEvent": event,
                    "runId": run_id,
                }
            )

    final = await stream.result()
    final["thinkingLevel"] = thinking_level
    if partial is not None:
        transcript[-1] = final
    else:
        transcript.append(final)
        # With no partial (a request that failed before streaming) the final message opens
        # the message as it is: its stop reason, error and timing are known already.
        await emit({"type": "message_start", "message": final.copy(), "runId": run_id})
    await emit({"type": "message_end", "message": final, "runId": run_id})
    return final
