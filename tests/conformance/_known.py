"""Show or update the known differences (known_differences.py).

    python tests/conformance/_known.py [--update] [--from DIR] [SCENARIO ...]

Plays the scenarios with our ``pi`` (or reads our output recorded with ``scripts/record-goldens
--ours --out DIR`` when ``--from DIR`` is given), compares with the goldens and prints, per
scenario, the differences that are new (not listed) and the listed ones that are gone (fixed).
``--update`` rewrites known_differences.py for the scenarios played: gone entries are dropped, new
ones are added with the reason code of the first matching rule in _reasons.py (``--reclassify``:
every entry gets its code from the rules again, after a rule was changed). A difference no
rule matches is written as ``unclassified`` and the command exits with 1: add a rule and a reason.
Names may be shell patterns; ``rpc_client`` is the RpcClient test (needs Node 22 and the reference).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import _golden
from _compare import compare
from _reasons import REASONS, classify
from _suite import differences
from known_differences import KNOWN
from scenarios import SCENARIOS

HERE = Path(__file__).resolve().parent
KNOWN_FILE = HERE / "known_differences.py"
RPC_CLIENT = "rpc_client"

HEADER = '''"""The known differences between our output and Pi 1.4.0's, per scenario. Generated and kept up
to date by ``python tests/conformance/_known.py --update`` (see README.md); review it like code.

Each entry is a difference line of the comparator (``_compare.py``) with its reason code; the code's
one-line reason and the issue point it belongs to are in ``_reasons.REASONS``. The tests require
the differences to be exactly these: a fix makes an entry go away (remove it), a regression adds one.
"""

KNOWN: dict[str, dict[str, str]] = {
'''


def client_summary(entries: dict[str, str]) -> list[str]:
    """Comment lines naming the RpcClient methods whose answers are (not) shaped like Pi's."""
    golden = _golden.GOLDENS / RPC_CLIENT / "result.json"
    if not golden.is_file():
        return []
    methods = [call["method"] for call in json.loads(golden.read_text())["calls"]]
    differing = set()
    for line in entries:
        rest = line.removeprefix("method ")
        named = [m for m in methods if rest.startswith((f"{m}:", f"{m} "))]
        if named:
            differing.add(max(named, key=len))
    same = [m for m in methods if m not in differing]
    wrapped = textwrap.wrap(", ".join(same), 92)
    summary = ["    # RpcClient methods answered like Pi:\n"] + [f"    #   {line}\n" for line in wrapped]
    wrapped = textwrap.wrap(", ".join(m for m in methods if m in differing), 92)
    summary += ["    # RpcClient methods answered unlike Pi (the entries below):\n"]
    return summary + [f"    #   {line}\n" for line in wrapped]


def render(known: dict[str, dict[str, str]]) -> str:
    order = [s.name for s in SCENARIOS] + [RPC_CLIENT]
    names = [n for n in order if n in known] + sorted(n for n in known if n not in order)
    lines = [HEADER]
    for name in names:
        entries = known[name]
        if not entries:
            lines.append(f"    {json.dumps(name)}: {{}},\n")
            continue
        if name == RPC_CLIENT:
            lines += client_summary(entries)
        lines.append(f"    {json.dumps(name)}: {{\n")
        for line in sorted(entries):
            lines.append(f"        {json.dumps(line, ensure_ascii=False)}: {json.dumps(entries[line])},\n")
        lines.append("    },\n")
    lines.append("}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="_known.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--update", action="store_true", help="rewrite known_differences.py")
    parser.add_argument(
        "--reclassify", action="store_true", help="with --update: codes from the rules again, for every entry"
    )
    parser.add_argument("--from", dest="source", type=Path, help="our output recorded with record-goldens --ours")
    options = parser.parse_args(argv)
    patterns = options.names or ["*"]
    selected = [s for s in SCENARIOS if any(fnmatch.fnmatch(s.name, p) for p in patterns)]
    with_client = any(fnmatch.fnmatch(RPC_CLIENT, p) for p in patterns)

    actual: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="pi-known-") as tmp:
        for scenario in selected:
            if options.source is not None:
                ours = _golden.read(scenario.name, options.source)
                actual[scenario.name] = compare(_golden.read(scenario.name), ours)
            else:
                actual[scenario.name] = differences(scenario, Path(tmp) / scenario.name)
        if with_client:
            from test_rpc_client import client_differences

            result = client_differences(Path(tmp) / RPC_CLIENT)
            if isinstance(result, str):
                print(f"{RPC_CLIENT}: skipped: {result}", file=sys.stderr)
            else:
                actual[RPC_CLIENT] = result

    known = {name: dict(entries) for name, entries in KNOWN.items()}
    unclassified = 0
    for name, lines in actual.items():
        listed = known.get(name, {})
        new = [line for line in lines if line not in listed]
        gone = [line for line in listed if line not in lines]
        print(f"{name}: {len(lines)} differences, {len(new)} new, {len(gone)} gone")
        for line in new:
            print(f"  + {line}  [{classify(line, name)}]")
        for line in gone:
            print(f"  - {line}  [{listed[line]}]")
        if options.update:
            entries = {
                line: listed[line]
                if line in listed and listed[line] in REASONS and not options.reclassify
                else classify(line, name)
                for line in lines
            }
            unclassified += sum(code not in REASONS for code in entries.values())
            known[name] = entries
    if options.update:
        known = {name: entries for name, entries in known.items() if name in {s.name for s in SCENARIOS} | {RPC_CLIENT}}
        KNOWN_FILE.write_text(render(known))
        ruff = Path(sys.executable).with_name("ruff")
        if ruff.exists():  # keep the file as `ruff format` would write it
            subprocess.run([str(ruff), "format", "-q", str(KNOWN_FILE)], check=False)
        print(f"wrote {KNOWN_FILE}", file=sys.stderr)
        if unclassified:
            print(f"{unclassified} difference(s) unclassified: add rules to _reasons.py", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
