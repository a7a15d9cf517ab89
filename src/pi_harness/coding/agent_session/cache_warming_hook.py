"""The session's side of prompt-cache warming (``pi_harness.coding.cache_warming``).

Every request the agent loop sends for this session (its ``sessionId``; summaries use their own
requests) starts warming the cache entry it writes. A run stays warm while the selected model is
the model the request went to (a virtual selection's routed requests are never warmed: the next
request may go elsewhere) and the transcript still begins with the messages of that request.
When the session settles, ``streaming`` warming stops and ``idle`` warming goes on.
Extensions may override each refresh with ``cache_warming_decision`` (``{action}``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pi_harness.agent.hooks import MaybeAwaitable, StreamFn, resolve
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, Model
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.cache_warming import CacheWarmer, Clock


class WarmingStream:
    """The agent's stream function: the session's own, starting a warming run per request."""

    def __init__(self, state: SessionState, stream_fn: StreamFn, clock: Clock | None = None) -> None:
        self._state = state
        self._stream_fn = stream_fn
        manager = state.manager
        self.warmer = CacheWarmer(
            send=self._send,
            get_branch=manager.get_branch,
            append_usage=manager.append_usage,
            get_mode=lambda: state.settings.values.cache_warming,
            decide=self._decide,
            on_warmed=state.events.announce_entry_soon,
            clock=clock,
        )
        state.events.subscribe(self._on_event, ("agent_settled",))

    def __call__(
        self, model: Model, context: Context, options: SimpleStreamOptions
    ) -> MaybeAwaitable[AssistantMessageEventStream]:
        state = self._state
        if options.session_id is not None and options.session_id == state.manager.get_session_id():
            self.warmer.start(model, context, options, lambda: self._is_current(model))
        return self._stream_fn(model, context, options)

    def _is_current(self, sent_to: Model) -> Callable[[], bool]:
        agent = self._state.agent
        sent = list(agent.state.messages)

        def is_current() -> bool:
            current = agent.state.model
            if current is None or current["provider"] != sent_to["provider"] or current["id"] != sent_to["id"]:
                return False
            messages = agent.state.messages
            return len(sent) <= len(messages) and all(a is b for a, b in zip(sent, messages, strict=False))

        return is_current

    async def _send(self, model: Model, context: Context, options: SimpleStreamOptions) -> AssistantMessage:
        # The options of the warmed request (its key and headers included), capped by the warmer.
        stream = await resolve(self._stream_fn(model, context, options))
        return await stream.result()

    async def _decide(self, event: dict[str, object]) -> str:
        extensions = self._state.extensions
        action = str(event["action"])
        if not extensions.has_handlers("cache_warming_decision"):
            return action
        result = await extensions.emit_transform("cache_warming_decision", event, ("action",))
        decided = result.get("action")
        return decided if decided in ("warm", "stop") else action

    async def _on_event(self, event: Mapping[str, object]) -> None:
        if event.get("type") == "agent_settled":
            self.warmer.on_agent_settled()


__all__ = ["WarmingStream"]
