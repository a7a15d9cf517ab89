"""The startup sequence every mode shares (``cli/startup.py``): each mode's ``ModeStartup`` decides
trust, where warnings go, and whether the started session may run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_harness.cli.args import parse_args
from pi_harness.cli.bootstrap import Boot, Started
from pi_harness.cli.mode import AppMode
from pi_harness.cli.startup import Launched, start_session


class RecordingStartup:
    """A mode that answers trust with ``trusted`` and accepts the session when ``accepts``."""

    mode: AppMode = "print"
    pauses_collection = False
    diagnostics_to_stderr = True
    reads_piped_stdin = False

    def __init__(self, trusted: bool | None, *, accepts: bool = True, reads_initial_input: bool = True) -> None:
        self.trusted = trusted
        self.accepts = accepts
        self.reads_initial_input = reads_initial_input
        self.boots: list[Boot] = []
        self.started: list[Started] = []

    async def decide_trust(self, boot: Boot) -> bool | None:
        self.boots.append(boot)
        return self.trusted

    def warn(self, message: str) -> None:
        pass

    def accept(self, started: Started) -> bool:
        self.started.append(started)
        return self.accepts


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_cancelled_trust_decision_ends_the_run_with_exit_0_before_the_session_starts() -> None:
    startup = RecordingStartup(None)
    assert asyncio.run(start_session(parse_args(["--no-session"]), startup)) == 0
    assert len(startup.boots) == 1 and startup.started == []


def test_a_mode_that_refuses_the_started_session_ends_the_run_with_exit_1() -> None:
    startup = RecordingStartup(False, accepts=False)
    assert asyncio.run(start_session(parse_args(["--no-session"]), startup)) == 1
    assert len(startup.started) == 1


def test_the_command_line_messages_become_the_first_prompts_unless_the_mode_reads_none() -> None:
    async def launch(startup: RecordingStartup) -> Launched:
        launched = await start_session(parse_args(["--no-session", "first", "second"]), startup)
        assert isinstance(launched, Launched)
        await launched.runtime.shutdown()
        return launched

    launched = asyncio.run(launch(RecordingStartup(False)))
    assert [prompt.text for prompt in launched.prompts] == ["first", "second"]
    assert launched.trusted is False
    assert asyncio.run(launch(RecordingStartup(False, reads_initial_input=False))).prompts == []
