from __future__ import annotations

from pathlib import Path

from pi_harness.coding.resources.diagnostics import ResourceDiagnostic
from pi_harness.coding.resources.templates import expand_template, load_templates, split_args, substitute


def test_split_args_quotes() -> None:
    assert split_args("a  'b c' \"d e\"\tf") == ["a", "b c", "d e", "f"]
    assert split_args("''") == [""]
    assert split_args("") == []


def test_substitution_forms() -> None:
    args = ["one", "two", "three"]
    assert substitute("$1-$2-$4", args) == "one-two-"
    assert substitute("$@|$ARGUMENTS", args) == "one two three|one two three"
    assert substitute("${@:2}", args) == "two three"
    assert substitute("${@:2:1}", args) == "two"
    assert substitute("${@:0}", args) == "one two three"
    assert substitute("${4:-fallback} ${1:-x}", args) == "fallback one"
    assert substitute("$1", ["$2", "B"]) == "$2"  # values are not re-substituted


def test_discovery_description_and_collisions(tmp_path: Path, agent_dir: Path) -> None:
    user = agent_dir / "prompts"
    user.mkdir()
    (user / "review.md").write_text("---\ndescription: Review code\n---\nReview $1 carefully.")
    (user / "long.md").write_text("\n\n" + "x" * 70 + "\nmore")
    (user / "sub").mkdir()
    (user / "sub" / "deep.md").write_text("not discovered (non-recursive)")
    project = tmp_path / ".pi" / "prompts"
    project.mkdir(parents=True)
    (project / "review.md").write_text("project review $@")
    diags: list[ResourceDiagnostic] = []
    templates = load_templates([(project, "project"), (user, "user")], diags)
    by_name = {t.name: t for t in templates}
    assert sorted(by_name) == ["long", "review"]
    # Pi 1.4.0's description: no "(user)"/"(project)" label (its origin is in sourceInfo).
    assert by_name["review"].description == "project review $@"
    assert by_name["long"].description == "x" * 60 + "..."
    assert [d.message for d in diags] == ['name "/review" collision']
    assert expand_template("/review a.py b.py", templates) == "project review a.py b.py"
    assert expand_template("/nope x", templates) == "/nope x"
