"""scripts/record-goldens: play the scenarios with the real Pi 1.4.0 and write the goldens.

    scripts/record-goldens [--list] [--out DIR] [--ours] [SCENARIO ...]

Without names, every scenario is recorded (and the RpcClient golden, see test_rpc_client.py).
Names may be shell-style patterns (``'rpc_*'``). ``--out DIR`` writes elsewhere than
tests/fixtures/conformance. ``--ours`` plays our ``pi`` instead of the reference, to look at our
output in the same normalised form (only with ``--out``, never over the goldens).

The reference is found through ``$PI_REFERENCE`` (the install directory or its ``pi14``),
/work/pi-ref, ``$TMPDIR/pi-reference``, or else by running ``../shared/tools/pi-reference``
beside the checkout. Without one the script says so and exits with code 0 without recording.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import tempfile
import time
from pathlib import Path

import _golden
from _normalize import normalize
from _programs import GOLDENS, find_reference, our_package_roots, our_pi
from _runner import play
from scenarios import SCENARIOS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="record-goldens", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="scenarios to record (shell patterns); default: all")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--out", type=Path, help=f"write here instead of {GOLDENS}")
    parser.add_argument("--ours", action="store_true", help="play our pi instead of Pi 1.4.0 (needs --out)")
    options = parser.parse_args(argv)

    if options.list:
        for scenario in SCENARIOS:
            print(f"{scenario.name:36} {scenario.description}")
        return 0
    if options.ours and options.out is None:
        parser.error("--ours needs --out: the goldens are Pi 1.4.0's output only")

    selected = [s for s in SCENARIOS if not options.names or any(fnmatch.fnmatch(s.name, n) for n in options.names)]
    if options.names and not selected:
        parser.error(f"no scenario matches {options.names}")
    record_rpc_client = not options.names or any(fnmatch.fnmatch("rpc_client", n) for n in options.names)

    if options.ours:
        command, roots, reference = our_pi(), our_package_roots(), None
    else:
        reference, looked = find_reference(install=True)
        if reference is None:
            print(
                "record-goldens: skipped: the reference Pi 1.4.0 is not installed "
                f"(looked at {looked}); set PI_REFERENCE to its install directory",
                file=sys.stderr,
            )
            return 0
        command, roots = reference.command(), reference.package_roots()
        print(f"record-goldens: reference Pi at {reference.root}", file=sys.stderr)

    out = options.out or GOLDENS
    failures = 0
    for scenario in selected:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="pi-conf-") as tmp:
            raw = play(scenario, command, Path(tmp))
            golden = normalize(raw, roots)
            args = [list(run.args) for run in scenario.runs]
            _golden.write(scenario.name, golden, args, out)
        problems = [f"run {i}: {e}" for i, run in enumerate(golden["runs"], 1) for e in run["errors"]]
        status = "ok" if not problems else "PROBLEM " + "; ".join(problems)
        failures += bool(problems)
        print(f"{scenario.name:36} {time.monotonic() - started:5.1f}s {status}", file=sys.stderr)
    if record_rpc_client and not options.ours and reference is not None:
        from test_rpc_client import record_golden

        print(record_golden(reference, out), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
