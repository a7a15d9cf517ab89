"""Skills (the Agent Skills standard; docs/skills.md).

Only a skill's name, description and location enter the system prompt; the model reads the file
with the ``read`` tool when a task matches (progressive disclosure). ``/skill:name args`` inlines a
skill into the user message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from pi_harness.coding.resources.diagnostics import ResourceDiagnostic
from pi_harness.coding.resources.frontmatter import FrontmatterError, split_frontmatter

SkillSource = Literal["project", "user", "path", "package", "extension"]

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
_NAME_CHARS = re.compile(r"^[a-z0-9-]+$")
_IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    file_path: str
    base_dir: str
    source: SkillSource
    disable_model_invocation: bool = False
    metadata: dict[str, object] = field(default_factory=dict)


def validate_name(name: str) -> list[str]:
    problems = []
    if len(name) > MAX_NAME:
        problems.append(f"name exceeds 64 characters ({len(name)})")
    if not _NAME_CHARS.match(name):
        problems.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def load_skill_file(
    path: Path, source: SkillSource, diagnostics: list[ResourceDiagnostic], *, default_name: str | None = None
) -> Skill | None:
    try:
        text = path.read_text(encoding="utf-8")
        meta, _body = split_frontmatter(text)
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        diagnostics.append(ResourceDiagnostic("warning", str(exc), str(path)))
        return None
    name = str(meta.get("name") or default_name or path.parent.name)
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        diagnostics.append(ResourceDiagnostic("warning", "description is required", str(path)))
        return None
    for problem in validate_name(name):
        diagnostics.append(ResourceDiagnostic("warning", problem, str(path)))
    if len(description) > MAX_DESCRIPTION:
        diagnostics.append(
            ResourceDiagnostic("warning", f"description exceeds 1024 characters ({len(description)})", str(path))
        )
    compatibility = meta.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY:
        diagnostics.append(
            ResourceDiagnostic("warning", f"compatibility exceeds 500 characters ({len(compatibility)})", str(path))
        )
    return Skill(
        name=name,
        description=description.strip(),
        file_path=str(path.resolve()),
        base_dir=str(path.resolve().parent),
        source=source,
        disable_model_invocation=meta.get("disable-model-invocation") is True,
        metadata=meta,
    )


class _IgnoreRules(Protocol):
    """What the walk needs of a ``pathspec`` spec built from the ignore files."""

    def match_file(self, file: str) -> bool: ...


def _ignore_spec(directory: Path) -> _IgnoreRules | None:
    lines: list[str] = []
    for name in _IGNORE_FILES:
        try:
            lines.extend((directory / name).read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError):
            continue
    if not lines:
        return None
    import pathspec

    return pathspec.PathSpec.from_lines("gitignore", lines)


def discover_skill_files(root: Path) -> list[tuple[Path, str | None]]:
    """``(file, default_name)`` pairs found under a skills directory, per the discovery rules."""
    if root.is_file():
        return [(root, None if root.name == "SKILL.md" else root.stem)]
    if not root.is_dir():
        return []
    if (root / "SKILL.md").is_file():
        return [(root / "SKILL.md", None)]
    found: list[tuple[Path, str | None]] = []
    seen: set[str] = set()
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        path = Path(entry.path)
        if path.suffix == ".md" and path.is_file():
            found.append((path, path.stem))
    spec = _ignore_spec(root)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        current = Path(dirpath)
        real = os.path.realpath(current)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d != "node_modules"
            and not (spec is not None and spec.match_file(str((current / d).relative_to(root)) + "/"))
        )
        if current == root:
            continue
        if "SKILL.md" in filenames:
            found.append((current / "SKILL.md", None))
            dirnames[:] = []  # a skill directory is not searched further
    return found


def load_skills(locations: Iterable[tuple[Path, SkillSource]], diagnostics: list[ResourceDiagnostic]) -> list[Skill]:
    """Skills from each location in order; the first of a name wins, later ones are collisions."""
    skills: list[Skill] = []
    by_name: dict[str, Skill] = {}
    seen_files: set[str] = set()
    for root, source in locations:
        for path, default_name in discover_skill_files(root):
            real = os.path.realpath(path)
            if real in seen_files or not os.path.exists(real):
                continue
            seen_files.add(real)
            skill = load_skill_file(path, source, diagnostics, default_name=default_name)
            if skill is None:
                continue
            if skill.name in by_name:
                diagnostics.append(ResourceDiagnostic("collision", f'name "{skill.name}" collision', skill.file_path))
                continue
            by_name[skill.name] = skill
            skills.append(skill)
    return skills


SKILLS_INTRO = (
    "The skills below hold specialised instructions for particular kinds of task.\n"
    "When a task matches a skill's description, first load that skill's file with the read tool.\n"
    "Paths inside a skill file are relative to the skill's directory (the folder holding its file); "
    "turn them into absolute paths before using them in tool calls."
)


def render_skills(skills: Iterable[Skill]) -> str:
    """The prompt block listing model-invocable skills ("" when there are none)."""
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [SKILLS_INTRO, "", "<available_skills>"]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_xml(skill.name)}</name>",
            f"    <description>{_xml(skill.description)}</description>",
            f"    <location>{_xml(skill.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def _xml(text: str) -> str:
    from xml.sax.saxutils import escape  # imported when needed: it pulls in urllib and http.client

    return escape(text, {'"': "&quot;", "'": "&apos;"})


class SkillExpansionError(RuntimeError):
    def __init__(self, skill: Skill, message: str) -> None:
        super().__init__(message)
        self.skill = skill


def expand_skill_command(text: str, skills: Iterable[Skill]) -> str:
    """``/skill:name [args]`` → the skill block (+ args); other text and unknown skills unchanged.

    Raises ``SkillExpansionError`` when the skill file cannot be read (reported as an extension
    error with event ``skill_expansion`` by the caller, which keeps the text unchanged).
    """
    if not text.startswith("/skill:"):
        return text
    head, _, args = text[len("/skill:") :].partition(" ")
    name = head.strip()
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    try:
        raw = Path(skill.file_path).read_text(encoding="utf-8")
        _meta, body = split_frontmatter(raw)
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        raise SkillExpansionError(skill, str(exc)) from exc
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body.strip()}\n</skill>"
    )
    args = args.strip()
    return f"{block}\n\n{args}" if args else block
