"""The steps of one conformance check, shared by the tests and ``_known.py``."""

from __future__ import annotations

from pathlib import Path

import _golden
from _compare import compare
from _normalize import normalize
from _programs import our_package_roots, our_pi
from _runner import play
from _scenario import Scenario


def our_output(scenario: Scenario, workdir: Path) -> dict:
    """Play the scenario with our ``pi`` and return the normalised result (the golden form)."""
    return normalize(play(scenario, our_pi(), workdir), our_package_roots())


def differences(scenario: Scenario, workdir: Path) -> list[str]:
    """Our differences from the golden, as the known-differences file lists them."""
    return compare(_golden.read(scenario.name), our_output(scenario, workdir))
