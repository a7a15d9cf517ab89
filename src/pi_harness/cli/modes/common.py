"""What print and JSON mode share: running the initial prompts, signals, error reporting."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pi_harness.cli.initial_input import PromptInput

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.extensions.types import ExtensionErrorRecord
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime

SIGNAL_EXIT_CODES = {signal.SIGTERM: 143, signal.SIGHUP: 129}


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


def last_assistant(session: AgentSession) -> dict[str, object] | None:
    for message in reversed(session.get_messages()):
        if message.get("role") == "assistant":
            return dict(message)
    return None


class SignalExit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"terminated by signal (exit {code})")
        self.code = code


async def run_with_signal_shutdown(work: Awaitable[int], shutdown: Callable[[], Awaitable[None]]) -> int:
    """Run ``work``; SIGTERM/SIGHUP abort it, run ``shutdown`` and give 143/129."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if not received:
            received.append(SIGNAL_EXIT_CODES[signal.Signals(signum)])
            task.cancel()

    installed = []
    for signum in SIGNAL_EXIT_CODES:
        try:
            loop.add_signal_handler(signum, on_signal, signum)
            installed.append(signum)
        except (RuntimeError, ValueError):  # also "not implemented" on platforms without signals
            pass
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
        for signum in installed:
            loop.remove_signal_handler(signum)
