"""Compaction for a session: the check points, overflow recovery and ``/compact``.

The orchestration itself (events, exact failure texts, the compaction entry) is
``CompactionRunner``'s; this module decides when to call it and connects it to the session:

1. before a prompt is sent, on the previous response (aborted ones included);
2. inside a run, before every turn after the first (threshold only);
3. after a low-level run ends: overflow (compact, then retry once), recoverable length stop, or
   threshold;
4. manual ``compact()``, which aborts the current operation first.

Settings come from ``compaction.*``, overridden per model by
``modelSettings["<provider>/<id>"].compaction``. Extensions see ``session_before_compact`` (may
cancel or supply the summary), ``session_compact`` and ``session_compact_failed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from pi_harness.agent.types import AgentMessage
from pi_harness.ai.thinking import default_max_tokens
from pi_harness.ai.types import AssistantMessage, Model
from pi_harness.coding.agent_session.model_control import model_key
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.compaction import (
    BeforeCompactEvent,
    BeforeCompactResult,
    CheckOutcome,
    CompactionFailure,
    CompactionResult,
    CompactionRunner,
    CompactionSettings,
    CompleteFn,
    compaction_reason,
)
from pi_harness.coding.compaction.estimate import estimate_context_tokens
from pi_harness.coding.compaction.retry import SummaryRetryPolicy
from pi_harness.coding.compaction.trigger import AutoCompactionReason, should_compact
from pi_harness.coding.session_store.entries import CompactionEntry
from pi_harness.coding.virtual_models import is_virtual_model

if TYPE_CHECKING:
    from pi_harness.coding.config.settings_model import Settings


def last_assistant(messages: Sequence[AgentMessage]) -> AssistantMessage | None:
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return cast(AssistantMessage, message)
    return None


class CompactionControl:
    def __init__(self, state: SessionState, *, complete: CompleteFn, max_tokens: int | None) -> None:
        self._state = state
        # The output limit the session's requests ask for (``None``: the provider default).
        self._max_tokens = max_tokens
        self._settings_for: tuple[Settings, str | None, CompactionSettings] | None = None
        self.runner = CompactionRunner(
            state.manager,
            settings=self.settings_for(state.model),
            emit=state.events.emit,
            before_compact=self._before_compact,
            on_compacted=self._on_compacted,
            on_failed=self._on_failed,
            on_omitted=self._on_omitted,
            complete_fn=complete,
            retry_policy=self._retry_policy,
            retry_events=state.events.emit,
        )

    # -- settings and state ----------------------------------------------------------------------

    def settings_for(self, model: Model | None) -> CompactionSettings:
        values = self._state.settings.values
        key = model_key(model) if model is not None else None
        # Asked before every turn; a settings change replaces ``values`` (a frozen model).
        last = self._settings_for
        if last is not None and last[0] is values and last[1] == key:
            return last[2]
        resolved = values.compaction_for(key)
        self._settings_for = (values, key, resolved)
        return resolved

    def _retry_policy(self) -> SummaryRetryPolicy:
        retry = self._state.settings.values.retry
        return SummaryRetryPolicy(retry.enabled, retry.max_retries, retry.base_delay_ms, retry.max_agent_delay_ms)

    @property
    def is_compacting(self) -> bool:
        return self.runner.is_compacting

    @property
    def auto_enabled(self) -> bool:
        return self._state.settings.values.compaction.enabled

    def set_auto(self, enabled: bool) -> None:
        self._state.settings.set("compaction.enabled", bool(enabled))

    def abort(self) -> None:
        self.runner.abort()

    def _prepare(self) -> tuple[Model | None, str | None]:
        model = self._prepare_model()
        return model, self._key(model)

    def _prepare_model(self) -> Model | None:
        # Settings of the selection; limits (and the summary request) of the model that answers,
        # which under a virtual selection is the physical model it was routed to.
        self.runner.settings = self.settings_for(self._state.model)
        return self._state.limits_model()

    def _key(self, model: Model | None) -> str | None:
        return self._state.model_runtime.get_api_key(model["provider"]) if model is not None else None

    def _reason(
        self,
        assistant: AssistantMessage,
        model: Model | None,
        messages: Sequence[AgentMessage],
        compaction: CompactionEntry | None,
        *,
        before_prompt: bool = False,
    ) -> AutoCompactionReason | None:
        return compaction_reason(
            assistant,
            settings=self.runner.settings,
            model=model,
            latest_compaction=compaction,
            messages=messages,
            before_prompt=before_prompt,
        )

    # -- check points ----------------------------------------------------------------------------

    async def before_prompt(self) -> None:
        """Check point 1: the previous response, aborted ones included; never retries."""
        if not self.auto_enabled:
            return
        projection = self._state.manager.build_session_projection()
        assistant = last_assistant(projection.messages)
        if assistant is None:
            return
        model = self._prepare_model()
        reason = self._reason(assistant, model, projection.messages, projection.compaction, before_prompt=True)
        if reason is not None:
            await self.runner.run_auto(reason, model, self._key(model))

    async def mid_run(self, messages: Sequence[AgentMessage]) -> None:
        """Check point 2: inside a run, before the next request (threshold only)."""
        if not self.auto_enabled:
            return
        assistant = last_assistant(messages)
        if assistant is None or assistant.get("stopReason") in ("error", "aborted", "length"):
            return
        if is_virtual_model(self._state.model):
            return  # checked per request against the routed model (``before_routed_request``)
        # The latest compaction only: the messages serve the estimate of a failed response, and
        # failed responses were left out above (copying them would cost a list of the whole
        # conversation on every turn of a run however long).
        compaction = self._state.manager.get_latest_compaction()
        model = self._prepare_model()
        if self._reason(assistant, model, (), compaction) == "threshold":
            # The key only when compacting: resolving it may run a ``!command`` on every turn.
            await self.runner.run_auto("threshold", model, self._key(model))

    async def after_run(self, assistant: AssistantMessage) -> CheckOutcome:
        """Check point 3: overflow (compact and retry once), length truncation or threshold."""
        model, key = self._prepare()
        if not self.auto_enabled:
            return CheckOutcome("none")
        projection = self._state.manager.build_session_projection()
        requested = requested_max_tokens(model, self._max_tokens) if model is not None else None
        return await self.runner.check(
            assistant, model, key, messages=projection.messages, requested_max_tokens=requested
        )

    async def before_routed_request(self, model: Model) -> bool:
        """A virtual selection routed a request to ``model``: compact first when the conversation
        exceeds that model's threshold (True: it compacted). The route stands either way."""
        window = int(model.get("contextWindow") or 0)
        if not self.auto_enabled or window <= 0:
            return False
        self.runner.settings = self.settings_for(self._state.model)
        projection = self._state.manager.build_session_projection()
        tokens = estimate_context_tokens(projection.messages).tokens
        if not should_compact(tokens, window, self.runner.settings):
            return False
        key = self._state.model_runtime.get_api_key(model["provider"])
        await self.runner.run_auto("threshold", model, key)
        return True

    def reset_overflow_recovery(self) -> None:
        self.runner.reset_overflow_recovery()

    # -- manual ----------------------------------------------------------------------------------

    async def compact(self, custom_instructions: str | None = None) -> CompactionResult:
        """``/compact``: raises ``CompactionError`` with the user-facing reason."""
        model, key = self._prepare()
        return await self.runner.compact(model, key, custom_instructions)

    # -- runner hooks ----------------------------------------------------------------------------

    async def _before_compact(self, event: BeforeCompactEvent) -> BeforeCompactResult | None:
        extensions = self._state.extensions
        if not extensions.has_handlers("session_before_compact"):
            return None
        payload: dict[str, object] = {
            "preparation": event.preparation,
            # Complete entries for the handlers (the runner plans on the branch outline).
            "branchEntries": self._state.manager.get_branch(),
            "signal": event.signal,
            "reason": event.reason,
            "willRetry": event.will_retry,
        }
        if event.custom_instructions is not None:
            payload["customInstructions"] = event.custom_instructions
        result = await extensions.emit_session_before("session_before_compact", payload)
        return cast(BeforeCompactResult | None, result)

    async def _on_compacted(self, entry: CompactionEntry, from_extension: bool) -> None:
        state = self._state
        state.sync_agent_messages()
        await state.extensions.emit("session_compact", {"compactionEntry": entry, "fromExtension": from_extension})

    async def _on_omitted(self, edit_ids: list[str]) -> None:
        # Like auto-retry's, the recovery's context_edit entries are announced (as in Pi).
        for edit_id in edit_ids:
            await self._state.events.announce_entry(edit_id)

    async def _on_failed(self, failure: CompactionFailure) -> None:
        payload: dict[str, object] = {
            "reason": failure.reason,
            "aborted": failure.aborted,
            "willRetry": failure.will_retry,
            "fromExtension": failure.from_extension,
        }
        if failure.error_message is not None:
            payload["errorMessage"] = failure.error_message
        await self._state.extensions.emit("session_compact_failed", payload)


def requested_max_tokens(model: Model, configured: int | None) -> int:
    """The output limit a request asks for (the stream options', else the provider default)."""
    return configured if configured else default_max_tokens(model)


__all__ = ["CompactionControl", "last_assistant", "requested_max_tokens"]
