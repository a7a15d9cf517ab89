from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.resources.loader import DefaultResourceLoader, ResourceLoader, ResourceOptions


def make_project(tmp_path: Path, agent_dir: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".pi" / "skills" / "proj-skill").mkdir(parents=True)
    (proj / ".pi" / "skills" / "proj-skill" / "SKILL.md").write_text("---\ndescription: project skill\n---\n")
    (proj / ".pi" / "prompts").mkdir()
    (proj / ".pi" / "prompts" / "fix.md").write_text("fix $1")
    (proj / ".pi" / "extensions").mkdir()
    (proj / ".pi" / "extensions" / "proj_ext.py").write_text("def extension(pi): pass\n")
    (proj / ".pi" / "extensions" / "old.ts").write_text("")
    (proj / ".pi" / "SYSTEM.md").write_text("project system")
    (proj / "AGENTS.md").write_text("project agents")
    (agent_dir / "skills" / "user-skill").mkdir(parents=True)
    (agent_dir / "skills" / "user-skill" / "SKILL.md").write_text("---\ndescription: user skill\n---\n")
    (agent_dir / "extensions").mkdir()
    (agent_dir / "extensions" / "user_ext.py").write_text("def extension(pi): pass\n")
    (agent_dir / "APPEND_SYSTEM.md").write_text("global append")
    return proj


def test_trusted_project_loads_everything(tmp_path: Path, agent_dir: Path) -> None:
    proj = make_project(tmp_path, agent_dir)
    loader = DefaultResourceLoader(proj, agent_dir, SettingsManager.create(proj, agent_dir), project_trusted=True)
    assert isinstance(loader, ResourceLoader)
    loader.reload()
    assert [s.name for s in loader.get_skills()] == ["proj-skill", "user-skill"]
    assert [p.name for p in loader.get_prompts()] == ["fix"]
    # A Pi TypeScript extension is found too (the Node bridge runs it, extensions-node.md).
    assert [Path(p).name for p in loader.get_extension_paths()] == ["old.ts", "proj_ext.py", "user_ext.py"]
    assert loader.get_system_prompt() == "project system"
    assert loader.get_append_system_prompt() == ["global append"]
    assert [f.content for f in loader.get_agents_files()] == ["project agents"]


def test_untrusted_project_skips_protected_resources(tmp_path: Path, agent_dir: Path) -> None:
    proj = make_project(tmp_path, agent_dir)
    loader = DefaultResourceLoader(
        proj, agent_dir, SettingsManager.create(proj, agent_dir, project_trusted=False), project_trusted=False
    )
    loader.reload()
    assert [s.name for s in loader.get_skills()] == ["user-skill"]
    assert loader.get_prompts() == []
    assert [Path(p).name for p in loader.get_extension_paths()] == ["user_ext.py"]
    assert loader.get_system_prompt() is None
    assert [f.content for f in loader.get_agents_files()] == ["project agents"]  # never trust-gated


def test_cli_switches_and_settings_filters(tmp_path: Path, agent_dir: Path) -> None:
    proj = make_project(tmp_path, agent_dir)
    extra = tmp_path / "extra.py"
    extra.write_text("def extension(pi): pass\n")
    (agent_dir / "settings.json").write_text(json.dumps({"extensions": ["!*user_ext.py"]}))
    options = ResourceOptions(
        extension_paths=[str(extra)],
        no_skills=True,
        skill_paths=[str(agent_dir / "skills" / "user-skill")],
        no_context_files=True,
        system_prompt="cli system",
        append_system_prompt=["cli append"],
    )
    loader = DefaultResourceLoader(proj, agent_dir, SettingsManager.create(proj, agent_dir), options=options)
    loader.reload()
    assert [Path(p).name for p in loader.get_extension_paths()] == ["extra.py", "old.ts", "proj_ext.py"]
    assert [s.name for s in loader.get_skills()] == ["user-skill"]  # explicit paths load despite -ns
    assert loader.get_agents_files() == []
    assert loader.get_system_prompt() == "cli system"
    assert loader.get_append_system_prompt() == ["cli append"]


def test_extend_resources_adds_skill_paths(tmp_path: Path, agent_dir: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    more = tmp_path / "more" / "ext-skill"
    more.mkdir(parents=True)
    (more / "SKILL.md").write_text("---\ndescription: from an extension\n---\n")
    loader = DefaultResourceLoader(proj, agent_dir, SettingsManager.in_memory())
    loader.reload()
    loader.extend_resources(skill_paths=[str(more.parent)])
    assert [s.name for s in loader.get_skills()] == ["ext-skill"]


def test_override_entries_turn_discovered_resources_off_per_scope(tmp_path: Path, agent_dir: Path) -> None:
    # What ``pi config`` (Pi 1.4.0) writes: entries relative to the agent dir (user scope) or to
    # .pi (project scope); each scope's entries filter only what was found in that scope.
    proj = make_project(tmp_path, agent_dir)
    (agent_dir / "skills" / "other").mkdir()
    (agent_dir / "skills" / "other" / "SKILL.md").write_text("---\ndescription: another\n---\n")
    (agent_dir / "prompts").mkdir()
    for name in ("one", "two"):
        (agent_dir / "prompts" / f"{name}.md").write_text(name)
    (agent_dir / "themes").mkdir()
    (agent_dir / "themes" / "dark-ish.json").write_text("{}")
    (agent_dir / "settings.json").write_text(
        json.dumps(
            {
                "skills": ["-skills/user-skill"],
                "prompts": ["!*.md", "+prompts/two.md"],
                "themes": ["-themes/dark-ish.json"],
                "extensions": ["-extensions/user_ext.py", "-extensions/proj_ext.py"],
            }
        )
    )
    (proj / ".pi" / "settings.json").write_text(json.dumps({"prompts": ["-prompts/fix.md"]}))
    loader = DefaultResourceLoader(proj, agent_dir, SettingsManager.create(proj, agent_dir), project_trusted=True)
    loader.reload()
    assert [s.name for s in loader.get_skills()] == ["proj-skill", "other"]
    assert [p.name for p in loader.get_prompts()] == ["two"]
    assert loader.get_theme_paths() == []
    # The user scope's "-extensions/proj_ext.py" names no user file: the project's stays.
    assert [Path(p).name for p in loader.get_extension_paths()] == ["old.ts", "proj_ext.py"]
