"""The startup sequence every mode shares (``cli/startup.py``): each mode's ``ModeStartup`` decides
trust, where warnings go, and whether the started session may run."""

from __future__ import annotations

import asyncio
import json
import os
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


def test_the_global_settings_reach_the_boot_and_the_session(
    project: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = [{"id": model_id, "name": model_id, "contextWindow": 8000, "maxTokens": 1000} for model_id in "abc"]
    provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k", "models": models}
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"acme": provider}}))
    settings = {
        "httpProxy": "http://proxy.invalid:3128",
        "defaultProjectTrust": "never",
        "enabledModels": ["acme/a", 7, "acme/c"],
    }
    (agent_dir / "settings.json").write_text(json.dumps(settings))
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text("{}")  # a protected resource: trust is decided
    for name in ("HTTPS_PROXY", "HTTP_PROXY"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)  # and restored to unset afterwards

    async def launch(startup: RecordingStartup) -> Launched:
        launched = await start_session(parse_args(["--no-session"]), startup)
        assert isinstance(launched, Launched)
        await launched.runtime.shutdown()
        return launched

    startup = RecordingStartup(False)
    launched = asyncio.run(launch(startup))
    assert os.environ["HTTPS_PROXY"] == os.environ["HTTP_PROXY"] == "http://proxy.invalid:3128"
    assert (startup.boots[0].trust.trusted, startup.boots[0].trust.source) == (False, "default")
    scoped = [model["id"] for model, _level in launched.runtime.session.models.scoped]
    assert scoped == ["a", "c"]  # the entry that is not a string is dropped, with a warning
    assert any("enabledModels: expected a list of strings" in line for line in startup.started[0].diagnostics)


@pytest.mark.parametrize("pauses", [True, False])
def test_the_collector_paused_for_the_imports_is_on_again_once_the_session_started(pauses: bool) -> None:
    """``cli/gc_pause.py``: off while the modules load, on again when startup is over, whichever
    way the mode loads its session (collector paused for the load, or not)."""
    import gc

    from pi_harness.cli import gc_pause

    startup = RecordingStartup(True)
    startup.pauses_collection = pauses
    seen: list[bool] = []

    async def run() -> None:
        gc_pause.pause()
        seen.append(gc.isenabled())
        launched = await start_session(parse_args(["--no-session"]), startup)
        assert isinstance(launched, Launched)
        seen.append(gc.isenabled())
        await launched.runtime.shutdown()

    assert gc.isenabled()
    threshold = gc.get_threshold()
    try:
        asyncio.run(run())
    finally:
        gc_pause.resume()
        gc.enable()
        gc.unfreeze()  # what the paused load froze belongs to this test process
        gc.set_threshold(*threshold)
    assert seen == [False, True]


def test_a_pause_that_nothing_took_over_ends_with_resume() -> None:
    import gc

    from pi_harness.cli import gc_pause

    assert gc.isenabled()
    gc_pause.pause()
    assert not gc.isenabled()
    gc_pause.resume()
    assert gc.isenabled()
    gc.disable()  # a collector someone else switched off stays off
    try:
        gc_pause.pause()
        gc_pause.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()
