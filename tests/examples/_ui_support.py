"""Shared pieces of the UI example tests.

``ui_pi(agent_dir, *examples)`` runs the real interactive mode in-process (the harness of
``tests/cli/modes/interactive``: keys through a pipe, a 120x40 screen in memory, the fake LLM
server as the ``fake`` provider) with the examples installed in the agent's extension folder.
``context()`` is a render context with the dark theme for rendering components directly.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from _examples_support import example_path

from pi_harness.testing.fake_llm import FakeLLMServer
from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.theme import Theme, builtin_theme

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli" / "modes"))
from interactive.harness import Pi, run_pi, write_fake_provider

# Test modules import the fixtures as ``from _ui_support import project_fixture, server_fixture``.
__all__ = [
    "Pi",
    "context",
    "plain",
    "project_fixture",
    "screen_lines",
    "server_fixture",
    "ui_pi",
    "write_fake_provider",
]


@pytest.fixture(name="server")
def server_fixture(agent_dir: Path) -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        write_fake_provider(agent_dir, fake, models=("fake-model", "other-model"))
        yield fake


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PI_OFFLINE", "1")
    return cwd


def install(agent_dir: Path, *examples: str) -> None:
    target = agent_dir / "extensions"
    target.mkdir(exist_ok=True)
    for name in examples:
        source = example_path(name)
        if source.is_dir():
            shutil.copytree(source, target / name)
        else:
            shutil.copy(source, target / source.name)


@asynccontextmanager
async def ui_pi(agent_dir: Path, *examples: str, args: tuple[str, ...] = ()) -> AsyncIterator[Pi]:
    """The interactive ``pi`` with ``examples`` installed, started and ready for keys."""
    install(agent_dir, *examples)
    async with run_pi(args) as pi:
        await pi.started()
        yield pi


def context() -> RenderContext:
    return RenderContext(Theme(builtin_theme("dark")), cwd="/work/project", home="/work")


def plain(lines: list[str]) -> list[str]:
    return [strip_ansi(line).rstrip() for line in lines]


def screen_lines(pi: Any) -> list[str]:
    return pi.screen().splitlines()
