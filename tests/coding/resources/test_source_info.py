"""Pi's ``sourceInfo`` of resources: how each was found, its scope and base directory."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.resources.loader import DefaultResourceLoader, ResourceOptions
from pi_harness.coding.resources.source_info import SourceIndex, SourceMetadata, extension_source, synthetic_source


def test_synthetic_paths() -> None:
    assert synthetic_source("builtin:mcp") == "builtin"
    assert synthetic_source("<sdk:watch#0>") == "sdk"
    assert synthetic_source("/home/ann/ext.py") is None
    index = SourceIndex(Path("/agent"), Path("/proj/.pi"))
    assert index.lookup("builtin:mcp") == {
        "path": "builtin:mcp",
        "source": "builtin",
        "scope": "temporary",
        "origin": "top-level",
    }


def test_the_closest_root_wins_and_unknown_paths_go_by_location(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "proj" / ".pi"
    index = SourceIndex(agent, project)
    index.add(agent / "skills", SourceMetadata("auto", "user", base_dir=str(agent)))
    index.add(agent / "skills" / "special", SourceMetadata("local", "user", base_dir=str(agent)))
    assert index.lookup(str(agent / "skills" / "a" / "SKILL.md"))["source"] == "auto"
    assert index.lookup(str(agent / "skills" / "special" / "SKILL.md"))["source"] == "local"
    by_location = index.lookup(str(project / "prompts" / "x.md"))
    assert (by_location["source"], by_location["scope"]) == ("local", "project")
    elsewhere = index.lookup(str(tmp_path / "loose" / "x.md"))
    assert (elsewhere["scope"], elsewhere.get("baseDir")) == ("temporary", str(tmp_path / "loose"))


def test_extension_source_names_the_extension() -> None:
    assert extension_source("/home/ann/.pi/agent/extensions/docs_pack.py") == SourceMetadata(
        "extension:docs_pack", "temporary", base_dir="/home/ann/.pi/agent/extensions"
    )
    assert extension_source("<sdk:pack#0>").source == "extension:sdk:pack#0"


def test_the_loader_records_discovery_settings_cli_and_extension_origins(tmp_path: Path, agent_dir: Path) -> None:
    project = tmp_path / "proj"
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "fix.md").write_text("fix $1")
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text("review $1")
    shared = tmp_path / "shared-prompts"
    shared.mkdir()
    (shared / "lint.md").write_text("lint $1")
    (agent_dir / "settings.json").write_text(json.dumps({"prompts": [str(shared)]}))
    cli = tmp_path / "cli.md"
    cli.write_text("from the command line")
    contributed = tmp_path / "pack" / "skills" / "helper"
    contributed.mkdir(parents=True)
    (contributed / "SKILL.md").write_text("---\ndescription: helps\n---\nhelp\n")

    settings = SettingsManager.create(project, agent_dir)
    options = ResourceOptions(prompt_template_paths=[str(cli)], extension_paths=[str(tmp_path / "e.py")])
    loader = DefaultResourceLoader(project, agent_dir, settings, options=options)
    loader.reload()
    loader.extend_resources([str(contributed)], origins={str(contributed): str(tmp_path / "pack" / "pack.py")})

    info = {p.name: loader.source_info(p.file_path) for p in loader.get_prompts()}
    assert info["review"] == {
        "path": str((agent_dir / "prompts" / "review.md").resolve()),
        "source": "auto",
        "scope": "user",
        "origin": "top-level",
        "baseDir": str(agent_dir),
    }
    assert (info["fix"]["source"], info["fix"]["scope"], info["fix"]["baseDir"]) == (
        "auto",
        "project",
        str(project.resolve() / ".pi"),
    )
    assert (info["lint"]["source"], info["lint"]["scope"], info["lint"]["baseDir"]) == ("local", "user", str(agent_dir))
    assert (info["cli"]["source"], info["cli"]["scope"]) == ("local", "temporary")
    (helper,) = [s for s in loader.get_skills() if s.name == "helper"]
    skill_info = loader.source_info(helper.file_path)
    assert (skill_info["source"], skill_info["scope"]) == ("extension:pack", "temporary")
    extension_info = loader.source_info(str(tmp_path / "e.py"))
    assert (extension_info["source"], extension_info["scope"], "baseDir" in extension_info) == (
        "cli",
        "temporary",
        False,
    )
