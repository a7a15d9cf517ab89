"""``/share``: the session uploaded as a secret gist through the ``gh`` CLI, here a stand-in
``gh`` script first on PATH that records its arguments (nothing reaches the network)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

from .harness import run_pi

GIST = "https://gist.github.com/someone/0a1b2c3d4e"

STAND_IN = """#!/bin/sh
echo "$@" >> "{log}"
if [ "$1" = "auth" ]; then exit {auth_code}; fi
if [ "$1" = "gist" ]; then
  for last in "$@"; do :; done
  if [ -s "$last" ]; then echo "{gist}"; exit 0; fi
  echo "no page to upload" >&2; exit 1
fi
exit 2
"""


def install_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, auth_code: int = 0) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "gh.log"
    script = bin_dir / "gh"
    script.write_text(STAND_IN.format(log=log, auth_code=auth_code, gist=GIST))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("PI_SHARE_VIEWER_URL", raising=False)
    return log


async def test_share_creates_a_secret_gist_and_shows_its_links(
    server: FakeLLMServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_gh(tmp_path, monkeypatch)
    monkeypatch.setenv("PI_SHARE_VIEWER_URL", "https://viewer.example/s/")
    server.push(ScriptedResponse(steps=[TextStep("shared answer")]))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("hello")
        await pi.wait_for(lambda: pi.scrollback_has("shared answer"), "the answer")
        await pi.idle()
        await pi.submit("/share")
        await pi.wait_for(lambda: pi.scrollback_has(f"Gist: {GIST}"), "the gist link")
        assert pi.scrollback_has("Share URL: https://viewer.example/s/#0a1b2c3d4e")
    calls = log.read_text().splitlines()
    assert calls[0] == "auth status"
    assert calls[1].startswith("gist create --public=false ") and calls[1].endswith("session.html")
    assert not Path(calls[1].split()[-1]).exists()  # the temporary page is gone


async def test_share_says_when_gh_is_not_logged_in(
    server: FakeLLMServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_gh(tmp_path, monkeypatch, auth_code=1)
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/share")
        await pi.wait_for(lambda: pi.scrollback_has("not logged in: run 'gh auth login' first"), "the error")
    assert log.read_text().splitlines() == ["auth status"]


async def test_share_says_when_gh_is_missing(
    server: FakeLLMServer, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/share")
        await pi.wait_for(lambda: pi.scrollback_has("The GitHub CLI (gh) is not installed"), "the error")


async def test_share_refuses_the_radius_destination_without_calling_gh(
    server: FakeLLMServer, project: Path, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = install_gh(tmp_path, monkeypatch)
    settings_file = agent_dir / "settings.json"
    settings = json.loads(settings_file.read_text()) if settings_file.exists() else {}
    settings["sessionShareDestination"] = "radius"
    settings_file.write_text(json.dumps(settings))
    async with run_pi() as pi:
        await pi.started()
        await pi.submit("/share")
        await pi.wait_for(lambda: pi.scrollback_has("Radius is not available"), "the error")
    assert not log.exists()
