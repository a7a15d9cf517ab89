"""What print and JSON mode share: running the initial prompts, signals, error reporting."""

from __future__ import annotations

import _thread
import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import TYPE_CHECKING

from pi_harness.cli.initial_input import PromptInput

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.extensions.types import ExtensionErrorRecord
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime

SIGNAL_EXIT_CODES = {signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGINT: 130}
# A loop that has not run for this long after shutdown began is blocked (a synchronous handler
# sleeping, a busy loop): the process exits without finishing the graceful path.
BLOCKED_LOOP_EXIT_S = 3.0
# However busy the loop, shutdown takes no longer than this up to the final flush of the output
# (a handler that swallows its cancellation and waits on is not cut short otherwise).
SHUTDOWN_EXIT_S = 6.0


def kill_child_processes() -> None:
    """Kill every process group our tools started (SIGTERM/SIGHUP shutdown path)."""
    from pi_harness.coding.tools import kill_all_tracked_processes

    kill_all_tracked_processes(0.5)


def report_extension_errors_to_stderr(session: AgentSession) -> None:
    def report(record: ExtensionErrorRecord) -> None:
        print(f"Extension error ({record.extension_path}): {record.error}", file=sys.stderr, flush=True)

    session.extensions.on_error(report)


async def run_prompts(runtime: AgentSessionRuntime, prompts: list[PromptInput]) -> bool:
    """Send each prompt after the previous run settled; ``False`` when one raised (the error,
    printed on stderr, stops the sequence).

    Each prompt goes to the runtime's current session: an extension command may have replaced it.
    """
    try:
        for item in prompts:
            await runtime.session.prompt(item.text, images=item.images or None, source="interactive")
    except Exception as exc:
        print(str(exc), file=sys.stderr, flush=True)
        return False
    return True


async def rehearse_next_request(session: AgentSession) -> None:
    """After a run that continued a session file answered: the next run's first request, for it to
    send ahead (``cli/early_request/rehearsal.py``); nothing unless this run was armed for it."""
    from pi_harness.cli.early_request.state import STATE

    if STATE.rehearse:
        from pi_harness.cli.early_request import rehearsal

        await rehearsal.rehearse(session)


def last_assistant(session: AgentSession) -> dict[str, object] | None:
    for message in reversed(session.get_messages()):
        if message.get("role") == "assistant":
            return dict(message)
    return None


class ShutdownGuard:
    """Makes SIGTERM/SIGHUP/SIGINT (and RPC's stdin EOF) end the process in bounded time.

    The signal handlers are Python-level (``signal.signal``), not the event loop's: they run
    between two bytecodes of the main thread even while a synchronous extension handler blocks
    the loop, and hand the signal to the loop with ``call_soon_threadsafe``. A watchdog thread,
    armed by the first signal or EOF, keeps asking the loop for a heartbeat; when none comes for
    ``BLOCKED_LOOP_EXIT_S`` it kills the tools' processes and exits with the signal's code; so it
    does when shutdown has not reached the final flush (``flushing``) within ``SHUTDOWN_EXIT_S``.
    The watchdog starts with the first signal or EOF (``arm``), not before: a run that is never
    interrupted has no thread waking up ten times a second, and starts its first request sooner.
    Session entries are written whole, so the file stays valid JSON lines; a forced exit during
    a tool call can leave that call without a result entry.
    """

    def __init__(self, on_signal: Callable[[int], None]) -> None:
        self._on_signal = on_signal
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: dict[int, object] = {}
        self._armed_code: int | None = None  # plain assignments: safe from a signal handler
        self._last_tick = 0.0
        self._armed_at = 0.0
        self._flushing = False
        self._stopped = False
        self._watchdog = threading.Lock()  # taken (without waiting) by the one arm() that starts it

    def install(self) -> None:
        self._loop = asyncio.get_running_loop()
        for signum in SIGNAL_EXIT_CODES:
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):  # not the main thread, or a platform without it
                pass
        if self._armed_code is not None:  # armed before it was installed
            self.arm(self._armed_code)

    def uninstall(self) -> None:
        self._stopped = True
        for signum, previous in self._previous.items():
            if callable(previous) or isinstance(previous, int):
                signal.signal(signum, previous)
        self._previous.clear()

    def arm(self, code: int) -> None:
        """Shutdown has begun (any thread): from now on the loop must keep running."""
        if self._armed_code is None:
            self._armed_at = self._last_tick = time.monotonic()
            self._armed_code = code
        if self._loop is not None and self._watchdog.acquire(blocking=False):
            # A bare thread (``_thread``): ``threading.Thread.start`` takes threading's own locks,
            # which the main thread may hold at the moment a signal handler interrupts it.
            _thread.start_new_thread(self._watch, ())

    def flushing(self) -> None:
        """Only the output is left to write: its wait is bounded by the mode, not here."""
        self._flushing = True

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        code = SIGNAL_EXIT_CODES[signal.Signals(signum)]
        self.arm(code)
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._on_signal, code)
            except RuntimeError:  # the loop closed meanwhile: nothing left to stop gracefully
                pass

    def _tick(self) -> None:
        self._last_tick = time.monotonic()

    def _watch(self) -> None:
        while not self._stopped:
            time.sleep(0.1)
            code = self._armed_code
            loop = self._loop
            if code is None or loop is None:
                continue
            try:
                loop.call_soon_threadsafe(self._tick)
            except RuntimeError:
                return  # the loop is closed: the process is ending anyway
            now = time.monotonic()
            if now - self._last_tick > BLOCKED_LOOP_EXIT_S:
                force_exit(code)
            if not self._flushing and now - self._armed_at > SHUTDOWN_EXIT_S:
                force_exit(code)


def force_exit(code: int) -> None:
    """The last resort when the event loop no longer runs: no flush, no ``session_shutdown``."""
    try:
        kill_child_processes()
        os.write(2, b"pi: shutdown blocked (an extension handler does not return); exiting now\n")
    finally:
        os._exit(code)


def interrupt_extensions(runtime: AgentSessionRuntime) -> None:
    """Shutdown wins over extension handlers: cut short the running ones, bound the later ones."""
    try:
        runtime.session.extensions.interrupt()
    except Exception as exc:  # must never stop the shutdown itself
        print(f"Extension interrupt failed: {exc}", file=sys.stderr, flush=True)


class SignalExit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"terminated by signal (exit {code})")
        self.code = code


async def run_with_signal_shutdown(
    work: Awaitable[int], shutdown: Callable[[], Awaitable[None]], runtime: AgentSessionRuntime
) -> int:
    """Run ``work``; SIGTERM/SIGHUP/SIGINT abort it, run ``shutdown`` and give 143/129/130."""
    task = asyncio.ensure_future(work)
    received: list[int] = []

    def on_signal(code: int) -> None:
        if not received:
            received.append(code)
            interrupt_extensions(runtime)
            task.cancel()

    guard = ShutdownGuard(on_signal)
    guard.install()
    try:
        try:
            return await task
        except asyncio.CancelledError:
            if not received:
                raise
        await shutdown()
        kill_child_processes()
        return received[0]
    finally:
        guard.uninstall()
