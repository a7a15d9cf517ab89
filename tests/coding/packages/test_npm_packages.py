"""npm packages with the real npm against a registry on loopback: install in Pi's layout,
resources in the resource loader, pinned versions kept by update, remove."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _pkg_fixtures import Published

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.packages import PackageError, PackageManager, resolve_packages
from pi_harness.coding.resources.loader import DefaultResourceLoader


def _manager(cwd: Path, agent_dir: Path, trusted: bool = False) -> PackageManager:
    return PackageManager(cwd, agent_dir, SettingsManager.create(cwd, agent_dir, project_trusted=trusted))


def _installed_version(agent_dir: Path) -> str:
    return str(json.loads((agent_dir / "npm" / "node_modules" / "pi-demo" / "package.json").read_text())["version"])


def test_install_puts_the_package_where_pi_does(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    manager = _manager(tmp_path, agent_dir)
    manager.install("npm:pi-demo")
    assert json.loads((agent_dir / "settings.json").read_text()) == {"packages": ["npm:pi-demo"]}
    root = agent_dir / "npm"
    assert json.loads((root / "package.json").read_text())["name"] == "pi-extensions"
    assert (root / ".gitignore").read_text() == "*\n!.gitignore\n"
    package = root / "node_modules" / "pi-demo"
    assert (package / "src" / "tool.ts").is_file()
    # Lifecycle scripts are off by default (Pi would have run the postinstall script).
    assert not (package / "POSTINSTALL_RAN").exists()
    [listed] = manager.list_configured()
    assert (listed.source, listed.scope, listed.filtered, listed.installed_path) == (
        "npm:pi-demo",
        "user",
        False,
        str(package),
    )


def test_allow_package_scripts_runs_them(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"allowPackageScripts": True}))
    _manager(tmp_path, agent_dir).install("npm:pi-demo")
    assert (agent_dir / "npm" / "node_modules" / "pi-demo" / "POSTINSTALL_RAN").exists()


def test_package_resources_reach_the_session_loader(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    _manager(tmp_path, agent_dir).install("npm:pi-demo")
    loader = DefaultResourceLoader(tmp_path, agent_dir, SettingsManager.create(tmp_path, agent_dir))
    loader.reload()
    package = agent_dir / "npm" / "node_modules" / "pi-demo"
    [skill] = loader.get_skills()
    assert (skill.name, skill.description, skill.source) == ("release-notes", "Write release notes v1.0.0", "package")
    assert sorted(p.name for p in loader.get_prompts()) == ["draft", "review"]
    assert loader.get_extension_paths() == [str(package / "src" / "tool.ts")]
    info = loader.source_info(skill.file_path)
    assert info == {
        "path": skill.file_path,
        "source": "npm:pi-demo",
        "scope": "user",
        "origin": "package",
        "baseDir": str(package),
    }


def test_update_moves_an_unpinned_package(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    manager = _manager(tmp_path, agent_dir)
    manager.install("npm:pi-demo")
    assert _installed_version(agent_dir) == "1.0.0"
    npm_registry.publish("1.1.0")
    manager.update("npm:pi-demo")
    assert _installed_version(agent_dir) == "1.1.0"
    assert json.loads((agent_dir / "settings.json").read_text())["packages"] == ["npm:pi-demo"]


def test_update_keeps_a_pinned_version(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    manager = _manager(tmp_path, agent_dir)
    npm_registry.publish("1.1.0")
    manager.install("npm:pi-demo@1.0.0")
    manager.update()
    assert _installed_version(agent_dir) == "1.0.0"
    assert json.loads((agent_dir / "settings.json").read_text())["packages"] == ["npm:pi-demo@1.0.0"]


def test_update_of_an_unknown_source_suggests_the_configured_one(
    npm_registry: Published, agent_dir: Path, tmp_path: Path
) -> None:
    manager = _manager(tmp_path, agent_dir)
    manager.install("npm:pi-demo@1.0.0")
    with pytest.raises(
        PackageError, match=r"^No matching package found for pi-demo\. Did you mean npm:pi-demo@1\.0\.0\?$"
    ):
        manager.update("pi-demo")


def test_remove_uninstalls_and_forgets(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    manager = _manager(tmp_path, agent_dir)
    manager.install("npm:pi-demo@1.0.0")
    assert manager.remove("npm:pi-demo") is True
    assert not (agent_dir / "npm" / "node_modules" / "pi-demo").exists()
    assert json.loads((agent_dir / "settings.json").read_text())["packages"] == []
    assert manager.remove("npm:pi-demo") is False


def test_a_configured_package_that_is_missing_is_installed_at_startup(
    npm_registry: Published, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"packages": ["npm:pi-demo@1.0.0"]}))
    monkeypatch.setenv("PI_OFFLINE", "1")
    assert resolve_packages(_manager(tmp_path, agent_dir)).resources == []
    monkeypatch.delenv("PI_OFFLINE")
    resolved = resolve_packages(_manager(tmp_path, agent_dir))
    assert _installed_version(agent_dir) == "1.0.0"
    assert [Path(p).name for p in resolved.paths("skills")] == ["SKILL.md"]


def test_a_failed_install_is_one_error_line(npm_registry: Published, agent_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(PackageError, match=r"npm install pi-missing --prefix .* failed with code \d+$"):
        _manager(tmp_path, agent_dir).install("npm:pi-missing")
    assert not (agent_dir / "settings.json").exists() or "pi-missing" not in (agent_dir / "settings.json").read_text()
