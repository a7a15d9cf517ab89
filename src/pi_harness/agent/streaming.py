"""Streaming one assistant response into the context.

The request's inputs (``request_plan.request_inputs``) → ``stream_fn``; the partial
message is pushed into the context at ``start`` and replaced on every content event, and the
final message (stamped with the thinking level used) replaces it at the end.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pi_harness.agent.hooks import resolve
from pi_harness.agent.request_plan import RequestPlan, request_inputs
from pi_harness.agent.types import AgentEvent
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import AssistantMessage, empty_usage

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


async def stream_assistant_response(
    *,
    plan: RequestPlan,
    signal: AbortSignal,
    emit: Emit,
    run_id: str,
) -> AssistantMessage:
    """Stream one response, emitting ``message_start``/``message_update``/``message_end``.

    Exceptions of the hooks and of ``stream_fn`` propagate (the ``Agent`` handles them); a
    conforming stream never raises, it ends with an ``error``/``aborted`` message instead.
    """
    llm_context, request_options = await request_inputs(plan, signal)
    stream = await resolve(plan.options.stream_fn(plan.model, llm_context, request_options))

    transcript = plan.context.messages
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
    final["thinkingLevel"] = plan.thinking_level
    if partial is not None:
        transcript[-1] = final
    else:
        transcript.append(final)
        # With no partial (a request that failed before streaming) the final message opens
        # the message as it is: its stop reason, error and timing are known already.
        await emit({"type": "message_start", "message": final.copy(), "runId": run_id})
    await emit({"type": "message_end", "message": final, "runId": run_id})
    return final
