"""Running one task: its working directory, its headless session in a worker process, its check.

The outcome is always a result record (``results.py``), never an exception: a task that cannot
start, crashes, times out or is aborted is a result like a task that succeeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from pi_harness.cli.batch.results import TaskResult
from pi_harness.cli.batch.stream_stats import StreamStats
from pi_harness.cli.batch.tasks import Budgets, Task
from pi_harness.cli.batch.workdir import WorkdirError, task_workdir

# A worker asked to stop (timeout, Ctrl+C) gets this long to abort its run and close its
# session file before it is killed.
STOP_GRACE_S = 10.0
DEFAULT_CHECK_TIMEOUT_S = 300.0
CHECK_OUTPUT_LIMIT = 4000
STDERR_TAIL_LINES = 20
# Events carry whole tool results; a line may be far longer than asyncio's 64 KiB default.
STREAM_LINE_LIMIT = 256 * 1024 * 1024
# Process groups of the workers and checks running now: a second Ctrl+C kills them at once.
LIVE_GROUPS: set[int] = set()


def kill_all_live() -> None:
    for pid in list(LIVE_GROUPS):
        _signal_group(pid, signal.SIGKILL)


@dataclass(frozen=True)
class BatchContext:
    """What every task of one batch shares (picklable: it travels to Ray workers)."""

    base_dir: str  # relative ``cwd``/``repo`` of tasks are resolved against the tasks file's dir
    work_root: str  # per-task working directories
    sessions_root: str  # per-task session directories
    model: str | None = None
    tools: tuple[str, ...] | None = None
    thinking: str | None = None
    budgets: Budgets = field(default_factory=Budgets)
    timeout: float | None = None
    approve: bool = False
    extra_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    python: str = sys.executable


def worker_command(task: Task, ctx: BatchContext, session_dir: Path) -> list[str]:
    settings = task.budgets.merged_over(ctx.budgets).settings()
    args = [ctx.python, "-m", "pi_harness.cli.batch.worker", orjson.dumps(settings).decode()]
    args += ["--mode", "json", "--session-dir", str(session_dir)]
    model = task.model or ctx.model
    if model:
        args += ["--model", model]
    tools = task.tools if task.tools is not None else ctx.tools
    if tools is not None:
        args += ["--tools", ",".join(tools)] if tools else ["--no-tools"]
    thinking = task.thinking or ctx.thinking
    if thinking:
        args += ["--thinking", thinking]
    if ctx.approve:
        args.append("--approve")
    return [*args, *ctx.extra_args]


async def run_task(task: Task, ctx: BatchContext, abort: asyncio.Event | None = None) -> TaskResult:
    """Run ``task`` to its result; ``abort`` being set stops it as ``aborted``."""
    abort = abort or asyncio.Event()
    result = TaskResult(id=task.id, status="error", started_at=_now())
    started = time.monotonic()
    try:
        await _run(task, ctx, abort, result)
    finally:
        result.wall_seconds = round(time.monotonic() - started, 3)
        result.ended_at = _now()
    return result


async def _run(task: Task, ctx: BatchContext, abort: asyncio.Event, result: TaskResult) -> None:
    try:
        cwd = await asyncio.to_thread(task_workdir, task, Path(ctx.base_dir), Path(ctx.work_root))
    except (WorkdirError, OSError) as error:
        result.error = f"working directory: {error}"
        return
    result.cwd = str(cwd)
    session_dir = Path(ctx.sessions_root) / task.id
    session_dir.mkdir(parents=True, exist_ok=True)
    before = set(session_dir.glob("*.jsonl"))
    env = {**os.environ, **ctx.env, **task.env, "PI_BATCH_TASK_ID": task.id}
    stats = StreamStats()
    outcome = await _session(task, ctx, cwd, session_dir, env, stats, abort)
    result.turns, result.tokens, result.cost = stats.turns, stats.tokens, round(stats.cost, 6)
    result.exit_code = outcome.exit_code
    result.session_file = _new_session_file(session_dir, before)
    if result.session_file:
        env["PI_BATCH_SESSION_FILE"] = result.session_file
    if outcome.stopped_by is not None:
        result.status = "timeout" if outcome.stopped_by == "timeout" else "aborted"
        result.error = "timed out" if result.status == "timeout" else "aborted by the user"
        return
    if outcome.exit_code != 0 or stats.error is not None:
        result.status = "error"
        result.error = stats.error or outcome.stderr_tail or f"the session exited with {outcome.exit_code}"
        return
    if task.check is not None:
        check = await _check(task.check, cwd, env, task.check_timeout or DEFAULT_CHECK_TIMEOUT_S, abort)
        result.check = check
        if check.get("aborted"):
            result.status, result.error = "aborted", "aborted by the user"
            return
    if stats.budget is not None:
        result.status = "budget_exceeded"
        result.budget = stats.budget
        return
    passed = task.check is None or (result.check is not None and result.check.get("exitCode") == 0)
    result.status = "succeeded" if passed else "failed"


@dataclass
class _SessionOutcome:
    exit_code: int | None
    stopped_by: str | None  # "timeout" | "aborted"
    stderr_tail: str


async def _session(
    task: Task,
    ctx: BatchContext,
    cwd: Path,
    session_dir: Path,
    env: dict[str, str],
    stats: StreamStats,
    abort: asyncio.Event,
) -> _SessionOutcome:
    process = await asyncio.create_subprocess_exec(
        *worker_command(task, ctx, session_dir),
        cwd=str(cwd),
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=STREAM_LINE_LIMIT,
        start_new_session=True,  # its own process group: stopped as a whole, deaf to our terminal
        preexec_fn=_die_with_parent,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    LIVE_GROUPS.add(process.pid)
    try:
        return await _watch(task, ctx, process, stats, abort)
    finally:
        LIVE_GROUPS.discard(process.pid)


async def _watch(
    task: Task, ctx: BatchContext, process: asyncio.subprocess.Process, stats: StreamStats, abort: asyncio.Event
) -> _SessionOutcome:
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    stderr_lines: list[str] = []
    readers = asyncio.gather(
        _feed(process.stdin, task.prompt_text()),
        _read_events(process.stdout, stats.add),
        _read_tail(process.stderr, stderr_lines),
    )
    timeout = task.timeout or ctx.timeout
    stopped_by: str | None = None
    waiter = asyncio.ensure_future(process.wait())
    aborted = asyncio.ensure_future(abort.wait())
    try:
        done, _ = await asyncio.wait({waiter, aborted}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            stopped_by = "aborted" if aborted in done else "timeout"
            await _stop(process, waiter)
    except asyncio.CancelledError:
        # The caller went away (a Ray cancel, the event loop closing): never leave the worker.
        await asyncio.shield(_stop(process, waiter))
        raise
    finally:
        aborted.cancel()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(readers, timeout=STOP_GRACE_S)
    return _SessionOutcome(process.returncode, stopped_by, "\n".join(stderr_lines[-STDERR_TAIL_LINES:]).strip())


async def _stop(process: asyncio.subprocess.Process, waiter: asyncio.Future[int]) -> None:
    """SIGTERM to the worker's group (it aborts and closes its session file), then SIGKILL."""
    _signal_group(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.shield(waiter), timeout=STOP_GRACE_S)
    except TimeoutError:
        _signal_group(process.pid, signal.SIGKILL)
        await waiter


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _die_with_parent() -> None:
    """Linux: the worker gets SIGTERM if the batch process dies (even by SIGKILL): no orphans.

    Runs in the child between fork and exec, so it only calls what the parent prepared.
    """
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _load_prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        function: Callable[[int, int], int] = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function


