"""``run_session(parsed)``: everything after argument parsing.

``--export`` needs no session; otherwise the mode is chosen (``cli/mode.py``) and run: the
interactive mode, or print, JSON and RPC (``cli/modes/headless.py``). Both start the session
through the same sequence, ``cli/startup.py``.
"""

from __future__ import annotations

import sys

from pi_harness.cli import timing
from pi_harness.cli.args import ParsedArgs
from pi_harness.cli.mode import detect_app_mode


def _export(parsed: ParsedArgs) -> int:
    paths = parsed.export_paths()
    assert paths is not None
    from pi_harness.cli.export import export_file_html

    try:
        target = export_file_html(paths[0], paths[1], api_key=parsed.api_key)
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
    if mode not in ("print", "json"):
        from pi_harness import early_exchange
        from pi_harness.cli.early_request.replay import stop_tracing

        stop_tracing()  # only a print or JSON run's first request is recorded (or sent ahead)
        early_exchange.discard()
    if mode == "interactive":
        from pi_harness.cli.modes.interactive.app import run_interactive

        return await run_interactive(parsed)
    from pi_harness.cli.modes.headless import run_headless

    return await run_headless(parsed, mode)
