"""System prompt assembly from named sections (1.4.0).

Sections, in order: ``preamble``, ``tools``, ``rules``, ``docs``, ``addendum``,
``project_context``, ``skills``, ``cwd``, then extension sections. Every section except the
preamble is wrapped in a tag of its own name; sections are joined by a blank line. A SYSTEM.md or
``--system-prompt`` text replaces the first four sections. The session persists the tagged
sections and patches of them in the transcript, so the prompt can be rebuilt by replaying them.
Nothing in the prompt changes by itself (no date, no clock): a resumed session sends the same
bytes, which keeps the provider's prompt cache valid.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_harness.agent.types import AgentTool
from pi_harness.coding.resources.context_files import ContextFile
from pi_harness.coding.resources.skills import Skill, render_skills
from pi_harness.coding.session_store.system_messages import tag_section

SECTION_ORDER = ("preamble", "tools", "rules", "docs", "addendum", "project_context", "skills", "cwd")
PREAMBLE = "You are an expert coding assistant operating inside pi-harness, a coding agent harness."
_SEARCH_TOOLS = ("grep", "find", "ls")


@dataclass
class SystemPromptInputs:
    cwd: str
    tools: Sequence[AgentTool]
    custom_prompt: str | None = None  # SYSTEM.md or --system-prompt: replaces preamble..docs
    append: Sequence[str] = ()  # APPEND_SYSTEM.md and --append-system-prompt
    context_files: Sequence[ContextFile] = ()
    skills: Sequence[Skill] = ()
    extra_guidelines: Sequence[str] = ()
    extension_sections: Mapping[str, str] = field(default_factory=dict)
    docs_dir: Path | None = None
    # Active tools whose declarations requests leave out (``prepare_loadout``): neither listed nor
    # given rules, but a hidden ``read`` still keeps the skills, which scripts can read through it.
    hidden_tools: frozenset[str] = frozenset()


def _tools_section(tools: Sequence[AgentTool]) -> str:
    if not tools:
        return "(none)"
    lines = []
    for tool in tools:
        snippet = (tool.prompt_snippet or tool.description or tool.name).strip().splitlines()[0]
        lines.append(f"- {tool.name}: {snippet}")
    lines.append("Depending on the project you may also have other custom tools available.")
    return "\n".join(lines)


def _rules(tools: Sequence[AgentTool], extra: Iterable[str]) -> list[str]:
    names = {tool.name for tool in tools}
    rules: list[str] = []
    has_search = any(name in names for name in _SEARCH_TOOLS)
    if "bash" in names and not has_search:
        rules.append("There are no dedicated search tools: use bash (ls, rg, find) for file operations.")
    if "bash" in names and has_search:
        rules.append(
            "Explore files with the grep, find and ls tools rather than through bash: "
            "they are faster and respect .gitignore."
        )
    if "read" in names:
        rules.append("Look at file contents with the read tool, not with cat or sed.")
    if "edit" in names:
        rules += [
            "Use edit for precise changes; each edits[].oldText must match the file exactly.",
            "Put several separate changes to one file into a single edit call with several edits[] entries, "
            "not into several edit calls.",
            "Every edits[].oldText is matched against the original file, not against the result of earlier "
            "edits; do not overlap or nest edits, and merge nearby changes into one edit.",
            "Keep each edits[].oldText as short as it can be while still unique in the file; "
            "do not pad it with large unchanged regions.",
        ]
    if "write" in names:
        rules.append("Use write only to create new files or to rewrite a file completely.")
    for tool in tools:
        for guideline in tool.prompt_guidelines or []:
            if guideline.strip():
                rules.append(guideline.strip())
    rules += [item.strip() for item in extra if item.strip()]
    rules += ["Keep your answers brief.", "Make file paths clearly visible whenever you work with files."]
    unique: list[str] = []
    for rule in rules:
        if rule not in unique:
            unique.append(rule)
    return unique


@functools.cache  # the prompt is rebuilt before every turn; where the package is does not change
def default_docs_dir() -> Path:
    import pi_harness

    # The package directory itself when it is on disk (``importlib.resources`` is a slow import).
    package_file = getattr(pi_harness, "__file__", None)
    if package_file is not None:
        return Path(package_file).parent / "docs"
    from importlib import resources

    return Path(str(resources.files("pi_harness").joinpath("docs")))


@functools.cache  # as default_docs_dir: two file-system checks per turn otherwise
def examples_dir(docs_dir: Path) -> Path:
    """Installed wheels carry the examples beside the docs; a source checkout has them at its root."""
    installed = docs_dir / "examples"
    if installed.is_dir():
        return installed
    checkout = docs_dir.parent.parent.parent / "examples"
    return checkout if checkout.is_dir() else installed


def _docs_section(docs_dir: Path) -> str:
    readme = docs_dir / "README.md"
    examples = examples_dir(docs_dir)
    return "\n".join(
        [
            "pi-harness documentation (read it only when the user asks about pi-harness itself, its SDK, "
            "extensions, themes, skills or terminal UI):",
            f"- Main documentation: {readme}",
            f"- Further documents: {docs_dir}",
            f"- Examples of extensions, custom tools and SDK use: {examples}",
            "- Topics: extensions → extensions.md and examples/extensions/; themes → themes.md; "
            "skills → skills.md; prompt templates → prompt-templates.md; terminal UI → tui.md; "
            "keybindings → keybindings.md; SDK → sdk.md; custom providers → custom-provider.md; "
            "models → models.md; packages → packages.md",
            "- For work on pi-harness itself, read the relevant documents and examples first and follow "
            "their cross-references before implementing.",
            "- Read the .md files completely and follow links to related documents.",
        ]
    )


def _context_section(files: Sequence[ContextFile]) -> str:
    return "\n\n".join(
        f'<project_instructions path="{file.path}">\n{file.content.strip()}\n</project_instructions>' for file in files
    )


def build_system_prompt_sections(inputs: SystemPromptInputs) -> dict[str, str]:
    """The ordered section bodies (untagged; empty sections omitted)."""
    sections: dict[str, str] = {}
    if inputs.custom_prompt is not None:
        sections["preamble"] = inputs.custom_prompt.strip()
    else:
        sections["preamble"] = PREAMBLE
        declared = [tool for tool in inputs.tools if tool.name not in inputs.hidden_tools]
        sections["tools"] = _tools_section(declared)
        sections["rules"] = "\n".join(f"- {rule}" for rule in _rules(declared, inputs.extra_guidelines))
        sections["docs"] = _docs_section(inputs.docs_dir or default_docs_dir())
    addendum = "\n\n".join(text.strip() for text in inputs.append if text and text.strip())
    if addendum:
        sections["addendum"] = addendum
    if inputs.context_files:
        sections["project_context"] = _context_section(inputs.context_files)
    if any(tool.name == "read" for tool in inputs.tools):
        skills = render_skills(inputs.skills)
        if skills:
            sections["skills"] = skills
    cwd = inputs.cwd.replace("\\", "/")
    sections["cwd"] = f"Current working directory: {cwd}"
    for name, body in inputs.extension_sections.items():
        if name not in SECTION_ORDER and body.strip():
            sections[name] = body.strip()
    return sections


def tagged_sections(sections: Mapping[str, str | None]) -> dict[str, str]:
    """Section bodies as the transcript stores them: in prompt order (built-in sections, then
    the others as given), empty ones left out, every one but the preamble in its tag."""
    ordered = [name for name in SECTION_ORDER if name in sections]
    ordered += [name for name in sections if name not in SECTION_ORDER]
    tagged: dict[str, str] = {}
    for name in ordered:
        body = sections.get(name)
        if body is not None and body.strip():
            tagged[name] = tag_section(name, body)
    return tagged


def render_system_prompt(sections: Mapping[str, str | None]) -> str:
    """The prompt text of section bodies: the tagged sections joined by blank lines."""
    return "\n\n".join(tagged_sections(sections).values())
