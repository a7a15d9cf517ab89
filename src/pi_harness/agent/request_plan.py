"""What one model request is made of, before it is streamed.

Two steps, shared by the loop's turns and by ``rehearse_request``:

1. ``plan_request``: the ``prepare_request`` hook may replace the context (a session projects its
   transcript), the model and thinking level (virtual-model routing) and the request options;
2. ``request_inputs``: ``transform_context`` → ``convert_to_llm`` → the tools' declarations, and
   the stream options (credentials resolved, the thinking level and session id filled in).

``rehearse_request`` runs both for a request that is not part of any run: what the next prompt
would send, with ``messages`` appended to the planned context. It emits no event and changes no
state; the request goes to the stream function like any other, so a host that only wants its
bytes catches it at the transport (``pi_harness.early_exchange.rehearse``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_harness.agent.copy_with import copy_with
from pi_harness.agent.hooks import PreparedRequest, PrepareRequestContext, resolve
from pi_harness.agent.options import AgentOptions
from pi_harness.agent.types import AgentContext, AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Model, ThinkingLevel


@dataclass
class RequestPlan:
    """One request after ``prepare_request``: ``context`` may be a new one for the rest of the run."""

    context: AgentContext
    model: Model
    thinking_level: ThinkingLevel
    options: AgentOptions


async def plan_request(
    options: AgentOptions,
    context: AgentContext,
    model: Model,
    thinking_level: ThinkingLevel,
    turn: int,
    signal: AbortSignal,
) -> RequestPlan:
    hook = options.prepare_request
    if hook is None:
        return RequestPlan(context, model, thinking_level, options)
    prepared = await resolve(hook(PrepareRequestContext(context, model, thinking_level, turn), signal))
    if isinstance(prepared, AgentContext):
        return RequestPlan(prepared, model, thinking_level, options)
    if isinstance(prepared, PreparedRequest):
        if prepared.stream_options is not None:
            # A copy for this request: the agent's own options stay as the host set them.
            options = copy_with(options, stream_options=prepared.stream_options)
        return RequestPlan(
            prepared.context or context,
            prepared.model or model,
            prepared.thinking_level or thinking_level,
            options,
        )
    return RequestPlan(context, model, thinking_level, options)


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


async def request_inputs(plan: RequestPlan, signal: AbortSignal) -> tuple[Context, SimpleStreamOptions]:
    """The LLM context and the stream options of ``plan``'s request."""
    options = plan.options
    context = plan.context
    messages = context.messages
    if options.transform_context is not None:
        messages = await resolve(options.transform_context(messages, signal))
    llm_context: Context = {
        "systemPrompt": context.system_prompt,
        "messages": await resolve(options.convert_to_llm(messages)),
        "tools": [tool.to_tool() for tool in context.tools],
    }
    return llm_context, await build_stream_options(options, plan.model, plan.thinking_level, signal)


async def rehearse_request(
    options: AgentOptions,
    context: AgentContext,
    model: Model,
    thinking_level: ThinkingLevel,
    messages: list[AgentMessage],
    signal: AbortSignal,
) -> AssistantMessage:
    """Send the request a next prompt of ``messages`` would send first, outside any run (see above);
    returns the stream's final message. Nothing is retried."""
    plan = await plan_request(options, context, model, thinking_level, 1, signal)
    planned = plan.context
    plan.context = AgentContext(planned.system_prompt, [*planned.messages, *messages], planned.tools)
    llm_context, stream_options = await request_inputs(plan, signal)
    stream = await resolve(plan.options.stream_fn(plan.model, llm_context, copy_with(stream_options, max_retries=0)))
    return await stream.result()


__all__ = ["RequestPlan", "build_stream_options", "plan_request", "rehearse_request", "request_inputs"]
