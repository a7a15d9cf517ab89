"""``pi batch report``: what a results file says, and how two runs of the same tasks differ.

The success-rate difference between two runs comes with a 95 % interval by Newcombe's hybrid
score method (Wilson intervals of each rate, combined), which stays sensible for small task
counts and rates near 0 or 1 where the textbook normal interval does not. It treats the runs as
independent samples, so for the same tasks run twice it is on the cautious (wide) side.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from pi_harness.cli.batch.results import STATUSES, TaskResult

Z_95 = 1.959963984540054
TOP = 5


def wilson_interval(successes: int, total: int, z: float = Z_95) -> tuple[float, float]:
    if total == 0:
        return 0.0, 1.0
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def difference_interval(s1: int, n1: int, s2: int, n2: int) -> tuple[float, float, float]:
    """``rate2 - rate1`` and its 95 % interval (Newcombe, hybrid score)."""
    p1 = s1 / n1 if n1 else 0.0
    p2 = s2 / n2 if n2 else 0.0
    l1, u1 = wilson_interval(s1, n1)
    l2, u2 = wilson_interval(s2, n2)
    diff = p2 - p1
    low = diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return diff, low, high


def summary_lines(results: Mapping[str, TaskResult], *, title: str = "") -> list[str]:
    items = list(results.values())
    total = len(items)
    counts = Counter(r.status for r in items)
    succeeded = counts["succeeded"]
    low, high = wilson_interval(succeeded, total)
    lines = [title] if title else []
    lines.append(f"Tasks: {total}")
    lines.append(
        f"Success rate: {_pct(succeeded / total if total else 0.0)} ({succeeded}/{total}; "
        f"95% CI {_pct(low)}-{_pct(high)})"
    )
    lines.append("Status: " + ", ".join(f"{s} {counts[s]}" for s in STATUSES if counts[s]))
    tokens = sum(r.tokens for r in items)
    cost = sum(r.cost for r in items)
    wall = sum(r.wall_seconds for r in items)
    per = max(total, 1)
    lines.append(f"Tokens: {tokens} total, {tokens / per:.0f} per task")
    lines.append(f"Cost: ${cost:.4f} total, ${cost / per:.4f} per task")
    lines.append(f"Turns: {sum(r.turns for r in items)} total; wall time {wall:.1f}s summed over tasks")
    lines += _top("Slowest", sorted(items, key=lambda r: -r.wall_seconds), lambda r: f"{r.wall_seconds:.1f}s")
    lines += _top("Most expensive", sorted(items, key=lambda r: (-r.cost, -r.tokens)), _price)
    return lines


def _price(result: TaskResult) -> str:
    return f"${result.cost:.4f} ({result.tokens} tokens)"


def _top(label: str, ordered: Sequence[TaskResult], figure: object) -> list[str]:
    if not ordered:
        return []
    describe = figure if callable(figure) else str
    lines = [f"{label}:"]
    for result in ordered[:TOP]:
        lines.append(f"  {result.id}: {describe(result)} [{result.status}]")
    return lines


def compare_lines(base: Mapping[str, TaskResult], other: Mapping[str, TaskResult]) -> list[str]:
    """Per-task changes from ``base`` to ``other`` over the tasks both ran, and the rate difference."""
    shared = [task_id for task_id in base if task_id in other]
    lines: list[str] = []
    only_base = sorted(set(base) - set(other))
    only_other = sorted(set(other) - set(base))
    if only_base or only_other:
        lines.append(f"Not in both runs: {len(only_base)} only in the first, {len(only_other)} only in the second")
    fixed = [t for t in shared if base[t].status != "succeeded" and other[t].status == "succeeded"]
    broken = [t for t in shared if base[t].status == "succeeded" and other[t].status != "succeeded"]
    changed = [t for t in shared if base[t].status != other[t].status and t not in fixed and t not in broken]
    s1 = sum(1 for t in shared if base[t].status == "succeeded")
    s2 = sum(1 for t in shared if other[t].status == "succeeded")
    n = len(shared)
    diff, low, high = difference_interval(s1, n, s2, n)
    lines.append(f"Tasks in both runs: {n}")
    lines.append(
        f"Success rate: {_pct(s1 / n if n else 0.0)} -> {_pct(s2 / n if n else 0.0)} "
        f"({_signed(diff)}; 95% CI {_signed(low)} to {_signed(high)})"
    )
    lines.append(f"Now succeeding: {len(fixed)}; no longer succeeding: {len(broken)}; other changes: {len(changed)}")
    for label, ids in (("Now succeeding", fixed), ("No longer succeeding", broken), ("Status changed", changed)):
        for task_id in ids:
            lines.append(f"  {label}: {task_id} ({base[task_id].status} -> {other[task_id].status})")
    cost1 = sum(base[t].cost for t in shared)
    cost2 = sum(other[t].cost for t in shared)
    tokens1 = sum(base[t].tokens for t in shared)
    tokens2 = sum(other[t].tokens for t in shared)
    lines.append(f"Cost: ${cost1:.4f} -> ${cost2:.4f}; tokens: {tokens1} -> {tokens2}")
    return lines


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _signed(value: float) -> str:
    return f"{value * 100:+.1f} pts"
