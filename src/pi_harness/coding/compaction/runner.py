"""Running compactions for an AgentSession.

``CompactionRunner`` owns the compaction side of a session: manual ``/compact`` (failures raise),
automatic compaction at the check points (failures are reported through ``compaction_end`` and
the ``on_failed`` hook and return ``False``), and overflow recovery (compact, then retry once).
It appends the ``compaction`` entry; the session's ``on_compacted`` hook then replaces the agent's
messages with the rebuilt context and notifies extensions (``session_compact``).

Extension seams: ``before_compact`` receives the plan (``session_before_compact``) and may cancel
or return its own summary; ``complete_fn`` replaces the model call (tests use the faux provider).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict, cast

from pi_harness.ai.abort import AbortController, AbortSignal
from pi_harness.ai.api import complete_simple
from pi_harness.ai.types import AssistantMessage, Model, Usage
from pi_harness.coding.compaction.estimate import estimate_tokens
from pi_harness.coding.compaction.keys import resolve_api_key
from pi_harness.coding.compaction.prepare import CompactionPreparation, prepare_compaction
from pi_harness.coding.compaction.retry import RetryEventSink, SummaryRetryPolicy, retrying
from pi_harness.coding.compaction.settings import CompactionSettings
from pi_harness.coding.compaction.summarize import SummarizationAborted, summarize_compaction
from pi_harness.coding.compaction.trigger import compaction_reason
from pi_harness.coding.compaction.types import (
    CompactionEndEvent,
    CompactionEvent,
    CompactionReason,
    CompactionResult,
    CompleteFn,
)
from pi_harness.coding.session_store.entries import CompactionEntry, SessionEntry
from pi_harness.coding.session_store.store import SessionManager

OVERFLOW_RETRY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
TRUNCATED_RETRY_FAILED = "Truncated response recovery failed after one compact-and-retry attempt."
ALREADY_COMPACTED = "Already compacted"
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"
COMPACTION_CANCELLED = "Compaction cancelled"
NO_MODEL_SELECTED = "No model selected"


class CompactionError(Exception):
    """A manual compaction failed; the message is the user-facing reason."""

    def __init__(self, message: str, *, aborted: bool = False) -> None:
        super().__init__(message)
        self.aborted = aborted


class ExtensionCompaction(TypedDict):
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    details: NotRequired[object]
    usage: NotRequired[Usage]


class BeforeCompactResult(TypedDict, total=False):
    cancel: bool
    compaction: ExtensionCompaction


@dataclass
class BeforeCompactEvent:
    """Payload of the extension event ``session_before_compact``."""

    preparation: CompactionPreparation
    branch_entries: list[SessionEntry]
    custom_instructions: str | None
    signal: AbortSignal
    reason: CompactionReason
    will_retry: bool


@dataclass
class CompactionFailure:
    """Payload of ``session_compact_failed`` (automatic compaction only)."""

    reason: CompactionReason
    error_message: str | None
    aborted: bool
    will_retry: bool
    from_extension: bool


EventSink = Callable[[CompactionEvent], "Awaitable[None] | None"]
BeforeCompactHook = Callable[[BeforeCompactEvent], Awaitable[BeforeCompactResult | None]]
CompactedHook = Callable[[CompactionEntry, bool], "Awaitable[None] | None"]
FailedHook = Callable[[CompactionFailure], "Awaitable[None] | None"]
# The ids of the ``context_edit`` entries that hid a failed attempt (overflow recovery).
OmittedHook = Callable[[list[str]], "Awaitable[None] | None"]


@dataclass(frozen=True)
class CheckOutcome:
    """What a check point should do next.

    ``action``: ``none`` (nothing happened), ``compacted`` (continue; kick queued messages),
    ``retry`` (overflow recovered: run the failed prompt again), ``failed`` (reported already).
    """

    action: Literal["none", "compacted", "retry", "failed"]
    reason: Literal["threshold", "overflow"] | None = None


async def _maybe_await(value: Awaitable[None] | None) -> None:
    if inspect.isawaitable(value):
        await value


class _Cancelled(Exception):
    pass


class CompactionRunner:
    def __init__(
        self,
        session: SessionManager,
        *,
        settings: CompactionSettings | None = None,
        emit: EventSink | None = None,
        before_compact: BeforeCompactHook | None = None,
        on_compacted: CompactedHook | None = None,
        on_failed: FailedHook | None = None,
        on_omitted: OmittedHook | None = None,
        complete_fn: CompleteFn = complete_simple,
        retry_policy: Callable[[], SummaryRetryPolicy | None] | None = None,
        retry_events: RetryEventSink | None = None,
    ) -> None:
        self.session = session
        # Summary requests are retried after transient errors (read per compaction: settings change).
        self.retry_policy = retry_policy
        self.retry_events = retry_events
        self.settings = settings or CompactionSettings()
        self.emit = emit
        self.before_compact = before_compact
        self.on_compacted = on_compacted
        self.on_failed = on_failed
        self.on_omitted = on_omitted
        self.complete_fn = complete_fn
        self.overflow_recovery_attempted = False
        self._controller: AbortController | None = None

    # --- state --------------------------------------------------------------------------------

    @property
    def is_compacting(self) -> bool:
        return self._controller is not None

    def abort(self) -> None:
        """Cancel the running compaction (manual or automatic), if any."""
        if self._controller is not None:
            self._controller.abort("Compaction aborted")

    def reset_overflow_recovery(self) -> None:
        """Call when a response finishes without error or a new user message starts."""
        self.overflow_recovery_attempted = False

    async def _emit(self, event: CompactionEvent) -> None:
        if self.emit is not None:
            await _maybe_await(self.emit(event))

    async def _end(
        self,
        reason: CompactionReason,
        result: CompactionResult | None,
        *,
        aborted: bool = False,
        will_retry: bool = False,
        error: str | None = None,
    ) -> None:
        # Like Pi's, a compaction that produced nothing has no ``result`` key (not ``null``).
        fields: dict[str, object] = {"type": "compaction_end", "reason": reason}
        if result is not None:
            fields["result"] = result
        fields.update(aborted=aborted, willRetry=will_retry)
        event = cast(CompactionEndEvent, fields)
        if error is not None:
            event["errorMessage"] = error
        await self._emit(event)

    # --- the shared core ----------------------------------------------------------------------

    async def _execute(
        self,
        preparation: CompactionPreparation,
        branch: list[SessionEntry],
        model: Model,
        api_key: str,
        custom_instructions: str | None,
        reason: CompactionReason,
        will_retry: bool,
        signal: AbortSignal,
    ) -> tuple[CompactionResult, bool]:
        """Hook, summarise, append, notify. Raises ``_Cancelled`` when cancelled or aborted."""
        from_extension = False
        result: CompactionResult | None = None
        if self.before_compact is not None:
            event = BeforeCompactEvent(preparation, branch, custom_instructions, signal, reason, will_retry)
            response = await self.before_compact(event) or {}
            if response.get("cancel"):
                raise _Cancelled
            supplied = response.get("compaction")
            if supplied is not None:
                result = cast(CompactionResult, dict(supplied))
                from_extension = True
        if result is None:
            try:
                policy = self.retry_policy() if self.retry_policy is not None else None
                source = {"source": "compaction", "reason": reason}
                result = await summarize_compaction(
                    preparation,
                    model,
                    api_key=api_key or None,
                    custom_instructions=custom_instructions,
                    signal=signal,
                    complete_fn=retrying(self.complete_fn, policy, self.retry_events, source),
                )
            except SummarizationAborted:
                raise _Cancelled from None
        if signal.aborted:
            raise _Cancelled
        entry_id = self.session.append_compaction(
            result["summary"],
            result["firstKeptEntryId"],
            result["tokensBefore"],
            result.get("details"),
            from_extension,
            result.get("usage"),
        )
        # A heuristic over the rebuilt context: usage kept from before the compaction would overstate it.
        after = sum(estimate_tokens(m) for m in self.session.build_session_context().messages)
        # Pi's key order: the size after comes right after the size before.
        ordered: dict[str, object] = {
            "summary": result["summary"],
            "firstKeptEntryId": result["firstKeptEntryId"],
            "tokensBefore": result["tokensBefore"],
            "estimatedTokensAfter": after,
        }
        ordered.update({key: value for key, value in result.items() if key not in ordered})
        result = cast(CompactionResult, ordered)
        if self.on_compacted is not None:
            entry = cast(CompactionEntry, self.session.get_entry(entry_id))
            await _maybe_await(self.on_compacted(entry, from_extension))
        return result, from_extension

    def _start(self) -> AbortSignal:
        controller = AbortController()
        self._controller = controller
        return controller.signal

    # --- manual -------------------------------------------------------------------------------

    async def compact(
        self, model: Model | None, api_key: str | None = None, custom_instructions: str | None = None
    ) -> CompactionResult:
        """``/compact``: raises ``CompactionError`` (``Compaction failed: …`` is reported in the event)."""
        if self.is_compacting:
            raise CompactionError("Compaction already in progress")
        signal = self._start()
        await self._emit({"type": "compaction_start", "reason": "manual"})
        try:
            if model is None:
                raise CompactionError(NO_MODEL_SELECTED)
            key = resolve_api_key(model, api_key)
            if key is None:
                raise CompactionError(f"No API key for {model['provider']}")
            # The outline: what planning reads is complete; a large file's older messages stay
            # on disk (``session_before_compact`` handlers get the complete branch).
            branch = self.session.get_branch_outline()
            preparation = prepare_compaction(branch, self.settings)
            if preparation is None:
                last_is_compaction = bool(branch) and branch[-1]["type"] == "compaction"
                raise CompactionError(ALREADY_COMPACTED if last_is_compaction else NOTHING_TO_COMPACT)
            try:
                result, _ = await self._execute(
                    preparation, branch, model, key, custom_instructions, "manual", False, signal
                )
            except _Cancelled:
                raise CompactionError(COMPACTION_CANCELLED, aborted=True) from None
        except Exception as error:
            aborted = isinstance(error, CompactionError) and error.aborted
            # An aborted or cancelled compaction is no failure: no error text.
            await self._end("manual", None, aborted=aborted, error=None if aborted else f"Compaction failed: {error}")
            if isinstance(error, CompactionError):
                raise
            raise CompactionError(str(error)) from error
        finally:
            self._controller = None
        await self._end("manual", result)
        return result

    # --- automatic ----------------------------------------------------------------------------

    async def run_auto(
        self,
        reason: Literal["threshold", "overflow"],
        model: Model | None,
        api_key: str | None = None,
        *,
        will_retry: bool = False,
    ) -> bool:
        """Automatic compaction; never raises. True when a compaction entry was written.

        Without a model or anything to summarise nothing happens (no events); once started, a
        failure or an abort ends with ``compaction_end`` and ``session_compact_failed``.
        """
        if self.is_compacting or model is None:
            return False
        branch = self.session.get_branch_outline()  # as in ``compact``
        preparation = prepare_compaction(branch, self.settings)
        if preparation is None:
            return False
        signal = self._start()
        from_extension = False
        try:
            await self._emit({"type": "compaction_start", "reason": reason})
            key = resolve_api_key(model, api_key)
            if key is None:
                raise CompactionError(f"No API key for {model['provider']}")
            try:
                result, from_extension = await self._execute(
                    preparation, branch, model, key, None, reason, will_retry, signal
                )
            except _Cancelled:
                await self._end(reason, None, aborted=True)
                await self._failed(CompactionFailure(reason, None, True, False, from_extension))
                return False
        except Exception as error:
            prefix = "Context overflow recovery failed" if reason == "overflow" else "Auto-compaction failed"
            message = f"{prefix}: {error or 'compaction failed'}"
            await self._end(reason, None, error=message)
            await self._failed(CompactionFailure(reason, message, False, False, from_extension))
            return False
        finally:
            self._controller = None
        await self._end(reason, result, will_retry=will_retry)
        return True

    async def _failed(self, failure: CompactionFailure) -> None:
        if self.on_failed is not None:
            await _maybe_await(self.on_failed(failure))

    async def check(
        self,
        assistant: AssistantMessage,
        model: Model | None,
        api_key: str | None = None,
        *,
        messages: Sequence[Mapping[str, object]] = (),
        before_prompt: bool = False,
        requested_max_tokens: int | None = None,
    ) -> CheckOutcome:
        """A check point looking at ``assistant`` (see trigger.py): compact if the guards say so."""
        projection = self.session.build_session_projection()
        reason = compaction_reason(
            assistant,
            settings=self.settings,
            model=model,
            latest_compaction=projection.compaction,
            messages=messages or projection.messages,
            before_prompt=before_prompt,
            requested_max_tokens=requested_max_tokens,
        )
        if reason is None:
            return CheckOutcome("none")
        if reason == "overflow":
            return await self.recover_from_overflow(assistant, model, api_key)
        compacted = await self.run_auto("threshold", model, api_key)
        return CheckOutcome("compacted" if compacted else "failed", "threshold")

    async def recover_from_overflow(
        self, assistant: AssistantMessage, model: Model | None, api_key: str | None = None
    ) -> CheckOutcome:
        """Compact and retry once.

        A failed response (error or length stop) is omitted from later contexts with
        ``context_edit`` entries, compacted away and retried; a second overflow after a recovery is
        reported and not retried. A successful response that merely overflowed is compacted but
        not retried.
        """
        if assistant.get("stopReason") not in ("error", "length"):
            compacted = await self.run_auto("overflow", model, api_key, will_retry=False)
            return CheckOutcome("compacted" if compacted else "failed", "overflow")
        if self.overflow_recovery_attempted:
            # A truncated (length) response that was not an explicit overflow says so.
            message = TRUNCATED_RETRY_FAILED if assistant.get("stopReason") == "length" else OVERFLOW_RETRY_FAILED
            await self._end("overflow", None, error=message)
            await self._failed(CompactionFailure("overflow", message, False, False, False))
            return CheckOutcome("failed", "overflow")
        self.overflow_recovery_attempted = True
        entry_id = self._entry_of(assistant)
        if entry_id is not None:
            edits = self.session.omit_failed_attempt(entry_id)
            if self.on_omitted is not None:
                await _maybe_await(self.on_omitted(edits))
        compacted = await self.run_auto("overflow", model, api_key, will_retry=True)
        return CheckOutcome("retry" if compacted else "failed", "overflow")

    def _entry_of(self, assistant: AssistantMessage) -> str | None:
        """The id of the entry that stores ``assistant`` on the active branch, if it was persisted."""
        for entry in reversed(self.session.get_branch_outline()):  # newest first: complete there
            entry_id: str = entry["id"]
            message = entry.get("message") if entry["type"] == "message" else None
            if message is assistant:
                return entry_id
            if (
                isinstance(message, dict)
                and message.get("role") == "assistant"
                and message.get("timestamp") == assistant.get("timestamp")
                and message.get("stopReason") == assistant.get("stopReason")
            ):
                return entry_id
        return None
