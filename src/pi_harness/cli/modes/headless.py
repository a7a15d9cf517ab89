"""Print, JSON and RPC: the modes without a screen, started the same way.

stdout is taken over first (only the mode's own output reaches it), a crash of the previous run
is announced on stderr, trust is never asked (``--approve`` or a saved decision), every startup
diagnostic goes to stderr, and a run without a usable model stops with exit 1.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pi_harness.cli import timing
from pi_harness.cli.bootstrap import Boot, Started, describe_no_model
from pi_harness.cli.crash_log import announce_previous_crash
from pi_harness.cli.mode import reads_piped_stdin
from pi_harness.cli.startup import Launched, print_error, start_session

if TYPE_CHECKING:
    from pi_harness.cli.args import ParsedArgs
    from pi_harness.cli.early_request.recorder import PromptFacts
    from pi_harness.cli.mode import AppMode
    from pi_harness.cli.stdout_guard import RawStdout

# The MCP client, imported only when a server is configured (``extensions_builtin/mcp/front.py``).
MCP_CLIENT_MODULE = "pi_harness.extensions_builtin.mcp.extension"
UNTRUSTED_WARNING = "Project resources skipped: this project is not trusted (pass --approve to load them)."


class HeadlessStartup:
    """The ``ModeStartup`` of print, JSON and RPC mode."""

    pauses_collection = True
    diagnostics_to_stderr = True

    def __init__(self, mode: AppMode) -> None:
        self.mode: AppMode = mode
        self.reads_piped_stdin = reads_piped_stdin(mode)
        self.reads_initial_input = mode != "rpc"  # RPC's prompts come as commands on stdin

    async def decide_trust(self, boot: Boot) -> bool:
        if boot.trust.needs_prompt:
            print_error(UNTRUSTED_WARNING)
        return boot.trust.effective(interactive=False)

    def warn(self, message: str) -> None:
        print_error(message)

    def accept(self, started: Started) -> bool:
        # A session without a model still starts (as in Pi): RPC clients can list and set models,
        # and a print or JSON run with nothing to send ends well (``run_headless``).
        if started.model_fallback_message:
            print_error(started.model_fallback_message)
        timing.mark("startup")
        timing.print_timings()
        return True


async def run_headless(parsed: ParsedArgs, mode: AppMode) -> int:
    """Start the session and run ``mode`` (print, json or rpc) on it; returns the exit code."""
    from pi_harness.cli.stdout_guard import take_over_stdout

    takeover = take_over_stdout()
    try:
        notice = announce_previous_crash()
        if notice:
            print_error(notice)
        launched = await start_session(parsed, HeadlessStartup(mode))
        if isinstance(launched, int):
            return launched
        if mode != "rpc" and launched.prompts and launched.runtime.session.model is None:
            print_error(describe_no_model())
            await launched.runtime.shutdown()
            return 1
        return await _run_mode(launched, mode, takeover.raw)
    finally:
        takeover.raw.flush()


def prompt_facts(launched: Launched) -> PromptFacts:
    """Whether this run's first request may be recorded (``cli/early_request/recorder.py``)."""
    from pi_harness.cli.early_request.recorder import PromptFacts, model_key

    prompts = launched.prompts
    session = launched.runtime.session
    manager = session.session_manager
    parsed = launched.started.parsed
    # A session file named on the command line: the next run continues this run's history.
    file = manager.get_session_file() if parsed.session and not parsed.fork else None
    recordable = (
        session.settings.values.startup.early_request
        and len(prompts) == 1
        and not prompts[0].images
        and not parsed.file_args
        and (file is not None or not manager.has_messages())
        # An extension's tools and hooks, or an MCP server's tools, may depend on anything.
        and all(extension.path.startswith("builtin:") for extension in session.extensions.extensions)
        and MCP_CLIENT_MODULE not in sys.modules
    )
    text = prompts[0].text if prompts else ""
    session_file = str(file) if file else ""
    return PromptFacts(recordable, text, manager.get_session_id(), session_file, model_key(session.model))


async def _run_mode(launched: Launched, mode: AppMode, out: RawStdout) -> int:
    from pi_harness.cli.early_request import recorder
    from pi_harness.cli.early_request.state import STATE as EARLY_STATE
    from pi_harness.cli.output import RecordWriter

    if mode != "rpc":
        recorder.arm(prompt_facts(launched))
    if mode == "rpc":
        from pi_harness.cli.modes.rpc.mode import run_rpc_mode

        return await run_rpc_mode(launched.runtime, RecordWriter(out))
    if mode == "json":
        from pi_harness.cli.modes.json_mode import run_json_mode

        code = await run_json_mode(launched.runtime, launched.prompts, RecordWriter(out))
    else:
        from pi_harness.cli.modes.print_mode import run_print_mode

        code = await run_print_mode(launched.runtime, launched.prompts, out)
    if EARLY_STATE.rehearse:  # the session is closed: its files are as the next run finds them
        from pi_harness.cli.early_request import rehearsal

        try:
            rehearsal.save()
        except Exception:  # a record for the next run never changes how this one ends
            pass
    return code
