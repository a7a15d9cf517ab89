"""Project packages wait for the trust decision; themes from packages reach the loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _pkg_fixtures import Published, write_pi_package

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.packages import PackageError, PackageManager
from pi_harness.coding.resources.loader import DefaultResourceLoader


def _project(tmp_path: Path, packages: list[object]) -> Path:
    cwd = tmp_path / "project"
    (cwd / ".pi").mkdir(parents=True)
    (cwd / ".pi" / "settings.json").write_text(json.dumps({"packages": packages}))
    return cwd


def test_untrusted_project_packages_are_neither_installed_nor_loaded(
    npm_registry: Published, agent_dir: Path, tmp_path: Path
) -> None:
    cwd = _project(tmp_path, ["npm:pi-demo@1.0.0"])
    # Even a settings manager that has read the project file: the loader's own decision counts.
    loader = DefaultResourceLoader(
        cwd, agent_dir, SettingsManager.create(cwd, agent_dir, project_trusted=True), project_trusted=False
    )
    loader.reload()
    assert loader.get_skills() == []
    assert not (cwd / ".pi" / "npm").exists()
    assert npm_registry.registry.requests == []
    trusted = DefaultResourceLoader(cwd, agent_dir, SettingsManager.create(cwd, agent_dir, project_trusted=True))
    trusted.reload()
    assert [s.name for s in trusted.get_skills()] == ["release-notes"]
    assert (cwd / ".pi" / "npm" / "node_modules" / "pi-demo").is_dir()  # installed once trusted
    assert trusted.source_info(trusted.get_skills()[0].file_path)["scope"] == "project"


def test_project_scope_operations_need_trust(agent_dir: Path, tmp_path: Path) -> None:
    cwd = _project(tmp_path, [])
    manager = PackageManager(cwd, agent_dir, SettingsManager.create(cwd, agent_dir, project_trusted=False))
    with pytest.raises(PackageError, match=r"^Project is not trusted; refusing to access project package storage$"):
        manager.install("npm:pi-demo", local=True)
    assert manager.list_configured() == []


def test_project_entry_wins_over_the_global_one(agent_dir: Path, tmp_path: Path) -> None:
    package = write_pi_package(tmp_path / "team-pi", "team-pi", "1.0.0")
    (agent_dir / "settings.json").write_text(json.dumps({"packages": [str(package)]}))
    cwd = _project(tmp_path, [{"source": str(package), "prompts": ["resources/prompts/draft.md"]}])
    loader = DefaultResourceLoader(cwd, agent_dir, SettingsManager.create(cwd, agent_dir))
    loader.reload()
    assert [p.name for p in loader.get_prompts()] == ["draft"]
    # autoload: false makes the project entry a delta over the global one instead.
    (cwd / ".pi" / "settings.json").write_text(
        json.dumps(
            {"packages": [{"source": str(package), "autoload": False, "prompts": ["-resources/prompts/draft.md"]}]}
        )
    )
    loader.settings.reload()
    loader.reload()
    assert [p.name for p in loader.get_prompts()] == ["review"]


def test_package_themes_reach_the_theme_list(agent_dir: Path, tmp_path: Path) -> None:
    package = write_pi_package(tmp_path / "themed", "themed", "1.0.0", manifest=False)
    (package / "themes").mkdir()
    (package / "themes" / "team-dark.json").write_text(json.dumps({"name": "team-dark", "colors": {}}))
    (agent_dir / "settings.json").write_text(json.dumps({"packages": [str(package)]}))
    loader = DefaultResourceLoader(tmp_path, agent_dir, SettingsManager.create(tmp_path, agent_dir))
    loader.reload()
    assert loader.get_theme_paths() == [str(package / "themes" / "team-dark.json")]


def test_a_project_cannot_allow_install_scripts(agent_dir: Path, tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    (cwd / ".pi").mkdir(parents=True)
    (cwd / ".pi" / "settings.json").write_text(json.dumps({"allowPackageScripts": True}))
    assert SettingsManager.create(cwd, agent_dir, project_trusted=True).values.allow_package_scripts is False
    (agent_dir / "settings.json").write_text(json.dumps({"allowPackageScripts": True}))
    assert SettingsManager.create(cwd, agent_dir, project_trusted=True).values.allow_package_scripts is True
