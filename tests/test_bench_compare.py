"""``bench/compare_pi.py`` runs end to end and prints its tables (figures are never asserted).

Tiny sizes and one pair, pi-harness only: this checks that every scenario works (the installed
``pi`` against the fake server, the launcher that takes peak RSS) and that the report names every
figure with a value, not how fast anything is.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "compare_pi.py"
FIGURES = (
    "pi --version: wall",
    "pi -p: time to first request",
    "pi -p: peak RSS",
    "--session (200 entries): TTFR",
    "--session (200 entries): peak RSS",
    "--session (200), reopened: TTFR",
    "harness time per tool turn (3 turns)",
    "  wall time per tool turn (3 turns)",
    "peak RSS over 3 turns",
)


def test_compare_pi_quick_prints_every_figure() -> None:
    args = ["--quick", "--ours-only", "--session-entries", "200", "--turns", "3"]
    args += ["--growth", "--growth-sessions", "100", "300", "--growth-turns", "2", "4"]
    done = subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["figure", "n"] and "pi-harness" in lines[0]
    for figure in FIGURES:
        row = next((line for line in lines if line.startswith(figure)), None)
        assert row is not None, (figure, done.stdout)
        assert re.search(r"\d+\.\d+ (s|ms|MiB)\s*$", row), row
    assert any(line.startswith("the fake server alone") and line.endswith("ms per turn") for line in lines)
    assert "growth (value at each size; growth per 10x of size; verdict):" in lines
    growth = [line for line in lines if line.startswith(("--session: TTFR", "harness time per tool turn  "))]
    assert any("100: " in line and "300: " in line and "/10x)" in line for line in growth), done.stdout
    assert any("2: " in line and "4: " in line for line in growth), done.stdout
    assert all(line.endswith(("linear or better", ")")) and "->" in line for line in growth), growth
    assert "load average" in done.stderr
