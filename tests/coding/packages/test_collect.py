"""What a package directory offers (manifest or conventional directories) and how settings
filters narrow it: ``[]``, globs, ``!pattern``, ``+path``, ``-path``, ``autoload: false``."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.packages.collect import collect_package


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _enabled(root: Path, entry_filter: dict[str, object] | None = None) -> dict[str, list[str]]:
    collected, _ = collect_package(root, entry_filter)
    return {
        kind: sorted(str(f.path.relative_to(root)) for f in found if f.enabled) for kind, found in collected.items()
    }


CONVENTIONAL = {
    "package.json": json.dumps({"name": "p"}),
    "extensions/a.ts": "",
    "extensions/b.js": "",
    "extensions/tool.py": "",
    "extensions/_private.py": "",
    "extensions/sub/index.ts": "",
    "extensions/sub/helper.ts": "",
    "extensions/notes.txt": "",
    "skills/one/SKILL.md": "",
    "skills/one/reference.md": "",
    "skills/top.md": "",
    "skills/deep/nested/SKILL.md": "",
    "skills/.hidden/SKILL.md": "",
    "prompts/review.md": "",
    "prompts/more/plan.md": "",
    "prompts/node_modules/x.md": "",
    "themes/dark.json": "{}",
    "themes/readme.txt": "",
}


def test_conventional_directories_without_a_manifest(tmp_path: Path) -> None:
    found = _enabled(_tree(tmp_path, CONVENTIONAL))
    assert found == {
        "extensions": ["extensions/a.ts", "extensions/b.js", "extensions/sub/index.ts", "extensions/tool.py"],
        "skills": ["skills/deep/nested/SKILL.md", "skills/one/SKILL.md", "skills/top.md"],
        "prompts": ["prompts/more/plan.md", "prompts/review.md"],
        "themes": ["themes/dark.json"],
    }


def test_a_manifest_replaces_the_conventions_and_its_globs_expand(tmp_path: Path) -> None:
    files = dict(CONVENTIONAL)
    files["package.json"] = json.dumps(
        {"pi": {"extensions": ["./src/main.ts"], "prompts": ["./res/prompts/*.md", "!res/prompts/old.md"]}}
    )
    files.update({"src/main.ts": "", "res/prompts/new.md": "", "res/prompts/old.md": "", "res/prompts/sub/x.md": ""})
    found = _enabled(_tree(tmp_path, files))
    # Types the manifest does not list are empty: the conventional directories are not used.
    assert found == {"extensions": ["src/main.ts"], "skills": [], "prompts": ["res/prompts/new.md"], "themes": []}


def test_python_packages_declare_resources_in_tool_pi(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.pi]\nextensions = ["review_gate.py"]\nskills = ["docs/skills"]\n',
            "review_gate.py": "",
            "other.py": "",
            "docs/skills/gate/SKILL.md": "",
        },
    )
    assert _enabled(tmp_path) == {
        "extensions": ["review_gate.py"],
        "skills": ["docs/skills/gate/SKILL.md"],
        "prompts": [],
        "themes": [],
    }


def test_filters_only_narrow(tmp_path: Path) -> None:
    root = _tree(tmp_path, CONVENTIONAL)
    found = _enabled(
        root,
        {
            "source": "x",
            "extensions": ["extensions/*.ts", "!extensions/a.ts"],
            "skills": [],
            "prompts": ["prompts/review.md", "+prompts/never-offered.md"],
        },
    )
    assert found["extensions"] == []  # a.ts excluded; sub/index.ts is not matched by extensions/*.ts
    assert found["skills"] == []
    assert found["prompts"] == ["prompts/review.md"]  # "+" cannot add a file the package does not offer
    assert found["themes"] == ["themes/dark.json"]  # omitted: everything


def test_plus_re_adds_and_minus_removes_exact_paths(tmp_path: Path) -> None:
    root = _tree(tmp_path, CONVENTIONAL)
    found = _enabled(root, {"extensions": ["!*.ts", "+extensions/sub/index.ts", "-extensions/b.js"]})
    assert found["extensions"] == ["extensions/sub/index.ts", "extensions/tool.py"]
    skills = _enabled(root, {"skills": ["!*", "+skills/one"]})["skills"]
    assert skills == ["skills/one/SKILL.md"]  # a skill matches by its directory


def test_autoload_false_is_a_delta(tmp_path: Path) -> None:
    root = _tree(tmp_path, CONVENTIONAL)
    collected, _ = collect_package(root, {"autoload": False, "prompts": ["-prompts/review.md"]})
    assert [(str(f.path.relative_to(root)), f.enabled) for f in collected["prompts"]] == [("prompts/review.md", False)]
    assert collected["themes"] == []


def test_ignore_files_hide_resources(tmp_path: Path) -> None:
    root = _tree(tmp_path, {**CONVENTIONAL, "prompts/.gitignore": "more/\n", "themes/.ignore": "dark.json\n"})
    found = _enabled(root)
    assert found["prompts"] == ["prompts/review.md"]
    assert found["themes"] == []


def test_a_directory_without_resources_is_not_a_package(tmp_path: Path) -> None:
    _tree(tmp_path, {"main.py": ""})
    _collected, is_package = collect_package(tmp_path, None)
    assert not is_package
