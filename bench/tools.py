"""Built-in tools benchmark: grep/find over 50k files, read of a 100 MB file, bash streaming 100 MB.

    .venv/bin/python bench/tools.py                      # every case
    .venv/bin/python bench/tools.py --cases grep_tool_rg,grep_raw_rg
    .venv/bin/python bench/tools.py --files 20000         # a smaller tree

Each case runs in a fresh subprocess, so the peak RSS (``ru_maxrss``) it reports is its own; for
cases that spawn ``rg`` the children's peak is shown too. Times are the median (and minimum) of
several runs in a warm page cache. Reference points: raw ``rg`` with the same search (its output
read through a pipe, as ``rg`` short-circuits when writing to /dev/null), ``rg --files``,
``os.walk``, reading a whole file into memory (what Pi does) and draining a pipe without a tool.
Target: the grep tool within 1.2x of raw ``rg`` on the same tree.
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_RATIO = 1.2
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]
RARE = "needle_token"
BIG_FILE_MB = 100
BASH_BYTES = 100_000_000


def generate_tree(root: Path, files: int, seed: int = 1) -> None:
    """``files`` Python-like files in pkg*/mod*/ plus ignored build output and logs."""
    rng = random.Random(seed)
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    per_dir = 100
    for index in range(files):
        directory = root / f"pkg{index // (per_dir * 10)}" / f"mod{(index // per_dir) % 10}"
        if index % per_dir == 0:
            directory.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(30)]
        if rng.random() < 0.001:
            lines.append(f"{RARE} here")
        (directory / f"file{index % per_dir}.py").write_text("\n".join(lines) + "\n")
    build = root / "build"
    build.mkdir()
    for index in range(1000):
        (build / f"out{index}.py").write_text(f"{RARE} in ignored build output\n")
        (root / f"pkg0/mod0/trace{index}.log").write_text(f"{RARE} in an ignored log\n")


def generate_big_file(path: Path, megabytes: int) -> int:
    line = ("x" * 99 + "\n").encode()
    block = line * 10_000  # 1 MB
    with open(path, "wb") as handle:
        for _ in range(megabytes):
            handle.write(block)
    return megabytes * 10_000


# --- cases (run inside the measuring subprocess) ------------------------------------------------


def _tool_call(factory: Callable[..., Any], cwd: str, params: dict[str, Any], **options: Any) -> Callable[[], Any]:
    from pi_harness.coding.tools import ToolOptions

    tool = factory(cwd, ToolOptions(**options))

    def run() -> Any:
        return asyncio.run(tool.execute("bench", params, None, None))

    return run


def _raw(args: list[str]) -> Callable[[], Any]:
    def run() -> Any:
        return subprocess.run(args, stdout=subprocess.PIPE, check=False).stdout

    return run


def _os_walk(root: str) -> Callable[[], Any]:
    def run() -> list[str]:
        found = []
        for directory, _dirs, names in os.walk(root):
            found += [os.path.join(directory, name) for name in names if fnmatch.fnmatch(name, "*.py")]
        return found

    return run


def _read_naive(path: str, start: int, limit: int) -> Callable[[], Any]:
    def run() -> str:
        lines = Path(path).read_bytes().decode("utf-8", "replace").split("\n")
        return "\n".join(lines[start : start + limit])

    return run


def _drain(command: str) -> Callable[[], Any]:
    def run() -> int:
        total = 0
        with subprocess.Popen(["/bin/bash", "-c", command], stdout=subprocess.PIPE) as proc:
            assert proc.stdout is not None
            while chunk := proc.stdout.read(256 * 1024):
                total += len(chunk)
        return total

    return run


def build_case(name: str, root: str, big: str) -> tuple[Callable[[], Any], int]:
    from pi_harness.coding.tools import create_bash_tool, create_find_tool, create_grep_tool, create_read_tool
    from pi_harness.coding.tools.ripgrep import find_ripgrep

    rg = find_ripgrep() or "rg"
    bash_command = f"yes {'y' * 49} | head -c {BASH_BYTES}"
    cases: dict[str, tuple[Callable[[], Any], int]] = {
        "grep_raw_rg": (_raw([rg, "-n", "--hidden", RARE, root]), 7),
        "grep_tool_rg": (_tool_call(create_grep_tool, root, {"pattern": RARE}, use_ripgrep=True), 7),
        "grep_tool_walker": (_tool_call(create_grep_tool, root, {"pattern": RARE}, use_ripgrep=False), 3),
        "grep_frequent_raw_rg": (_raw([rg, "-n", "--hidden", "alpha", root]), 3),
        "grep_frequent_tool_rg": (_tool_call(create_grep_tool, root, {"pattern": "alpha"}, use_ripgrep=True), 7),
        "find_raw_rg_files": (_raw([rg, "--files", "--hidden", root]), 7),
        "find_raw_os_walk": (_os_walk(root), 5),
        "find_tool_rg": (_tool_call(create_find_tool, root, {"pattern": "*.py"}, use_ripgrep=True), 7),
        "find_tool_walker": (_tool_call(create_find_tool, root, {"pattern": "*.py"}, use_ripgrep=False), 3),
        "read_naive_whole_file": (_read_naive(big, 500_000, 100), 3),
        "read_tool_offset": (_tool_call(create_read_tool, root, {"path": big, "offset": 500_001, "limit": 100}), 3),
        "bash_raw_drain": (_drain(bash_command), 2),
        "bash_tool_100mb": (_tool_call(create_bash_tool, root, {"command": bash_command}), 2),
    }
    return cases[name]


def run_case(name: str, root: str, big: str) -> None:
    """Measure one case in this process and print one JSON line."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    run, repeat = build_case(name, root, big)
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    self_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "case": name,
                "median": statistics.median(seconds),
                "min": min(seconds),
                "baseline_mb": before / 1024,
                "peak_mb": self_peak / 1024,
                "children_peak_mb": children_peak / 1024,
            }
        )
    )


