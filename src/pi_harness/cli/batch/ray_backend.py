"""Running the tasks on a Ray cluster (the optional ``ray`` extra, imported only here).

Each task is one Ray task doing exactly what a local slot does (``execution.run_task``: the
working directory, a worker process, the check), so results are the same wherever it runs.
Ray retries a task whose worker process died (``max_retries``); a task's own failure is a
result, not an exception, so it is never retried. Each task asks for ``cpus`` CPUs (default 1).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from types import ModuleType

from pi_harness.cli.batch.execution import BatchContext, run_task
from pi_harness.cli.batch.results import TaskResult
from pi_harness.cli.batch.tasks import Task
from pi_harness.optional_deps import require

POLL_S = 0.25


def _run_remote(task: Task, ctx: BatchContext) -> dict[str, object]:
    return asyncio.run(run_task(task, ctx)).to_json()


def run_on_ray(
    tasks: Sequence[Task],
    ctx: BatchContext,
    address: str,
    *,
    jobs: int,
    max_retries: int,
    on_start: Callable[[str], None],
    on_result: Callable[[TaskResult], None],
    abort: threading.Event,
) -> None:
    """Submit every task and report each result as it arrives (blocking; run it in a thread)."""
    ray = require("ray", "pi batch --ray", "ray")
    started_here = not ray.is_initialized()
    if started_here:
        if address == "local":
            # A private single-machine Ray instance, sized like --jobs.
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    try:
        remote = ray.remote(_run_remote)
        pending: dict[object, Task] = {}
        for task in tasks:
            ref = remote.options(num_cpus=task.cpus or 1, max_retries=max_retries, name=f"pi-batch:{task.id}").remote(
                task, ctx
            )
            pending[ref] = task
            on_start(task.id)
        cancelled = False
        while pending:
            if abort.is_set() and not cancelled:
                cancelled = True
                for ref in pending:
                    ray.cancel(ref)
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_S)
            for ref in ready:
                task = pending.pop(ref)
                on_result(_collect(ray, ref, task))
    finally:
        if started_here:
            ray.shutdown()


def _collect(ray: ModuleType, ref: object, task: Task) -> TaskResult:
    try:
        data = ray.get(ref)
    except ray.exceptions.TaskCancelledError:
        return TaskResult(id=task.id, status="aborted", error="aborted by the user")
    except ray.exceptions.RayError as error:
        first = str(error).strip().splitlines()
        return TaskResult(id=task.id, status="error", error=f"ray: {first[0] if first else type(error).__name__}")
    return TaskResult.from_json(data)
