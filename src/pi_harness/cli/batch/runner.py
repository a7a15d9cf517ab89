"""``run_batch``: a tasks file in, ``results.jsonl`` out, locally (``jobs`` slots) or on Ray.

The same function serves ``pi batch`` and programs::

    summary = await run_batch(BatchOptions(tasks_file=Path("tasks.jsonl"), results=Path("out/results.jsonl"), jobs=4))
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.cli.batch.execution import BatchContext, run_task
from pi_harness.cli.batch.progress import Progress
from pi_harness.cli.batch.results import ResultsWriter, TaskResult, finished_ids, read_results
from pi_harness.cli.batch.tasks import Budgets, Task, load_tasks


class BatchError(RuntimeError):
    """The batch cannot start (the message is one line for the user)."""


@dataclass
class BatchOptions:
    tasks_file: Path
    results: Path
    jobs: int = 1
    ray: str | None = None  # "local", "auto" or a cluster address
    ray_retries: int = 3
    resume: bool = False
    overwrite: bool = False
    model: str | None = None
    tools: tuple[str, ...] | None = None
    thinking: str | None = None
    budgets: Budgets = field(default_factory=Budgets)
    timeout: float | None = None
    approve: bool = False
    work_dir: Path | None = None  # default: <results dir>/work
    sessions_dir: Path | None = None  # default: <results dir>/sessions
    extra_args: tuple[str, ...] = ()


@dataclass
class BatchSummary:
    results: list[TaskResult]
    skipped: int  # finished in an earlier run (``resume``)
    aborted: bool

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.status for r in self.results)

    @property
    def all_succeeded(self) -> bool:
        return all(r.status == "succeeded" for r in self.results)


def batch_context(options: BatchOptions) -> BatchContext:
    out = options.results.resolve().parent
    return BatchContext(
        base_dir=str(options.tasks_file.resolve().parent),
        work_root=str((options.work_dir or out / "work").resolve()),
        sessions_root=str((options.sessions_dir or out / "sessions").resolve()),
        model=options.model,
        tools=options.tools,
        thinking=options.thinking,
        budgets=options.budgets,
        timeout=options.timeout,
        approve=options.approve,
        extra_args=options.extra_args,
    )


def tasks_to_run(options: BatchOptions) -> tuple[list[Task], int]:
    """The tasks this run starts, and how many an earlier run already finished."""
    if options.jobs < 1:
        raise BatchError("--jobs must be at least 1")
    tasks = load_tasks(options.tasks_file)
    if not options.results.exists() or options.results.stat().st_size == 0:
        return tasks, 0
    if options.overwrite:
        options.results.unlink()
        return tasks, 0
    if not options.resume:
        raise BatchError(
            f"{options.results} already has results: pass --resume to run only the unfinished tasks, "
            "or --overwrite to start again"
        )
    done = finished_ids(read_results(options.results)[0].values())
    remaining = [t for t in tasks if t.id not in done]
    return remaining, len(tasks) - len(remaining)


async def run_batch(
    options: BatchOptions, *, progress: Progress | None = None, abort: asyncio.Event | None = None
) -> BatchSummary:
    tasks, skipped = tasks_to_run(options)
    ctx = batch_context(options)
    abort = abort or asyncio.Event()
    progress = progress or Progress(len(tasks), options.jobs)
    progress.total = len(tasks)
    if skipped:
        progress.note(f"Resuming: {skipped} task(s) already finished, {len(tasks)} to run")
    results: list[TaskResult] = []
    writer = ResultsWriter(options.results)

    def record(result: TaskResult) -> None:
        writer.write(result)
        results.append(result)
        progress.task_finished(result)

    try:
        if options.ray:
            await _on_ray(tasks, ctx, options, progress.task_started, record, abort)
        else:
            await _locally(tasks, ctx, options.jobs, progress.task_started, record, abort)
    finally:
        writer.close()
        progress.finish()
    return BatchSummary(results, skipped, abort.is_set())


async def _locally(
    tasks: Sequence[Task],
    ctx: BatchContext,
    jobs: int,
    on_start: Callable[[str], None],
    on_result: Callable[[TaskResult], None],
    abort: asyncio.Event,
) -> None:
    slots = asyncio.Semaphore(jobs)  # wakes waiters in order: tasks start in file order

    async def one(task: Task) -> None:
        async with slots:
            if abort.is_set():
                return  # never started: not recorded, so a resumed batch runs it
            on_start(task.id)
            on_result(await run_task(task, ctx, abort))

    await asyncio.gather(*(one(task) for task in tasks))


async def _on_ray(
    tasks: Sequence[Task],
    ctx: BatchContext,
    options: BatchOptions,
    on_start: Callable[[str], None],
    on_result: Callable[[TaskResult], None],
    abort: asyncio.Event,
) -> None:
    from pi_harness.cli.batch.ray_backend import run_on_ray

    stop = threading.Event()
    loop = asyncio.get_running_loop()

    async def relay_abort() -> None:
        await abort.wait()
        stop.set()

    relay = loop.create_task(relay_abort())
    try:
        await asyncio.to_thread(
            run_on_ray,
            tasks,
            ctx,
            options.ray or "auto",
            jobs=options.jobs,
            max_retries=options.ray_retries,
            on_start=on_start,
            on_result=on_result,
            abort=stop,
        )
    finally:
        relay.cancel()
