"""The changelog after an update (``lastChangelogVersion``, ``collapseChangelog``), as Pi."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_harness.__about__ import __version__
from pi_harness.cli.modes.interactive.startup_changelog import changelog_notice, changelog_since_last_start
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi

CHANGELOG = """# Changelog

## [Unreleased]

## [1.3.0] - 2026-12-01

- Third

## [1.2.0]

- Second

## [1.1.0]

- First
"""


@pytest.fixture(autouse=True)
def only_regular(tui_mode: str) -> None:
    if tui_mode != "regular":
        pytest.skip("no screen involved")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    (tmp_path / "CHANGELOG.md").write_text(CHANGELOG)
    return tmp_path


def test_the_first_start_records_the_version_and_shows_nothing(docs: Path) -> None:
    settings = SettingsManager.in_memory()
    assert changelog_since_last_start(settings, docs, has_messages=False, version="1.3.0") is None
    assert settings.get("lastChangelogVersion") == "1.3.0"


def test_a_start_after_an_update_shows_the_newer_sections_once(docs: Path) -> None:
    settings = SettingsManager.in_memory({"lastChangelogVersion": "1.1.0"})
    shown = changelog_since_last_start(settings, docs, has_messages=False, version="1.3.0")
    assert shown is not None
    newest, sections = shown
    assert newest == "1.3.0"
    assert "- Third" in sections and "- Second" in sections and "- First" not in sections
    assert settings.get("lastChangelogVersion") == "1.3.0"
    assert changelog_since_last_start(settings, docs, has_messages=False, version="1.3.0") is None


def test_a_resumed_conversation_shows_none(docs: Path) -> None:
    settings = SettingsManager.in_memory({"lastChangelogVersion": "1.1.0"})
    assert changelog_since_last_start(settings, docs, has_messages=True, version="1.3.0") is None
    assert settings.get("lastChangelogVersion") == "1.1.0"


def test_collapsed_is_one_line_naming_the_version() -> None:
    assert changelog_notice("1.3.0", "## [1.3.0]\n\n- Third", collapsed=True) == (
        "Updated to v1.3.0; /changelog shows what changed."
    )
    full = changelog_notice("1.3.0", "## [1.3.0]\n\n- Third", collapsed=False)
    assert full.startswith("What's new") and "- Third" in full


async def test_the_first_interactive_start_records_the_running_version(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    async with run_pi() as pi:
        await pi.started()
    data = json.loads((agent_dir / "settings.json").read_text())
    assert data["lastChangelogVersion"] == __version__
