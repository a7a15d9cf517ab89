"""Fault tests: the installed ``pi`` against the fake LLM server, with the e2e fixtures and helpers
(``tests/e2e``: ``_fixtures``, ``_pi_env``, ``_rpc_client``) shared rather than copied."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "e2e"))

from _faults import Procs
from _fixtures import pi_env, start_rpc

__all__ = ["pi_env", "procs", "start_rpc"]


@pytest.fixture
def procs() -> Iterator[Procs]:
    found = Procs()
    yield found
    found.kill_all()
