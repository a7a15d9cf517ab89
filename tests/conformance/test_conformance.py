"""Conformance with Pi 1.4.0: each scenario played by our ``pi``, compared with Pi's goldens.

The differences found must be exactly the ones listed for the scenario in known_differences.py:
a difference not listed is a regression (or a new gap: list it with a reason); a listed one that
is gone is a fix (remove it). See README.md.
"""

from __future__ import annotations

from pathlib import Path

import _golden
import pytest
from _reasons import REASONS
from _suite import differences
from known_differences import KNOWN
from scenarios import BY_NAME, NAMES, SCENARIOS

UPDATE = ".venv/bin/python tests/conformance/_known.py --update {name}"


@pytest.mark.parametrize("name", NAMES)
def test_scenario(name: str, tmp_path: Path) -> None:
    scenario = BY_NAME[name]
    if not _golden.exists(name):
        pytest.fail(f"no goldens for {name} under tests/fixtures/conformance: run scripts/record-goldens {name}")
    actual = differences(scenario, tmp_path / "world")
    listed = KNOWN.get(name, {})
    new = [line for line in actual if line not in listed]
    gone = [line for line in listed if line not in actual]
    if new or gone:
        report = [f"{name}: {scenario.description}"]
        if new:
            report.append(f"{len(new)} difference(s) from Pi 1.4.0 not in known_differences.py (a regression?):")
            report += [f"  + {line}" for line in new]
        if gone:
            report.append(f"{len(gone)} known difference(s) no longer found (fixed? remove them):")
            report += [f"  - {line}  [{listed[line]}]" for line in gone]
        report.append(f"after checking them: {UPDATE.format(name=name)}")
        pytest.fail("\n".join(report), pytrace=False)


def test_known_differences_are_well_formed() -> None:
    names = {scenario.name for scenario in SCENARIOS} | {"rpc_client"}
    assert set(KNOWN) <= names, f"known differences for scenarios that do not exist: {set(KNOWN) - names}"
    bad = {
        (name, line, code) for name, entries in KNOWN.items() for line, code in entries.items() if code not in REASONS
    }
    assert not bad, f"entries without a known reason code (add one to _reasons.REASONS): {sorted(bad)}"
    for code, (reason, issue) in REASONS.items():
        assert reason and "\n" not in reason, code
        assert issue.startswith(("issue:", "found:")), code


def test_every_scenario_has_goldens() -> None:
    missing = [scenario.name for scenario in SCENARIOS if not _golden.exists(scenario.name)]
    assert not missing, f"run scripts/record-goldens for: {missing}"
    assert len(SCENARIOS) >= 30
