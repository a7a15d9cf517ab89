"""One logical run of a session, from the prompt to ``agent_settled``, and stopping it.

A logical run is one or more low-level ``Agent`` runs. After each one ends, the driver decides
whether the session goes on by itself:

1. a transient provider error ⇒ automatic retry (``auto_retry.py``);
2. check point 3 of compaction ⇒ overflow recovery retries once, threshold compaction goes on
   only for queued messages (``compaction_control.py``);
3. messages queued after the loop's last poll ⇒ continue so they are delivered;
4. ``agent_before_settle`` handlers may ask for one more run.

Then the session settles: deferred custom messages and buffered user-shell results are appended,
an unfinished retry sequence is closed, and ``agent_settled {aborted}`` is emitted exactly once.
A prompt submitted while ``agent_settled`` is being emitted waits until the emission is over.

Aborting stops whatever the session is doing: the retry wait, compaction, a branch summary, the
request and its tools. Manual compaction aborts the run first (``compact_now``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pi_harness.agent import AgentError
from pi_harness.agent.types import AgentMessage
from pi_harness.ai.types import AssistantMessage
from pi_harness.coding.agent_session.auto_retry import AutoRetry
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.pump import EventPump, report_empty_continuation
from pi_harness.coding.agent_session.session_events import AgentSettledEvent
from pi_harness.coding.agent_session.session_state import SessionState
from pi_harness.coding.agent_session.session_tree import TreeNavigator
from pi_harness.coding.agent_session.system_prompt_state import SystemPromptState
from pi_harness.coding.agent_session.user_shell import UserShell
from pi_harness.coding.compaction import CompactionResult
from pi_harness.coding.session_store.ids import iso_to_ms
from pi_harness.coding.session_store.store import SessionManager

PrepareRun = Callable[[], Awaitable[list[AgentMessage] | None]]


@dataclass
class RunHandle:
    """A started logical run; ``error`` is what stopped it unexpectedly (reported if not awaited)."""

    task: asyncio.Task[None] | None = None
    error: BaseException | None = None
    awaited: bool = False
    aborted: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)


class RunDriver:
    def __init__(
        self,
        state: SessionState,
        *,
        pump: EventPump,
        retry: AutoRetry,
        compaction: CompactionControl,
        tree: TreeNavigator,
        user_shell: UserShell,
        prompt: SystemPromptState,
    ) -> None:
        self._state = state
        self._pump = pump
        self._retry = retry
        self._compaction = compaction
        self._tree = tree
        self._user_shell = user_shell
        self._prompt = prompt
        self.current: RunHandle | None = None
        self._abort_requested = False
        self._last_response: AssistantMessage | None = None  # of the current logical run
        self._settle_task: asyncio.Future[None] | None = None
        self._after_settle: list[Callable[[], Awaitable[object]]] = []
        self._settled = asyncio.Event()
        self._settled.set()

    # -- state -----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A logical run is in progress (the session's ``is_streaming``)."""
        return self._state.busy

    @property
    def settling(self) -> bool:
        return self._settle_task is not None

    def in_settle_emission(self) -> bool:
        return self._settle_task is not None and asyncio.current_task() is self._settle_task

    async def wait_settled(self) -> None:
        await self._settled.wait()

    def after_settle(self, action: Callable[[], Awaitable[object]]) -> None:
        """Run ``action`` once the current ``agent_settled`` emission is over."""
        self._after_settle.append(action)

    @property
    def abort_requested(self) -> bool:
        return self._abort_requested

    # -- starting --------------------------------------------------------------------------------

    def start(self, prepare: PrepareRun) -> RunHandle:
        """Mark the session busy now (later input joins this run) and run in a task."""
        if self._state.busy:
            raise RuntimeError("A run is already in progress")
        self._state.busy = True
        self._abort_requested = False
        self._last_response = None
        self._settled.clear()
        handle = RunHandle()
        handle.task = asyncio.get_running_loop().create_task(self._run(prepare, handle))
        self.current = handle
        return handle

    async def wait(self, handle: RunHandle) -> None:
        """Wait for ``handle``'s run to settle; re-raise what stopped it unexpectedly.

        Cancelling the wait aborts the run.
        """
        handle.awaited = True
        if not handle.done.is_set():
            try:
                await asyncio.shield(handle.done.wait())
            except asyncio.CancelledError:
                # The caller gave up on the prompt: stop the run too (it still settles).
                self.request_abort()
                raise
        if handle.error is not None:
            raise handle.error

    async def _run(self, prepare: PrepareRun, handle: RunHandle) -> None:
        try:
            try:
                messages = await prepare()
                if messages is not None and not self._abort_requested and await self._low_level(messages):
                    await self._follow_through()
            except asyncio.CancelledError:
                self._abort_requested = True
                self._state.agent.abort()
                raise
            except Exception as error:
                handle.error = error
            finally:
                handle.aborted = self._abort_requested
                await self._settle()
        finally:
            handle.done.set()
            if handle.error is not None and not handle.awaited:
                self._state.report_internal_error("prompt", handle.error)

    async def _low_level(self, messages: list[AgentMessage] | None) -> bool:
        """One ``Agent`` run: a prompt with ``messages``, or a continuation (``None``).

        False when the agent refused to run (reported); the logical run then settles.
        """
        state = self._state
        agent = state.agent
        if messages is None:
            await self._pump.flush_deferred()  # e.g. appended by agent_before_settle handlers
        state.sync_agent_messages()
        try:
            if messages is not None:
                await agent.prompt(messages)
                return True
            transcript = agent.state.messages
            if transcript and transcript[-1].get("role") == "assistant" and not agent.has_queued_messages():
                await agent.prompt([])  # explicit continuation: one more request from the transcript
            else:
                await agent.continue_()
        except AgentError as error:
            state.report_internal_error("continue", error)
            return False
        return True

    async def _follow_through(self) -> None:
        pump, retry = self._pump, self._retry
        while not self._abort_requested:
            assistant = pump.run_assistant
            if assistant is not None:
                self._last_response = assistant
            if assistant is not None and retry.is_retryable(assistant):
                self._state.failed_response = assistant  # a virtual model's router sees ``retry``
                if not await retry.retry(assistant) or not await self._low_level(None):
                    return
                continue
            if assistant is not None:
                outcome = await self._compaction.after_run(assistant)
                pump.run_assistant = None
                if self._abort_requested:
                    return
                if outcome.action == "retry":
                    self._state.failed_response = assistant
                    await _after_latest_compaction(self._state.manager)
                    if not await self._low_level(None):
                        return
                    continue
            await pump.flush_deferred()
            if self._state.agent.has_queued_messages() or await self._before_settle():
                if not await self._low_level(None):
                    return
                continue
            return

    async def _before_settle(self, aborted: bool = False) -> bool:
        extensions = self._state.extensions
        if not extensions.has_handlers("agent_before_settle"):
            return False
        wants_more = await extensions.emit_actionable("agent_before_settle", {"aborted": aborted})
        if not wants_more or aborted or self._abort_requested:
            return False
        agent = self._state.agent
        transcript = agent.state.messages
        answered = bool(transcript) and transcript[-1].get("role") == "assistant"
        if answered and not (self._pump.has_deferred() or agent.has_queued_messages()):
            report_empty_continuation(self._state, "agent_before_settle")
            return False
        return True

    # -- settling --------------------------------------------------------------------------------

    async def _settle(self) -> None:
        state = self._state
        aborted = self._abort_requested
        try:
            await self._pump.flush_deferred()
            await self._user_shell.flush()
            if aborted:
                await self._before_settle(aborted=True)
            last = self._pump.run_assistant or self._last_response
            await self._retry.finish(aborted, last.get("errorMessage") if last is not None else None)
        finally:
            self._prompt.reset_run()
            self._pump.run_assistant = None
            state.busy = False
            self._settle_task = asyncio.current_task()
            try:
                settled: AgentSettledEvent = {"type": "agent_settled", "aborted": aborted}
                await state.events.emit(settled)
            finally:
                self._settle_task = None
                self._settled.set()
                pending, self._after_settle = self._after_settle, []
                for action in pending:
                    state.spawn(action())

    # -- aborting --------------------------------------------------------------------------------

    def request_abort(self) -> bool:
        """Stop whatever the run is doing (retry wait, compaction, summary, the request, tools)."""
        self._compaction.abort()
        self._tree.abort()
        if not self._state.busy:
            return False
        self._abort_requested = True
        self._retry.abort()
        self._state.agent.abort()
        return True

    async def abort(self) -> None:
        """Cancel the retry wait, compaction, branch summary and the request; wait until idle."""
        self.request_abort()
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        handle = self.current
        if handle is not None and handle.task is not asyncio.current_task() and not handle.done.is_set():
            await asyncio.shield(handle.done.wait())

    async def compact_now(self, custom_instructions: str | None) -> CompactionResult:
        """Manual compaction: aborts the current run first; raises ``CompactionError`` on failure."""
        if self._state.busy:
            await self.abort()
        return await self._compaction.compact(custom_instructions)


async def _after_latest_compaction(manager: SessionManager) -> None:
    """Let the wall clock pass the compaction entry's millisecond before retrying.

    The compaction guards tell responses from before a compaction by timestamp
    (``A.timestamp <= compaction time``); a retry started within the same millisecond would be
    taken for a stale response and its overflow would not be reported.
    """
    compaction = manager.get_latest_compaction()
    if compaction is None:
        return
    compacted_at = iso_to_ms(compaction.get("timestamp"))
    while int(time.time() * 1000) <= compacted_at:
        await asyncio.sleep(0.001)


__all__ = ["PrepareRun", "RunDriver", "RunHandle"]
