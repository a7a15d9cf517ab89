"""One task's session: ``python -m pi_harness.cli.batch.worker SETTINGS_JSON PI_ARGS...``.

It is the ``pi`` command itself (JSON mode, every event on stdout) with the task's runtime
settings (its budgets) laid over the user's settings files, which stay shared and unwritten.
A separate process per task keeps tasks apart: a crash, a hung tool or a leaking extension ends
with its own task, and a timeout or Ctrl+C reaches the session through its signal handling.
"""

from __future__ import annotations

import sys

import orjson


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m pi_harness.cli.batch.worker SETTINGS_JSON PI_ARGS...", file=sys.stderr)
        return 2
    try:
        overrides = orjson.loads(args[0])
    except orjson.JSONDecodeError as error:
        print(f"Error: the worker's settings are not JSON: {error}", file=sys.stderr)
        return 2
    if not isinstance(overrides, dict):
        print("Error: the worker's settings must be a JSON object", file=sys.stderr)
        return 2
    from pi_harness.cli.main import main as pi_main

    return pi_main(args[1:], settings_overrides=overrides)


if __name__ == "__main__":
    raise SystemExit(main())