_PRCTL = _load_prctl()


async def _feed(stdin: asyncio.StreamWriter, text: str) -> None:
    with contextlib.suppress(ConnectionError, BrokenPipeError):
        stdin.write(text.encode())
        await stdin.drain()
    stdin.close()


async def _read_events(stdout: asyncio.StreamReader, on_event: Callable[[dict[str, object]], None]) -> None:
    while line := await stdout.readline():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            on_event(record)


async def _read_tail(stderr: asyncio.StreamReader, lines: list[str]) -> None:
    while line := await stderr.readline():
        lines.append(line.decode(errors="replace").rstrip())
        del lines[:-STDERR_TAIL_LINES]


async def _check(
    command: str, cwd: Path, env: Mapping[str, str], timeout: float, abort: asyncio.Event
) -> dict[str, object]:
    """Run the check in the task's directory; its exit code decides success."""
    process = await asyncio.create_subprocess_shell(
        command,
        cwd=str(cwd),
        env=dict(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    assert process.stdout is not None
    LIVE_GROUPS.add(process.pid)
    try:
        return await _finish_check(command, process, timeout, abort)
    finally:
        LIVE_GROUPS.discard(process.pid)


async def _finish_check(
    command: str, process: asyncio.subprocess.Process, timeout: float, abort: asyncio.Event
) -> dict[str, object]:
    assert process.stdout is not None
    output = asyncio.ensure_future(process.stdout.read())
    waiter = asyncio.ensure_future(process.wait())
    aborted = asyncio.ensure_future(abort.wait())
    record: dict[str, object] = {"command": command}
    try:
        done, _ = await asyncio.wait({waiter, aborted}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    if waiter not in done:
        _signal_group(process.pid, signal.SIGKILL)
        await waiter
        record["timedOut" if aborted not in done else "aborted"] = True
    text = (await output).decode(errors="replace")
    record["exitCode"] = process.returncode
    record["output"] = text[-CHECK_OUTPUT_LIMIT:]
    return record


def _new_session_file(directory: Path, before: set[Path]) -> str | None:
    created = sorted(set(directory.glob("*.jsonl")) - before, key=lambda p: p.stat().st_mtime)
    return str(created[-1]) if created else None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
