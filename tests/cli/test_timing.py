from __future__ import annotations

import io
import re

import pytest
from _cli_helpers import RunPi

from pi_harness.cli import timing


def test_phase_timings_on_stderr(run_pi: RunPi) -> None:
    # A key makes models available, so the listing succeeds (without one it is an error, like ``pi -p``).
    result = run_pi("--list-models", env={"PI_TIMING": "1", "OPENAI_API_KEY": "test-key"})
    assert result.returncode == 0
    assert "--- Startup Timings ---" in result.stderr
    labels = re.findall(r"^  (\w+): \d+ms$", result.stderr, flags=re.MULTILINE)
    assert labels == ["setupCli", "parseArgs", "listModels", "TOTAL"]
    assert "Startup Timings" not in result.stdout


def test_no_timings_without_the_variable(run_pi: RunPi) -> None:
    result = run_pi("--version")
    assert result.stderr == ""
    result = run_pi("--version", env={"PI_TIMING": "0"})
    assert result.stderr == ""


def test_timings_print_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TIMING", "1")
    timing.start()
    timing.mark("first")
    timing.mark("second")
    assert [label for label, _ in timing.phases()] == ["first", "second"]
    out = io.StringIO()
    timing.print_timings(out)
    timing.print_timings(out)
    text = out.getvalue()
    assert text.count("--- Startup Timings ---") == 1
    assert text.endswith("  TOTAL: " + text.split("TOTAL: ")[1])
    assert "------------------------" in text
    timing.start()
