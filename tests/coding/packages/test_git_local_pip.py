"""git sources from bare repositories (``git:file://``), local paths and ``pip:`` wheels, with
the real git and pip; and the Python extension from a wheel working in a session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from _pkg_fixtures import bare_repo, build_wheel, git, pip_env, write_pi_package

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.packages import PackageManager, resolve_packages
from pi_harness.coding.resources.loader import DefaultResourceLoader


def _manager(cwd: Path, agent_dir: Path) -> PackageManager:
    return PackageManager(cwd, agent_dir, SettingsManager.create(cwd, agent_dir, project_trusted=False))


def _skill_descriptions(cwd: Path, agent_dir: Path) -> list[str]:
    loader = DefaultResourceLoader(cwd, agent_dir, SettingsManager.create(cwd, agent_dir))
    loader.reload()
    return [s.description for s in loader.get_skills()]


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    """A Pi package (conventional directories) committed to ``work`` and pushed to a bare repo;
    tag ``v1`` marks the first commit."""
    work = write_pi_package(tmp_path / "work", "pi-git-demo", "1.0.0", manifest=False, tag=" v1")
    bare = tmp_path / "remote" / "team" / "pi-git-demo.git"
    bare_repo(work, bare)
    git("tag", "v1", cwd=work)
    git("push", "-q", "origin", "v1", cwd=work)
    return work, bare


def _second_commit(work: Path) -> None:
    skill = work / "skills" / "release-notes" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Write release notes v1", "Write release notes v2"))
    git("commit", "-qam", "second", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)


def test_git_install_pinned_ref_is_kept_by_update(repo: tuple[Path, Path], agent_dir: Path, tmp_path: Path) -> None:
    work, bare = repo
    source = f"git:file://{bare}@v1"
    manager = _manager(tmp_path, agent_dir)
    manager.install(source)
    checkout = agent_dir / "git" / "local" / str(bare).strip("/").removesuffix(".git")
    assert (checkout / "skills" / "release-notes" / "SKILL.md").is_file()
    assert (agent_dir / "git" / ".gitignore").read_text() == "*\n!.gitignore\n"
    _second_commit(work)
    manager.update()
    assert _skill_descriptions(tmp_path, agent_dir) == ["Write release notes v1"]
    assert git("rev-parse", "HEAD", cwd=checkout) == git("rev-parse", "v1", cwd=work)


def test_git_without_ref_follows_the_branch(repo: tuple[Path, Path], agent_dir: Path, tmp_path: Path) -> None:
    work, bare = repo
    manager = _manager(tmp_path, agent_dir)
    manager.install(f"git:file://{bare}")
    assert _skill_descriptions(tmp_path, agent_dir) == ["Write release notes v1"]
    _second_commit(work)
    manager.update(f"git:file://{bare}")
    assert _skill_descriptions(tmp_path, agent_dir) == ["Write release notes v2"]
    assert manager.remove(f"git:file://{bare}") is True
    assert not (agent_dir / "git" / "local").exists()  # empty parents pruned
    assert _skill_descriptions(tmp_path, agent_dir) == []


def test_local_path_is_used_in_place_and_stored_relative(agent_dir: Path, tmp_path: Path) -> None:
    package = write_pi_package(tmp_path / "shared" / "team-pi", "team-pi", "0.1.0", tag=" local")
    cwd = tmp_path / "project"
    cwd.mkdir()
    manager = _manager(cwd, agent_dir)
    manager.install(str(package))
    stored = json.loads((agent_dir / "settings.json").read_text())["packages"]
    assert stored == [str(Path("..", "..", "..", "shared", "team-pi"))]
    assert (agent_dir / "npm").exists() is False  # nothing copied or installed
    assert _skill_descriptions(cwd, agent_dir) == ["Write release notes local"]
    # A single file is one extension.
    manager.install(str(package / "src" / "tool.ts"))
    paths = resolve_packages(manager).paths("extensions")
    assert paths == [str(package / "src" / "tool.ts")]


def test_filters_in_settings_narrow_a_package(agent_dir: Path, tmp_path: Path) -> None:
    package = write_pi_package(tmp_path / "team-pi", "team-pi", "0.1.0")
    entry = {"source": str(package), "skills": [], "prompts": ["!resources/prompts/draft.md"], "extensions": []}
    (agent_dir / "settings.json").write_text(json.dumps({"packages": [entry]}))
    loader = DefaultResourceLoader(tmp_path, agent_dir, SettingsManager.create(tmp_path, agent_dir))
    loader.reload()
    assert loader.get_skills() == []
    assert [p.name for p in loader.get_prompts()] == ["review"]
    assert loader.get_extension_paths() == []
    [listed] = _manager(tmp_path, agent_dir).list_configured()
    assert listed.filtered is True


@pytest.fixture
def wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = build_wheel(tmp_path)
    for name, value in pip_env(directory).items():
        monkeypatch.setenv(name, value)
    return directory


def test_pip_install_into_a_private_target(wheels: Path, agent_dir: Path, tmp_path: Path) -> None:
    manager = _manager(tmp_path, agent_dir)
    manager.install("pip:pi-shout==1.0.0")
    target = agent_dir / "pip" / "pi-shout"
    assert (target / "pi_shout" / "ext.py").is_file()
    assert json.loads((agent_dir / "settings.json").read_text())["packages"] == ["pip:pi-shout==1.0.0"]
    resolved = resolve_packages(manager)
    assert resolved.problems == []
    assert resolved.paths("extensions") == [str(target / "pi_shout" / "ext.py")]
    assert resolved.paths("skills") == [str(target / "pi_shout" / "skills" / "py-skill" / "SKILL.md")]
    # Not importable from pi-harness's own environment before the package was resolved.
    assert str(target) in sys.path and sys.path.index(str(target)) > 0
    assert manager.remove("pip:pi-shout") is True
    assert not target.exists()


async def test_pip_extension_works_in_a_session(wheels: Path, agent_dir: Path, tmp_path: Path) -> None:
    from pi_harness.coding.sdk import create_agent_session
    from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

    _manager(tmp_path, agent_dir).install("pip:pi-shout")
    with FakeLLMServer() as server:
        server.push(
            ScriptedResponse(steps=[ToolCallStep("py_shout", {"text": "hello"}, id="c1")]),
            ScriptedResponse(steps=[TextStep("done")]),
        )
        result = await create_agent_session(
            cwd=str(tmp_path), agent_dir=agent_dir, model=server.model("openai-completions"), api_keys={"fake": "k"}
        )
        await result.session.prompt("shout hello")
        output = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
        assert output["content"][0]["text"] == "HELLO!"
        system = server.requests[0].json["messages"][0]
        assert system["role"] == "system" and "<name>py-skill</name>" in system["content"]
        await result.runtime.shutdown()
