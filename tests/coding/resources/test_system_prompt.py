from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_harness.agent.types import AgentTool
from pi_harness.coding.resources.context_files import ContextFile
from pi_harness.coding.resources.skills import Skill
from pi_harness.coding.system_prompt import (
    PREAMBLE,
    SystemPromptInputs,
    build_system_prompt_sections,
    render_system_prompt,
    tagged_sections,
)


async def _noop(*_: Any) -> Any:
    return {"content": []}


def tool(name: str, snippet: str | None = None, guidelines: list[str] | None = None) -> AgentTool:
    return AgentTool(
        name,
        name,
        f"{name} description",
        {"type": "object"},
        _noop,
        prompt_snippet=snippet,
        prompt_guidelines=guidelines,
    )


def test_default_sections_in_order(tmp_path: Path) -> None:
    tools = [tool("read", "Read files"), tool("bash", "Run commands"), tool("edit"), tool("write"), tool("grep")]
    sections = build_system_prompt_sections(
        SystemPromptInputs(
            cwd="/work/proj",
            tools=tools,
            append=["Be nice."],
            context_files=[ContextFile("/work/proj/AGENTS.md", "Use pytest.\n")],
            skills=[Skill("pdf", "PDF work", "/s/pdf/SKILL.md", "/s/pdf", "user")],
            docs_dir=tmp_path,
        )
    )
    assert list(sections) == ["preamble", "tools", "rules", "docs", "addendum", "project_context", "skills", "cwd"]
    assert sections["preamble"] == PREAMBLE
    assert sections["tools"].splitlines()[:2] == ["- read: Read files", "- bash: Run commands"]
    assert "- edit: edit description" in sections["tools"]
    rules = sections["rules"]
    assert "grep, find and ls tools" in rules and "no dedicated search tools" not in rules
    assert rules.count("edits[]") >= 3
    assert rules.splitlines()[-2:] == [
        "- Keep your answers brief.",
        "- Make file paths clearly visible whenever you work with files.",
    ]
    assert (
        sections["project_context"]
        == '<project_instructions path="/work/proj/AGENTS.md">\nUse pytest.\n</project_instructions>'
    )
    # No date: the prompt stays the same bytes from day to day (prompt cache, resumed sessions).
    assert sections["cwd"] == "Current working directory: /work/proj"
    assert tagged_sections(sections)["cwd"] == "<cwd>\nCurrent working directory: /work/proj\n</cwd>"
    assert tagged_sections(sections)["preamble"] == PREAMBLE
    text = render_system_prompt(sections)
    assert text == "\n\n".join(tagged_sections(sections).values())
    assert text.startswith(PREAMBLE + "\n\n<tools>\n- read: Read files")
    assert "\n\n<addendum>\nBe nice.\n</addendum>\n\n<project_context>\n" in text
    assert text.endswith("<cwd>\nCurrent working directory: /work/proj\n</cwd>")


def test_custom_prompt_replaces_first_four_sections_and_skills_need_read(tmp_path: Path) -> None:
    sections = build_system_prompt_sections(
        SystemPromptInputs(
            cwd="/p",
            tools=[tool("bash")],
            custom_prompt="You are a pirate.",
            skills=[Skill("pdf", "PDF work", "/s/pdf/SKILL.md", "/s/pdf", "user")],
            extension_sections={"plan": "Plan first."},
            docs_dir=tmp_path,
        )
    )
    assert list(sections) == ["preamble", "cwd", "plan"]
    assert render_system_prompt(sections).startswith("You are a pirate.\n\n<cwd>")
    assert render_system_prompt(sections).endswith("<plan>\nPlan first.\n</plan>")


def test_bash_only_rule_and_no_tools() -> None:
    sections = build_system_prompt_sections(SystemPromptInputs(cwd="/p", tools=[tool("bash", guidelines=[" g1 ", ""])]))
    assert "- There are no dedicated search tools" in sections["rules"]
    assert "- g1" in sections["rules"]
    assert build_system_prompt_sections(SystemPromptInputs(cwd="/p", tools=[]))["tools"] == "(none)"
