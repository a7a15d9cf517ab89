"""``pi batch TASKS.jsonl`` and ``pi batch report RESULTS.jsonl`` (beyond Pi; docs/batch.md)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from pi_harness.cli.subcommands.common import UsageError, parse_command_args

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_harness.cli.batch.runner import BatchOptions, BatchSummary

HELP = """Usage:
  pi batch <tasks.jsonl> [options]
  pi batch report <results.jsonl | out dir> [--compare <other results>]

Run every task of a JSON Lines file in its own headless session, several at once, and write
one result per task to <out>/results.jsonl as each one ends (see docs/batch.md).

Options:
  -o, --out <dir>          Where results.jsonl, the sessions and the working directories go
                           (default: <tasks file without .jsonl>.batch/ beside the tasks file)
  -j, --jobs <n>           Tasks run at the same time on this machine (default 1)
  --ray <address>          Run on Ray instead: "auto" (the cluster this machine belongs to),
                           a cluster address, or "local" (a private Ray on this machine)
  --ray-retries <n>        Retries of a task whose Ray worker died (default 3)
  --resume                 Skip the tasks that results.jsonl already has as finished
  --overwrite              Start again, replacing results.jsonl
  --model <pattern>        Model of tasks that name none
  --tools <a,b,...>        Tools of tasks that name none
  --thinking <level>       Thinking level of tasks that name none
  --max-turns <n>          Budgets of tasks that set none: turns, total tokens, cost in USD
  --max-tokens <n>
  --max-cost <usd>
  --timeout <seconds>      Timeout of tasks that set none (default: none)
  --approve                Load each project's .pi/ resources (trust the task directories)

