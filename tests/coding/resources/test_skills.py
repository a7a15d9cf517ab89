from __future__ import annotations

from pathlib import Path

import pytest

from pi_harness.coding.resources.diagnostics import ResourceDiagnostic
from pi_harness.coding.resources.skills import (
    SkillExpansionError,
    expand_skill_command,
    load_skills,
    render_skills,
)


def skill(dir: Path, body: str, name: str = "SKILL.md") -> Path:
    dir.mkdir(parents=True, exist_ok=True)
    path = dir / name
    path.write_text(body)
    return path


def test_discovery_rules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root / "pdf", "---\ndescription: Work with PDFs\n---\nUse pdftotext.\n")
    skill(root / "pdf" / "nested", "---\ndescription: never found\n---\n")  # below a skill dir
    skill(root / "group" / "deep" / "csv", "---\ndescription: CSV tricks\n---\n")
    skill(root, "---\ndescription: single file\n---\n", name="quick.md")
    skill(root / ".hidden", "---\ndescription: hidden\n---\n")
    skill(root / "node_modules" / "x", "---\ndescription: vendored\n---\n")
    skill(root / "ignored", "---\ndescription: ignored by .gitignore\n---\n")
    (root / ".gitignore").write_text("ignored/\n")
    diags: list[ResourceDiagnostic] = []
    skills = load_skills([(root, "user")], diags)
    assert sorted(s.name for s in skills) == ["csv", "pdf", "quick"]
    pdf = next(s for s in skills if s.name == "pdf")
    assert pdf.file_path == str((root / "pdf" / "SKILL.md").resolve())
    assert pdf.base_dir == str((root / "pdf").resolve())
    assert diags == []


def test_validation(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root / "nodesc", "---\nname: nodesc\n---\nbody")
    skill(root / "Bad_Name", "---\ndescription: ok\n---\n")
    skill(root / "long", f"---\ndescription: {'x' * 1100}\n---\n")
    skill(root / "hyph", "---\nname: -a--b-\ndescription: ok\n---\n")
    diags: list[ResourceDiagnostic] = []
    skills = load_skills([(root, "user")], diags)
    assert sorted(s.name for s in skills) == ["-a--b-", "Bad_Name", "long"]
    messages = sorted(d.message for d in diags)
    assert messages == [
        "description exceeds 1024 characters (1100)",
        "description is required",
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        "name must not contain consecutive hyphens",
        "name must not start or end with a hyphen",
    ]


def test_first_location_wins_and_collisions_are_reported(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    skill(a / "x", "---\ndescription: from a\n---\n")
    skill(b / "x", "---\ndescription: from b\n---\n")
    diags: list[ResourceDiagnostic] = []
    skills = load_skills([(a, "project"), (b, "user")], diags)
    assert [(s.name, s.description, s.source) for s in skills] == [("x", "from a", "project")]
    assert [d.message for d in diags] == ['name "x" collision']


def test_render_escapes_and_hides_disabled(tmp_path: Path) -> None:
    root = tmp_path / "s"
    skill(root / "a", "---\ndescription: \"Use <tags> & 'quotes'\"\n---\n")
    skill(root / "b", "---\ndescription: hidden\ndisable-model-invocation: true\n---\n")
    text = render_skills(load_skills([(root, "user")], []))
    assert "<available_skills>\n  <skill>\n    <name>a</name>" in text
    assert "<description>Use &lt;tags&gt; &amp; &apos;quotes&apos;</description>" in text
    assert "<name>b</name>" not in text
    assert text.endswith("</available_skills>")
    assert render_skills([]) == ""


def test_skill_command_expansion(tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = skill(root / "deploy", "---\ndescription: Deploy\n---\n\n  Run make deploy.  \n")
    skills = load_skills([(root, "user")], [])
    base = str((root / "deploy").resolve())
    expected = f'<skill name="deploy" location="{path.resolve()}">\nReferences are relative to {base}.\n\nRun make deploy.\n</skill>'
    assert expand_skill_command("/skill:deploy", skills) == expected
    assert expand_skill_command("/skill:deploy to prod", skills) == expected + "\n\nto prod"
    assert expand_skill_command("/skill:unknown x", skills) == "/skill:unknown x"
    assert expand_skill_command("hello", skills) == "hello"
    path.unlink()
    with pytest.raises(SkillExpansionError):
        expand_skill_command("/skill:deploy", skills)
