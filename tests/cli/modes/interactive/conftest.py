"""Fixtures of the interactive-mode tests: a fake LLM server behind a ``fake`` provider, and a
project directory as the current directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import TUI_MODE, write_fake_provider


@pytest.fixture(params=["fullscreen", "regular"], autouse=True)
def tui_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every interactive scenario in Pi's default fullscreen mode and in regular mode."""
    TUI_MODE["mode"] = request.param
    yield request.param
    TUI_MODE["mode"] = "fullscreen"


@pytest.fixture
def server(agent_dir: Path) -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        write_fake_provider(agent_dir, fake, models=("fake-model", "other-model"))
        yield fake


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.delenv("TMUX", raising=False)  # no tmux extended-keys warning when the developer runs tmux
    return cwd