# --- orchestration ---------------------------------------------------------------------------


ALL_CASES = [
    "grep_raw_rg",
    "grep_tool_rg",
    "grep_tool_walker",
    "grep_frequent_raw_rg",
    "grep_frequent_tool_rg",
    "find_raw_rg_files",
    "find_raw_os_walk",
    "find_tool_rg",
    "find_tool_walker",
    "read_naive_whole_file",
    "read_tool_offset",
    "bash_raw_drain",
    "bash_tool_100mb",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=",".join(ALL_CASES))
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--big", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run_case(args.run, args.root, args.big)
        return
    with tempfile.TemporaryDirectory(prefix="pi-bench-tools-") as scratch:
        root = Path(scratch) / "tree"
        started = time.perf_counter()
        generate_tree(root, args.files)
        big = Path(scratch) / "big.txt"
        lines = generate_big_file(big, BIG_FILE_MB)
        print(
            f"tree: {args.files} files (+2000 ignored), {BIG_FILE_MB} MB file of {lines} lines; "
            f"generated in {time.perf_counter() - started:.1f}s\n"
        )
        results: dict[str, dict[str, Any]] = {}
        print(f"{'case':<24}{'median s':>10}{'min s':>9}{'peak MB':>9}{'base MB':>9}{'rg MB':>8}")
        for case in [name for name in args.cases.split(",") if name]:
            output = subprocess.run(
                [sys.executable, __file__, "--run", case, "--root", str(root), "--big", str(big)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "TMPDIR": scratch},  # the bash tool's full-output files go there
            ).stdout
            result = json.loads(output.strip().splitlines()[-1])
            results[case] = result
            print(
                f"{case:<24}{result['median']:>10.3f}{result['min']:>9.3f}{result['peak_mb']:>9.1f}"
                f"{result['baseline_mb']:>9.1f}{result['children_peak_mb']:>8.1f}"
            )
        if "grep_raw_rg" in results and "grep_tool_rg" in results:
            ratio = results["grep_tool_rg"]["median"] / results["grep_raw_rg"]["median"]
            best = results["grep_tool_rg"]["min"] / results["grep_raw_rg"]["min"]
            verdict = "within" if min(ratio, best) <= TARGET_RATIO else "OVER"
            print(
                f"\ngrep tool (rg) / raw rg: {ratio:.2f}x by median, {best:.2f}x by best run "
                f"({verdict} the {TARGET_RATIO}x target)"
            )


if __name__ == "__main__":
    main()
