"""What every model request of a session carries (agent-loop.md 4.2 and 8.7, sessions.md 7).

Before each request the loop's context is replaced by the session projection: the messages of
the active branch (compaction and ``context_edit`` applied) and the prompt recorded by the
branch's ``system`` messages, with the session's active tools. Then the extension request chain
runs: ``context`` (messages), ``context_with_system`` (messages and prompt),
``before_provider_headers`` (merged over the model's resolved headers), ``before_provider_request``
(the provider payload) and ``after_provider_response`` (status and headers). A failing handler is
reported and the previous value kept.

Credentials and header values are resolved per request (``!command`` values run each time, in a
worker thread so the event loop keeps running).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_harness.agent.hooks import PreparedRequest, PrepareRequestContext, resolve
from pi_harness.agent.types import AgentContext, AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import AssistantMessage, Context, Message, Model
from pi_harness.coding.messages import convert_to_llm

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession


class RequestProjection:
    def __init__(self, session: AgentSession) -> None:
        self._session = session

    def convert(self, messages: list[AgentMessage]) -> list[Message]:
        block = self._session.settings.get("images.blockImages") is True
        return convert_to_llm(messages, block_images=block)

    async def get_api_key(self, provider: str) -> str | None:
        return await asyncio.to_thread(self._session.model_runtime.get_api_key, provider)

    async def prepare(self, request: PrepareRequestContext, signal: AbortSignal) -> PreparedRequest:
        session = self._session
        extensions = session.extensions
        projection = session.session_manager.build_session_projection()
        messages: list[AgentMessage] = list(projection.messages)
        system_prompt = session.prompt_state.request_prompt(projection.system)
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
        await self._prepare_headers(request.model)
        return PreparedRequest(context=AgentContext(system_prompt, messages, session.tool_registry.active_tools()))

    async def _prepare_headers(self, model: Model) -> None:
        session = self._session
        headers = await asyncio.to_thread(session.model_runtime.get_request_headers, model)
        extensions = session.extensions
        if extensions.has_handlers("before_provider_headers"):
            result = await extensions.emit_transform(
                "before_provider_headers",
                {"headers": dict(headers), "model": model},
                ("headers",),
                bare_result_key="headers",
            )
            if isinstance(result.get("headers"), Mapping):
                headers = {str(k): str(v) for k, v in result["headers"].items() if v is not None}
        options = session.agent.options
        base = session.base_stream_options
        options.stream_options = dataclasses.replace(base, headers={**(base.headers or {}), **headers} or None)

    async def complete(
        self, model: Model, context: Context, options: SimpleStreamOptions | None = None
    ) -> AssistantMessage:
        """One request outside the loop (summaries) with the session's credentials and headers."""
        session = self._session
        opts = options or SimpleStreamOptions()
        key = opts.api_key or await self.get_api_key(model["provider"])
        headers = await asyncio.to_thread(session.model_runtime.get_request_headers, model)
        base = session.base_stream_options
        opts = dataclasses.replace(
            opts,
            api_key=key,
            headers={**headers, **(opts.headers or {})} or None,
            idle_timeout_ms=base.idle_timeout_ms,
            max_retries=base.max_retries,
        )
        stream = await resolve(session.stream_fn(model, context, opts))
        return await stream.result()

    async def on_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
        extensions = self._session.extensions
        if not extensions.has_handlers("before_provider_request"):
            return None
        result = await extensions.emit_transform(
            "before_provider_request", {"payload": payload, "model": model}, ("payload",), bare_result_key="payload"
        )
        replaced = result.get("payload")
        return replaced if isinstance(replaced, dict) and replaced is not payload else None

    async def on_response(self, status: int, headers: Mapping[str, str]) -> None:
        session = self._session
        if session.extensions.has_handlers("after_provider_response"):
            await session.extensions.emit(
                "after_provider_response", {"status": status, "headers": dict(headers), "model": session.model}
            )


__all__ = ["RequestProjection"]