Exit code: 0 when every task succeeded, 1 when one did not, 130 after Ctrl+C, 2 for bad input."""

RUN_VALUES = (
    "--out",
    "--jobs",
    "--ray",
    "--ray-retries",
    "--model",
    "--tools",
    "--thinking",
    "--max-turns",
    "--max-tokens",
    "--max-cost",
    "--timeout",
)
RUN_SWITCHES = ("--resume", "--overwrite", "--approve", "--help")


def run_batch_command(argv: Sequence[str]) -> int:
    try:
        if argv and argv[0] == "report":
            return _report(argv[1:])
        return _run(argv)
    except UsageError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2


def _run(argv: Sequence[str]) -> int:
    from pi_harness.cli.batch.runner import BatchError, BatchOptions
    from pi_harness.cli.batch.tasks import Budgets, TaskFileError
    from pi_harness.optional_deps import MissingDependencyError

    args = parse_command_args(
        "batch",
        argv,
        value_options=RUN_VALUES,
        switches=RUN_SWITCHES,
        aliases={"-o": "--out", "-j": "--jobs", "-h": "--help"},
    )
    if "--help" in args.switches or not args.positionals:
        print(HELP)
        return 0 if "--help" in args.switches else 2
    if len(args.positionals) > 1:
        raise UsageError(f"one tasks file expected, got {len(args.positionals)}")
    if "--resume" in args.switches and "--overwrite" in args.switches:
        raise UsageError("--resume and --overwrite exclude each other")
    tasks_file = Path(args.positionals[0])
    out = Path(args.values["--out"]) if "--out" in args.values else _default_out(tasks_file)
    values = args.values
    tools = values.get("--tools")
    options = BatchOptions(
        tasks_file=tasks_file,
        results=out / "results.jsonl",
        jobs=_int(values, "--jobs", 1) or 1,
        ray=values.get("--ray"),
        ray_retries=_count(values, "--ray-retries", 3),
        resume="--resume" in args.switches,
        overwrite="--overwrite" in args.switches,
        model=values.get("--model"),
        tools=tuple(t.strip() for t in tools.split(",") if t.strip()) if tools is not None else None,
        thinking=values.get("--thinking"),
        budgets=Budgets(
            _int(values, "--max-turns", None), _int(values, "--max-tokens", None), _float(values, "--max-cost")
        ),
        timeout=_float(values, "--timeout"),
        approve="--approve" in args.switches,
    )
    try:
        summary = asyncio.run(_run_with_signals(options))
    except TaskFileError as error:
        for problem in error.problems:
            print(f"Error: {problem}", file=sys.stderr)
        return 2
    except (BatchError, OSError, MissingDependencyError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    counts = summary.counts
    parts = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    print(f"{len(summary.results)} task(s) run ({parts or 'none'}); results in {options.results}", file=sys.stderr)
    if summary.aborted:
        return 130
    return 0 if summary.all_succeeded else 1


async def _run_with_signals(options: BatchOptions) -> BatchSummary:
    """The batch with Ctrl+C (and SIGTERM) aborting the running tasks; a second one kills them."""
    from pi_harness.cli.batch.execution import kill_all_live
    from pi_harness.cli.batch.progress import Progress
    from pi_harness.cli.batch.runner import run_batch

    abort = asyncio.Event()
    loop = asyncio.get_running_loop()
    progress = Progress(0, options.jobs)

    def interrupt() -> None:
        if abort.is_set():
            kill_all_live()
            return
        abort.set()
        progress.note("Stopping: aborting the running tasks (Ctrl+C again to kill them now)")

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupt)
    try:
        return await run_batch(options, progress=progress, abort=abort)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


def _default_out(tasks_file: Path) -> Path:
    name = tasks_file.name[: -len(".jsonl")] if tasks_file.name.endswith(".jsonl") else tasks_file.name
    return tasks_file.parent / f"{name}.batch"


def _int(values: dict[str, str], name: str, default: int | None, *, minimum: int = 1) -> int | None:
    raw = values.get(name)
    if raw is None:
        return default
    try:
        number = int(raw)
    except ValueError:
        raise UsageError(f"{name} needs a whole number, got {raw!r}") from None
    if number < minimum:
        raise UsageError(f"{name} must be at least {minimum}")
    return number


def _count(values: dict[str, str], name: str, default: int) -> int:
    number = _int(values, name, default, minimum=0)
    return default if number is None else number


def _float(values: dict[str, str], name: str) -> float | None:
    raw = values.get(name)
    if raw is None:
        return None
    try:
        number = float(raw)
    except ValueError:
        raise UsageError(f"{name} needs a number, got {raw!r}") from None
    if not number > 0:
        raise UsageError(f"{name} must be more than 0")
    return number


def _results_path(raw: str) -> Path:
    path = Path(raw)
    return path / "results.jsonl" if path.is_dir() else path


def _report(argv: Sequence[str]) -> int:
    from pi_harness.cli.batch.report import compare_lines, summary_lines
    from pi_harness.cli.batch.results import read_results

    args = parse_command_args("batch report", argv, value_options=("--compare",), switches=("--help",))
    if "--help" in args.switches or len(args.positionals) != 1:
        print(HELP)
        return 0 if "--help" in args.switches else 2
    path = _results_path(args.positionals[0])
    if not path.is_file():
        raise UsageError(f"no results file at {path}")
    results, skipped = read_results(path)
    if skipped:
        print(f"Warning: {skipped} unreadable line(s) in {path} skipped", file=sys.stderr)
    lines = summary_lines(results, title=f"Results: {path}")
    other_raw = args.values.get("--compare")
    if other_raw is not None:
        other_path = _results_path(other_raw)
        if not other_path.is_file():
            raise UsageError(f"no results file at {other_path}")
        other, skipped = read_results(other_path)
        if skipped:
            print(f"Warning: {skipped} unreadable line(s) in {other_path} skipped", file=sys.stderr)
        lines += ["", *summary_lines(other, title=f"Compared with: {other_path}"), "", *compare_lines(results, other)]
    print("\n".join(lines))
    return 0
