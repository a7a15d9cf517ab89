"""Fixtures of the session tests: a running fake LLM server and a project directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_harness.testing.fake_llm import FakeLLMServer


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    return directory
