"""The session's automatic retry of a failed run (the ``retry.*`` settings).

Not the provider-level retry of one HTTP request (``pi_harness.ai.retry``, which also decides
what counts as transient): this one continues the whole run. After a low-level run ends with a
transient provider error (not a context overflow, not a quota or billing limit), the session
waits ``baseDelayMs * 2^(attempt-1)`` (capped at ``maxAgentDelayMs``, no jitter) and continues
the run. Before waiting, the failed response and its tool results are hidden from every later
context by ``context_edit`` entries; the file keeps them. Events: ``auto_retry_start {attempt,
maxAttempts, delayMs, errorMessage}``, then ``auto_retry_end {success, attempt, finalError?}``
when a later response succeeds, the attempts are used up, or the wait is cancelled
(``Retry cancelled``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from pi_harness.ai.abort import AbortController
from pi_harness.ai.retry import agent_retry_delay_ms, is_retryable_error
from pi_harness.ai.types import AssistantMessage
from pi_harness.coding.agent_session.session_events import AutoRetryEndEvent, AutoRetryStartEvent
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.session_store.store import SessionManager

RETRY_CANCELLED = "Retry cancelled"


class AutoRetry:
    def __init__(
        self,
        settings: SettingsManager,
        *,
        emit: Callable[[Mapping[str, object]], Awaitable[None]],
        manager: SessionManager,
        record_entry: Callable[[str], None],
        report: Callable[[str, BaseException], None],
        context_window: Callable[[], int | None],
    ) -> None:
        self._settings = settings
        self._emit = emit
        self._manager = manager
        self._record_entry = record_entry
        self._report = report
        self._context_window = context_window
        self._last_entry: tuple[AssistantMessage, str] | None = None
        self.attempt = 0
        self._last_error: str | None = None
        self._controller: AbortController | None = None

    # -- settings --------------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        return self._settings.values.retry.enabled

    def set_enabled(self, enabled: bool) -> None:
        self._settings.set("retry.enabled", bool(enabled))

    @property
    def max_retries(self) -> int:
        return self._settings.values.retry.max_retries

    def delay_ms(self, attempt: int) -> int:
        retry = self._settings.values.retry
        return agent_retry_delay_ms(attempt, retry.base_delay_ms, retry.max_agent_delay_ms)

    # -- decisions -------------------------------------------------------------------------------

    def is_retryable(self, message: AssistantMessage) -> bool:
        return self.enabled and is_retryable_error(message, self._context_window())

    def will_retry(self, message: AssistantMessage) -> bool:
        """What ``agent_end.willRetry`` reports for a run that ended with ``message``."""
        return self.is_retryable(message) and self.attempt < self.max_retries

    @property
    def waiting(self) -> bool:
        return self._controller is not None

    # -- the procedure ---------------------------------------------------------------------------

    def note_entry(self, message: AssistantMessage, entry_id: str) -> None:
        """The entry a response was stored as (the one a retry hides)."""
        self._last_entry = (message, entry_id)

    def _omit(self, message: AssistantMessage) -> None:
        known = self._last_entry
        entry_id = known[1] if known is not None and known[0] is message else None
        try:
            for edit_id in self._manager.omit_failed_attempt(entry_id):
                self._record_entry(edit_id)
        except ValueError as error:
            self._report("auto_retry", error)

    async def retry(self, message: AssistantMessage) -> bool:
        """Count the attempt, announce it, hide the failure and wait; True: continue the run now."""
        error = message.get("errorMessage") or ""
        self._last_error = error
        self.attempt += 1
        max_retries = self.max_retries
        if self.attempt > max_retries:
            await self._end(False, max_retries, error)
            return False
        delay = self.delay_ms(self.attempt)
        start: AutoRetryStartEvent = {
            "type": "auto_retry_start",
            "attempt": self.attempt,
            "maxAttempts": max_retries,
            "delayMs": delay,
            "errorMessage": error,
        }
        await self._emit(start)
        self._omit(message)
        controller = self._controller = AbortController()
        try:
            completed = await controller.signal.sleep(delay / 1000)
        finally:
            self._controller = None
        if not completed:
            await self._end(False, self.attempt, RETRY_CANCELLED)
            return False
        return True

    async def on_response(self, message: AssistantMessage) -> None:
        """A response finished: the first one without error after retrying ends the retry."""
        if self.attempt > 0 and message.get("stopReason") not in ("error", "aborted"):
            await self._end(True, self.attempt)

    async def finish(self, aborted: bool, last_error: str | None = None) -> None:
        """The session settles: an unfinished retry sequence ends as a failure."""
        if self.attempt > 0:
            final = RETRY_CANCELLED if aborted else (last_error or self._last_error or RETRY_CANCELLED)
            await self._end(False, self.attempt, final)

    def abort(self) -> None:
        """``abortRetry()``: cancel the wait (the run then settles)."""
        if self._controller is not None:
            self._controller.abort(RETRY_CANCELLED)

    async def _end(self, success: bool, attempt: int, final_error: str | None = None) -> None:
        self.attempt = 0
        self._last_error = None
        event: AutoRetryEndEvent = {"type": "auto_retry_end", "success": success, "attempt": attempt}
        if final_error is not None and not success:
            event["finalError"] = final_error
        await self._emit(event)


__all__ = ["RETRY_CANCELLED", "AutoRetry"]
