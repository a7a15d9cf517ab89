"""``pi batch``'s files without sessions: the tasks file, results.jsonl and the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_harness.cli.batch import TaskResult, parse_tasks, read_results
from pi_harness.cli.batch.report import difference_interval, wilson_interval
from pi_harness.cli.batch.results import ResultsWriter, Status


def pi(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    executable = Path(sys.executable).with_name("pi")
    return subprocess.run([str(executable), *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


def test_intervals_match_published_values() -> None:
    # Wilson (1927) as tabulated by Newcombe (1998): 81/263 -> 0.2553 to 0.3662.
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    # Newcombe (1998), method 10, example (a): 56/70 against 48/80 -> +0.2000, 0.0524 to 0.3339.
    diff, low, high = difference_interval(48, 80, 56, 70)
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)


def test_template_tasks_become_template_commands() -> None:
    [task] = parse_tasks(['{"id": "x", "template": "review", "args": ["src/a.py", "be brief", "say \\"hi\\""]}'])
    assert task.prompt_text() == '/review src/a.py "be brief" \'say "hi"\''


def test_budgets_become_run_limit_settings() -> None:
    [task] = parse_tasks(['{"id": 7, "prompt": "p", "budgets": {"turns": 4, "cost": 0.5}}'])
    assert task.id == "7"
    assert task.budgets.settings() == {"agent.maxTurns": 4, "agent.maxCost": 0.5}


def test_a_torn_last_line_is_skipped_and_closed_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(TaskResult("a", "succeeded").to_json()) + '\n{"id": "b", "sta')
    found, skipped = read_results(path)
    assert list(found) == ["a"] and skipped == 1
    writer = ResultsWriter(path)
    writer.write(TaskResult("b", "failed"))
    writer.close()
    found, skipped = read_results(path)
    assert [r.status for r in found.values()] == ["succeeded", "failed"] and skipped == 1


def _results(path: Path, statuses: dict[str, Status], cost: float) -> Path:
    lines = []
    for task_id, status in statuses.items():
        record = TaskResult(task_id, status, wall_seconds=1.5, tokens=100, cost=cost).to_json()
        lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines))
    return path


def test_report_compares_two_runs(tmp_path: Path) -> None:
    before = _results(tmp_path / "a.jsonl", {"t1": "succeeded", "t2": "failed", "t3": "timeout"}, 0.01)
    after = _results(tmp_path / "b.jsonl", {"t1": "failed", "t2": "succeeded", "t3": "succeeded"}, 0.02)
    done = pi("batch", "report", str(before), "--compare", str(after), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Success rate: 33.3% (1/3; 95% CI 6.1%-79.2%)" in lines
    assert "Success rate: 33.3% -> 66.7% (+33.3 pts; 95% CI -31.6 pts to +71.8 pts)" in lines
    assert "Now succeeding: 2; no longer succeeding: 1; other changes: 0" in lines
    assert "  Now succeeding: t3 (timeout -> succeeded)" in lines
    assert "  No longer succeeding: t1 (succeeded -> failed)" in lines
    assert "Cost: $0.0300 -> $0.0600; tokens: 300 -> 300" in lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["batch"], "Usage:"),
        (["batch", "t.jsonl", "--jobs", "0"], "Error: --jobs must be at least 1"),
        (["batch", "t.jsonl", "--resume", "--overwrite"], "Error: --resume and --overwrite exclude each other"),
        (["batch", "missing.jsonl"], "cannot read the tasks file"),
        (["batch", "report", "nothing.jsonl"], "Error: no results file at nothing.jsonl"),
    ],
)
def test_bad_invocations_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "t.jsonl").write_text('{"id": "a", "prompt": "p"}\n')
    done = pi(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stdout + done.stderr


def test_progress_keeps_a_status_line_on_a_terminal_only() -> None:
    import io

    from pi_harness.cli.batch.progress import Progress

    screen = io.StringIO()
    live = Progress(4, 2, screen, live=True)
    live.task_started("a")
    live.task_started("b")
    live.task_finished(TaskResult("a", "succeeded", wall_seconds=10.0, turns=2, tokens=30, cost=0.25))
    assert live.status_line() == "1/4 done, 1 running, 0 failed, $0.2500 so far, ETA 15s"
    assert screen.getvalue().endswith("\r\x1b[K1/4 done, 1 running, 0 failed, $0.2500 so far, ETA 15s")
    assert "[1/4] ok a: 2 turns, 30 tokens, $0.2500, 10.0s\n" in screen.getvalue()
    log = io.StringIO()
    plain = Progress(4, 2, log, live=False)
    plain.task_started("a")
    plain.task_finished(TaskResult("a", "timeout", wall_seconds=3.0, error="timed out"))
    assert log.getvalue() == "[1/4] TIMEOUT a: 0 turns, 0 tokens, $0.0000, 3.0s\n"
