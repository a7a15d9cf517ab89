"""What every model request of a session carries.

Before each request the loop's context is replaced by the session projection: the messages of
the active branch (compaction and ``context_edit`` applied) and the prompt recorded by the
branch's ``system`` messages, with the session's active tools (see sessions.md). Then the
extension request chain runs: ``context`` (messages), ``context_with_system`` (messages and
prompt), ``before_provider_headers`` (merged over the model's resolved headers),
``before_provider_request`` (the provider payload), ``provider_stream_event`` (each event of the
response, for the requests sent while a handler is registered) and ``after_provider_response``
(status and headers). A failing handler is reported and the previous value kept.

Credentials and header values are resolved per request (``!command`` values run each time, in a
worker thread so the event loop keeps running; values that cannot block resolve on the loop).
The headers travel in the request options the ``prepare_request`` hook returns, so the agent's
own options never change.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import cast

from pi_harness.agent.copy_with import copy_with
from pi_harness.agent.hooks import PreparedRequest, PrepareRequestContext, StreamFn, resolve
from pi_harness.agent.types import AgentContext, AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.append_memo import AppendMemo, Lineage, issue, lineage_of
from pi_harness.ai.attribution import attribution_enabled, attribution_headers
from pi_harness.ai.jsonutil import dumps, loads
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Message, Model
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.agent_session.tool_registry import ToolRegistry
from pi_harness.coding.messages import convert_to_llm
from pi_harness.coding.virtual_models import (
    VIRTUAL_MODEL_STATE_ENTRY,
    RoutedModel,
    RouteReason,
    branch_state,
    is_user_turn,
    is_virtual_model,
)


class RequestProjection:
    def __init__(
        self,
        state: SessionState,
        *,
        prompt: SystemPromptState,
        tools: ToolRegistry,
        base_options: SimpleStreamOptions,
        stream_fn: StreamFn,
    ) -> None:
        self._state = state
        # Compacts when the conversation exceeds a routed model's threshold (True: it compacted).
        self.before_routed: Callable[[Model], Awaitable[bool]] | None = None
        self._prompt = prompt
        self._tools = tools
        self._base = base_options
        self._stream_fn = stream_fn
        self._converted: AppendMemo[tuple[Lineage, list[Message]]] = AppendMemo()

    def convert(self, messages: list[AgentMessage]) -> list[Message]:
        """The agent messages as LLM messages; a request that extends the previous one converts
        only its new messages (``AppendMemo``), and the earlier ones stay the same objects, which
        the providers' conversion memos recognise. The list is issued (``AppendOnly``), so the
        passes after this one know without looking that it extends the previous request's."""
        block_images = self._state.settings.values.images.block_images
        start, state = self._converted.resume(messages, block_images)
        if state is None:
            start, state = 0, (Lineage(), [])
        lineage, done = state
        done += convert_to_llm(messages[start:], block_images=block_images)
        # The loop appends to ``messages`` (its context) while the response streams: the memo
        # keeps a snapshot of its own, of the same lineage when the store issued the list.
        issued = lineage_of(messages)
        self._converted.save(issue(messages, issued) if issued is not None else messages, block_images, state)
        return issue(done, lineage)

    async def get_api_key(self, provider: str) -> str | None:
        runtime = self._state.model_runtime
        # A worker thread only when resolving may wait (a ``!command``, a token refresh): the
        # hand-off costs more than reading auth.json, on every request.
        resolved, key = runtime.api_key_now(provider)
        if resolved:
            return key
        return await asyncio.to_thread(runtime.get_api_key, provider)

    async def prepare(self, request: PrepareRequestContext, signal: AbortSignal) -> PreparedRequest:
        """The ``prepare_request`` hook: the projected context and this request's options."""
        extensions = self._state.extensions
        manager = self._state.manager
        messages: list[AgentMessage] = manager.build_session_context().messages  # a list of its own
        system_prompt = self._prompt.request_prompt(manager.get_system_state())
        if extensions.has_handlers("context"):
            result = await extensions.emit_transform("context", {"messages": copy.deepcopy(messages)}, ("messages",))
            if isinstance(result.get("messages"), list):
                messages = result["messages"]
        if extensions.has_handlers("context_with_system"):
            result = await extensions.emit_transform(
                "context_with_system",
                {"messages": messages, "systemPrompt": system_prompt},
                ("messages", "systemPrompt"),
            )
            if isinstance(result.get("messages"), list):
                messages = result["messages"]
            if isinstance(result.get("systemPrompt"), str):
                system_prompt = result["systemPrompt"]
        model, level = request.model, request.thinking_level
        failed, self._state.failed_response = self._state.failed_response, None
        if is_virtual_model(model):
            routed = await self._route(model, level, messages, failed, signal)
            model, level = routed.model, routed.thinking_level
            if self.before_routed is not None and await self.before_routed(model):
                # Compacted for the routed model's window: project again (the route stands).
                messages = manager.build_session_context().messages
        headers = await self._headers(model)
        base = self._base
        return PreparedRequest(
            context=AgentContext(system_prompt, messages, self._tools.declared_tools()),
            model=model if model is not request.model else None,
            thinking_level=level if model is not request.model else None,
            stream_options=copy_with(
                base,
                headers={**(base.headers or {}), **headers} or None,
                env=self._state.model_runtime.get_request_env(model["provider"]),
                # Only with a handler to show them to: the provider then parses every event twice.
                on_stream_event=(
                    self.on_stream_event
                    if extensions.has_handlers("provider_stream_event")
                    else base.on_stream_event
                ),
            ),
        )

    async def _route(
        self,
        model: Model,
        level: str,
        messages: list[AgentMessage],
        failed: AssistantMessage | None,
        signal: AbortSignal,
    ) -> RoutedModel:
        """Route a virtual selection; new router state is stored on the branch before sending."""
        state = self._state
        branch = state.manager.get_branch()
        stored = branch_state(branch, model["provider"], model["id"])
        llm_messages = self.convert(messages)
        reason: RouteReason = "retry" if failed is not None else "user" if is_user_turn(messages) else "continuation"
        routed = await state.model_runtime.resolve_model(
            model,
            list(llm_messages),
            reason=reason,
            thinking_level=level,
            state=stored,
            failed=failed,
            signal=signal,
        )
        if routed.state is not None and routed.state is not stored:
            data = {"provider": model["provider"], "modelId": model["id"], "state": routed.state}
            await state.events.announce_entry(state.manager.append_custom(VIRTUAL_MODEL_STATE_ENTRY, data))
        state.routed_model = routed.model
        return routed

    async def _resolved_headers(self, model: Model) -> dict[str, str]:
        runtime = self._state.model_runtime
        # A thread only when resolving may block (a ``!command`` value, reading a key): a hand-off
        # to a worker costs a good part of a millisecond on every request.
        if runtime.request_headers_need_work(model):
            return await asyncio.to_thread(runtime.get_request_headers, model)
        return {}

    async def _headers(self, model: Model) -> dict[str, str]:
        """The model's resolved headers, after the ``before_provider_headers`` handlers."""
        headers = await self._resolved_headers(model)
        extensions = self._state.extensions
        if extensions.has_handlers("before_provider_headers"):
            result = await extensions.emit_transform(
                "before_provider_headers",
                {"headers": dict(headers), "model": model},
                ("headers",),
                bare_result_key="headers",
            )
            replaced = result.get("headers")
            if isinstance(replaced, Mapping):
                headers = {str(k): str(v) for k, v in replaced.items() if v is not None}
        return self._with_attribution(model, headers)

    def _with_attribution(self, model: Model, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` over the provider attribution headers, while ``enableInstallTelemetry``
        is on (read per request: /settings changes it live). A configured header of the same
        name, in any case, wins."""
        if not attribution_enabled(self._state.settings.values.enable_install_telemetry, os.environ):
            return headers
        extra = attribution_headers(model["provider"], model.get("baseUrl", ""))
        if not extra:
            return headers
        taken = {name.lower() for name in headers}
        return {**{k: v for k, v in extra.items() if k.lower() not in taken}, **headers}

    async def complete(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessage:
        """One request outside the loop (summaries) with the session's credentials and headers."""
        opts = options or SimpleStreamOptions()
        if is_virtual_model(model):
            # A summary sizes its input and output from the model it is routed to.
            messages = self._state.manager.build_session_context().messages
            routed = await self._state.model_runtime.resolve_model(
                model, list(self.convert(messages)), reason="direct", thinking_level=self._state.thinking_level
            )
            model = routed.model
        key = opts.api_key or await self.get_api_key(model["provider"])
        headers = self._with_attribution(model, await self._resolved_headers(model))
        base = self._base
        opts = dataclasses.replace(
            opts,
            api_key=key,
            headers={**headers, **(opts.headers or {})} or None,
            env=opts.env or self._state.model_runtime.get_request_env(model["provider"]),
            idle_timeout_ms=base.idle_timeout_ms,
            websocket_connect_timeout_ms=base.websocket_connect_timeout_ms,
            timeout_ms=base.timeout_ms,
            max_retries=base.max_retries,
        )
        stream = await resolve(self._stream_fn(model, context, opts))
        return await stream.result()

    async def on_payload(self, payload: dict[str, object], model: Model) -> dict[str, object] | None:
        extensions = self._state.extensions
        if not extensions.has_handlers("before_provider_request"):
            return None
        # The handlers get a copy they may change in place: the payload's messages are shared
        # with later requests (the providers' conversion memos). A JSON round trip, in C, costs
        # a small part of the conversion it protects.
        own = cast(dict[str, object], loads(dumps(payload)))
        result = await extensions.emit_transform(
            "before_provider_request", {"payload": own, "model": model}, ("payload",), bare_result_key="payload"
        )
        replaced = result.get("payload")
        return replaced if isinstance(replaced, dict) else own

    async def on_stream_event(self, data: object, model: Model) -> None:
        extensions = self._state.extensions
        if extensions.has_handlers("provider_stream_event"):
            await extensions.emit(
                "provider_stream_event",
                {"data": data, "provider": model["provider"], "api": model["api"], "model": model["id"]},
            )

    async def on_response(self, status: int, headers: Mapping[str, str]) -> None:
        extensions = self._state.extensions
        if extensions.has_handlers("after_provider_response"):
            await extensions.emit(
                "after_provider_response", {"status": status, "headers": dict(headers), "model": self._state.model}
            )


__all__ = ["RequestProjection"]
