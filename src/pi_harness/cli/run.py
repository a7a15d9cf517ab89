"""``run_session(parsed)``: everything after argument parsing (modes-and-cli.md section 4).

Mode choice and stdout takeover, ``--export``, the startup bootstrap, the post-checks, initial
input, and the dispatch to the print, json, rpc or interactive mode.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator

from pi_harness.cli import timing
from pi_harness.cli.args import ParsedArgs
from pi_harness.cli.bootstrap import (
    StartupError,
    describe_no_model,
    fatal_diagnostics,
    prepare_boot,
    start_runtime,
)
from pi_harness.cli.mode import detect_app_mode, reads_piped_stdin

YOUNG_GENERATION_THRESHOLD = 10_000  # CPython's default is 700 allocations


def _warn(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def startup_collection_paused() -> Iterator[None]:
    """No cyclic garbage collection while the session is loaded, then freeze what is alive.

    Startup creates long-lived objects in bulk (a 50k-entry session file is millions of dicts and
    strings): every collection during the load traverses all of them again, which doubled the
    time to the first request. Afterwards they are moved out of the collector's sight
    (``gc.freeze``), so later collections only look at new objects; reference counting still
    frees everything as usual. The youngest generation is also collected less often: building
    one request for a long session allocates hundreds of thousands of short-lived containers.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        threshold, *older = gc.get_threshold()
        gc.set_threshold(max(threshold, YOUNG_GENERATION_THRESHOLD), *older)
        if enabled:
            gc.enable()


def _export(parsed: ParsedArgs) -> int:
    paths = parsed.export_paths()
    assert paths is not None
    from pi_harness.cli.export import export_file_html

    try:
        target = export_file_html(paths[0], paths[1])
    except Exception as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    print(f"Exported to: {target}")
    return 0


async def run_session(parsed: ParsedArgs) -> int:
    timing.start()
    if parsed.export is not None:
        return _export(parsed)
    mode = detect_app_mode(parsed)
    if mode == "interactive":
        from pi_harness.cli import bootstrap, crash_log, initial_input
        from pi_harness.cli.modes.interactive.app import run_interactive

        return await run_interactive(parsed, bootstrap=bootstrap, initial_input=initial_input, crash_log=crash_log)

    from pi_harness.cli.crash_log import announce_previous_crash
    from pi_harness.cli.initial_input import FileArgumentError, prepare_initial_input
    from pi_harness.cli.stdout_guard import take_over_stdout

    takeover = take_over_stdout()
    try:
        notice = announce_previous_crash()
        if notice:
            _warn(notice)
        try:
            with startup_collection_paused():
                boot = await prepare_boot(parsed, mode)
                trusted = boot.trust.effective(interactive=False)
                if boot.trust.needs_prompt:
                    _warn("Project resources skipped: this project is not trusted (pass --approve to load them).")
                started = await start_runtime(boot, trusted, on_warning=_warn)
        except StartupError as exc:
            if str(exc):
                print(str(exc), file=sys.stderr)
            return exc.code
        runtime = started.runtime
        for line in started.diagnostics:
            _warn(line)
        fatal = fatal_diagnostics(started.diagnostics)
        if fatal is not None or any(d.startswith("Error:") for d in started.diagnostics):
            if fatal is not None:
                _warn(fatal)
            await runtime.shutdown()
            return 1
        if started.model_fallback_message:
            _warn(started.model_fallback_message)
        if runtime.session.model is None:
            _warn(describe_no_model())
            await runtime.shutdown()
            return 1
        timing.mark("startup")
        timing.print_timings()

        if mode == "rpc":
            from pi_harness.cli.output import RecordWriter
            from pi_harness.cli.rpc.mode import run_rpc_mode

            return await run_rpc_mode(runtime, RecordWriter(takeover.raw))

        try:
            initial = prepare_initial_input(
                started.parsed.messages,
                started.parsed.file_args,
                read_stdin=reads_piped_stdin(mode),
                auto_resize=bool(runtime.session.settings.get("images.autoResize", True)),
                cwd=str(boot.cwd),
            )
        except FileArgumentError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            await runtime.shutdown()
            return 1
        from pi_harness.cli.modes.common import PromptInput

        prompts: list[PromptInput] = []
        if initial.message:
            prompts.append(PromptInput(initial.message, list(initial.images)))
        prompts += [PromptInput(text) for text in initial.messages]
        if mode == "json":
            from pi_harness.cli.modes.json_mode import run_json_mode
            from pi_harness.cli.output import RecordWriter

            return await run_json_mode(runtime, prompts, RecordWriter(takeover.raw))
        from pi_harness.cli.modes.print_mode import run_print_mode

        return await run_print_mode(runtime, prompts, takeover.raw)
    finally:
        takeover.raw.flush()
