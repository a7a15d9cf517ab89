"""JSON mode (``docs/json-mode.md``): the session header, then every event as a JSON line.

Failures of the assistant are only visible in the stream (exit 0); a prompt that raises exits 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pi_harness.cli.initial_input import PromptInput
from pi_harness.cli.modes.common import (
    SIGNAL_EXIT_CODES,
    rehearse_next_request,
    report_extension_errors_to_stderr,
    run_prompts,
    run_with_signal_shutdown,
)
from pi_harness.cli.records import wire_event

FLUSH_AFTER_SIGNAL_S = 5.0

if TYPE_CHECKING:
    from pi_harness.cli.output import RecordWriter
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime


async def run_json_mode(runtime: AgentSessionRuntime, prompts: list[PromptInput], writer: RecordWriter) -> int:
    session = runtime.session
    header = session.session_manager.get_header()
    if header:
        writer.write(dict(header))
    report_extension_errors_to_stderr(session)

    def on_event(event: Mapping[str, object]) -> None:
        record = wire_event(event)
        if record is not None:
            writer.write(record)

    session.subscribe(on_event)
    # An extension may replace the session (``ctx.new_session()``...): keep streaming its events.
    runtime.on_session_replaced(lambda replacement: replacement.subscribe(on_event))
    await session.bind_extensions(ui=None, has_ui=False, mode="json")

    async def work() -> int:
        if not await run_prompts(runtime, prompts):
            return 1
        await rehearse_next_request(runtime.session)
        return 0

    code = 1
    try:
        code = await run_with_signal_shutdown(work(), runtime.shutdown, runtime)
        return code
    finally:
        await runtime.shutdown()
        # Every record reaches the reader, however slowly it reads (a reader that went away ends
        # the process through EPIPE); after a signal only a bounded wait.
        await writer.flush(timeout=FLUSH_AFTER_SIGNAL_S if code in SIGNAL_EXIT_CODES.values() else None)
