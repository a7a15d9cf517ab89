"""``pi batch``: many headless sessions over a tasks file, on this machine or on Ray (beyond Pi).

Programs use the same machinery as the command::

    from pi_harness.cli.batch import BatchOptions, run_batch

See ``docs/batch.md`` for the tasks file, the results and the report.
"""

from __future__ import annotations

from pi_harness.cli.batch.execution import BatchContext, run_task
from pi_harness.cli.batch.results import ResultsWriter, TaskResult, read_results
from pi_harness.cli.batch.runner import BatchError, BatchOptions, BatchSummary, run_batch
from pi_harness.cli.batch.tasks import Budgets, Task, TaskFileError, load_tasks, parse_tasks

__all__ = [
    "BatchContext",
    "BatchError",
    "BatchOptions",
    "BatchSummary",
    "Budgets",
    "ResultsWriter",
    "Task",
    "TaskFileError",
    "TaskResult",
    "load_tasks",
    "parse_tasks",
    "read_results",
    "run_batch",
    "run_task",
]
